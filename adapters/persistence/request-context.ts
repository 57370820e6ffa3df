import { RequestContext, type EntityManager, type MikroORM } from '@mikro-orm/postgresql';
import type { NextFunction, Request, RequestHandler, Response } from 'express';

/**
 * Each unit of work gets its own EntityManager fork, so entities loaded by one request or message never
 * leak into another through a shared identity map (the global EM is disabled: `allowGlobalContext: false`).
 */

/** Express middleware: every request runs inside its own RequestContext, so `orm.em` resolves to that request's fork. */
export function requestContextMiddleware(orm: MikroORM): RequestHandler {
  return (_req: Request, _res: Response, next: NextFunction) => {
    RequestContext.create(orm.em, next);
  };
}

/**
 * Runs `fn` with a fresh fork, for message handlers and scheduled jobs. The fork is also installed as
 * the ambient RequestContext, so code that reaches for `orm.em` inside `fn` gets the same fork.
 */
export function withForkedEm<T>(orm: MikroORM, fn: (em: EntityManager) => Promise<T>): Promise<T> {
  return RequestContext.create(orm.em, () => {
    const em = RequestContext.getEntityManager() as EntityManager;
    return fn(em);
  });
}

/** The request's EntityManager inside `requestContextMiddleware` or `withForkedEm`; throws outside them. */
export function currentEm(): EntityManager {
  const em = RequestContext.getEntityManager();
  if (!em) throw new Error('No request context: use requestContextMiddleware or withForkedEm');
  return em as EntityManager;
}
