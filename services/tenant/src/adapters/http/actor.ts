import type { Response } from 'express';
import { SYSTEM_ACTOR, type Actor } from '../../domain/audit.js';

interface PrincipalLike {
  subject?: string;
  claims?: Record<string, unknown>;
}

/**
 * Who is making the request, for audit events: the verified token's principal when the
 * authentication middleware put one in `res.locals.principal`, else "SystemUser".
 */
export function actorOf(res: Response): Actor {
  const principal = res.locals.principal as PrincipalLike | undefined;
  if (!principal?.subject) return SYSTEM_ACTOR;
  const claims = principal.claims ?? {};
  const display = [claims.email, claims.name, claims.preferred_username].find((value) => typeof value === 'string' && value !== '');
  return { userId: principal.subject, user: (display as string | undefined) ?? principal.subject };
}
