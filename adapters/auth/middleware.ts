import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { HttpProblem } from '../http/problem.js';
import type { Logger } from '../observability/logger.js';
import { TokenRejectedError, type Principal, type TokenVerifier } from './token-verifier.js';

/**
 * The policy AuthenticatedUser (specification, inbound authentication): a request must carry a valid
 * bearer JWT. 401 (with `WWW-Authenticate: Bearer`) when the token is missing or invalid; 403 when the
 * caller is authenticated but lacks the permission an operation needs.
 *
 * Mode `none` (local development only) lets every request through as an anonymous administrator and is
 * announced with a warning at start-up, so it is never on by accident without a trace in the logs.
 */
export type AuthMode = 'jwt' | 'none';

export const ANONYMOUS_PRINCIPAL: Principal = Object.freeze({
  subject: 'anonymous',
  permissions: ['*'],
  roles: [],
  claims: {},
});

declare module 'express-serve-static-core' {
  interface Locals {
    principal?: Principal;
  }
}

export interface AuthenticatedUserOptions {
  mode: AuthMode;
  verifier?: TokenVerifier;
  logger: Logger;
  /** Realm in WWW-Authenticate. */
  realm?: string;
}

export function authenticatedUser(options: AuthenticatedUserOptions): RequestHandler {
  if (options.mode === 'none') {
    options.logger.warn('Inbound authentication is OFF (auth.mode=none): every caller is treated as an administrator. Never use this in production.');
    return (_req, res, next) => {
      res.locals.principal = ANONYMOUS_PRINCIPAL;
      next();
    };
  }
  const verifier = options.verifier;
  if (!verifier) throw new Error('auth.mode jwt needs a token verifier');
  const realm = options.realm ?? 'nhsn';
  return async (req: Request, res: Response, next: NextFunction) => {
    const header = req.headers.authorization;
    const match = header ? /^Bearer\s+(\S+)$/i.exec(header) : null;
    if (!match) {
      return next(challenge(realm, header ? 'invalid_request' : undefined, header ? 'The Authorization header must be "Bearer <token>".' : 'A bearer token is required.'));
    }
    try {
      res.locals.principal = await verifier.verify(match[1]);
      next();
    } catch (error) {
      if (error instanceof TokenRejectedError) return next(challenge(realm, 'invalid_token', error.message));
      next(error);
    }
  };
}

/** 403 unless the authenticated caller holds `permission` (the `*` of mode none holds every permission). */
export function requirePermission(permission: string): RequestHandler {
  return (_req, res, next) => {
    const principal = res.locals.principal;
    if (!principal) return next(challenge('nhsn', undefined, 'A bearer token is required.'));
    if (principal.permissions.includes('*') || principal.permissions.includes(permission)) return next();
    next(HttpProblem.forbidden(`This operation needs the permission "${permission}".`));
  };
}

/** Admin-only writes: reads need an authenticated user, writes (POST/PUT/PATCH/DELETE) need `permission` too. */
export function requirePermissionForWrites(permission: string): RequestHandler {
  const guard = requirePermission(permission);
  return (req, res, next) => (['GET', 'HEAD', 'OPTIONS'].includes(req.method) ? next() : guard(req, res, next));
}

function challenge(realm: string, error: string | undefined, detail: string): HttpProblem {
  const params = [`realm="${realm}"`];
  if (error) params.push(`error="${error}"`, `error_description="${detail.replace(/"/g, "'")}"`);
  return new HttpProblem(401, 'unauthorized', 'Unauthorized', detail, undefined, { 'WWW-Authenticate': `Bearer ${params.join(', ')}` });
}
