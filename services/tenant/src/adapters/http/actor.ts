import type { Response } from 'express';
import { ANONYMOUS_PRINCIPAL } from '#adapters/auth/index.js';
import { SYSTEM_ACTOR, type Actor } from '../../domain/audit.js';

/**
 * Who is making the request, for audit events: the verified token's principal that the
 * AuthenticatedUser middleware (adapters/auth) put in `res.locals.principal`, else "SystemUser".
 */
export function actorOf(res: Response): Actor {
  const principal = res.locals.principal;
  // auth.mode=none gives every request the anonymous principal: nobody in particular.
  if (!principal?.subject || principal === ANONYMOUS_PRINCIPAL) return SYSTEM_ACTOR;
  const claims = principal.claims;
  const display = [claims.email, claims.name, claims.preferred_username].find((value: unknown): value is string => typeof value === 'string' && value !== '');
  return { userId: principal.subject, user: display ?? principal.subject };
}
