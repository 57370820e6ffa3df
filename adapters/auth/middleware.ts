import type { NextFunction, Request, RequestHandler, Response } from 'express';
import type { IncomingHttpHeaders } from 'node:http';
import { HttpProblem } from '../http/problem.js';
import type { Logger } from '../observability/logger.js';
import type { ServiceMetrics } from '../observability/metrics.js';
import { ANONYMOUS_PRINCIPAL, holdsPermission, type Principal } from './principal.js';
import { KeySetUnavailableError } from './remote-key-set.js';
import { TokenRejectedError, type TokenVerifier } from './token-verifier.js';

/**
 * The policy AuthenticatedUser (specification, inbound authentication): a request must carry a valid
 * bearer JWT. 401 (with `WWW-Authenticate: Bearer`) when the token is missing or invalid; 403 when the
 * caller is authenticated but lacks the permission an operation needs; 503 with Retry-After when the
 * identity provider's keys cannot be read (the token may be fine: the caller should retry, not log in
 * again).
 *
 * Mode `none` (local trial only; settings.ts refuses it unless the service listens on loopback) lets
 * every request through as the anonymous principal, who holds every permission, and is announced with
 * a warning at start-up, so it is never on by accident without a trace in the logs.
 */
export type AuthMode = 'jwt' | 'none';

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
  /**
   * Where `auth_identity_provider_unavailable_total` (requests answered 503 because the keys could not
   * be read), `auth_jwks_read_failures_total` (failed reads of the JWKS: the provider is unreachable,
   * the held keys still serve) and `auth_jwks_age_seconds` (age of the key set in use; it is read when
   * a request needs it, so it also grows while nobody calls) are registered; none when absent.
   */
  metrics?: ServiceMetrics;
}

/** `Bearer <token>` (RFC 6750 section 2.1), the scheme's name in any case. */
const BEARER = /^Bearer\s+(\S+)$/i;

function bearerToken(header: string | undefined): string | undefined {
  return header ? BEARER.exec(header)?.[1] : undefined;
}

/**
 * The principal of a request whose AuthenticatedUser check needs no work: auth.mode none, or a bearer
 * token the verifier has already accepted and remembers (TokenVerifier.verified). Undefined means
 * "not known yet", not "refused": the request then goes through `authenticatedUser`, which verifies
 * (or refuses) it. For a hot path that must not wait for a promise (the gateway's pass-through).
 */
export function alreadyAuthenticated(mode: AuthMode, verifier: TokenVerifier | undefined): (req: { readonly headers: IncomingHttpHeaders }) => Principal | undefined {
  if (mode === 'none') return () => ANONYMOUS_PRINCIPAL;
  const remembered = verifier?.verified;
  if (!remembered) return () => undefined;
  return (req) => {
    const token = bearerToken(req.headers.authorization);
    return token === undefined ? undefined : remembered(token);
  };
}

export function authenticatedUser(options: AuthenticatedUserOptions): RequestHandler {
  if (options.mode === 'none') {
    options.logger.warn('Inbound authentication is OFF (auth.mode=none): every caller is treated as an administrator. Allowed on loopback only; never use this in production.');
    return (_req, res, next) => {
      res.locals.principal = ANONYMOUS_PRINCIPAL;
      next();
    };
  }
  const verifier = options.verifier;
  if (!verifier) throw new Error('auth.mode jwt needs a token verifier');
  const realm = options.realm ?? 'nhsn';
  const unavailable = instrument(options.metrics, verifier);
  return async (req: Request, res: Response, next: NextFunction) => {
    const header = req.headers.authorization;
    const token = bearerToken(header);
    if (token === undefined) {
      return next(challenge(realm, header ? 'invalid_request' : undefined, header ? 'The Authorization header must be "Bearer <token>".' : 'A bearer token is required.'));
    }
    try {
      res.locals.principal = await verifier.verify(token);
      next();
    } catch (error) {
      if (error instanceof TokenRejectedError) return next(challenge(realm, 'invalid_token', error.message));
      if (error instanceof KeySetUnavailableError) {
        unavailable?.inc();
        return next(HttpProblem.serviceUnavailable('The bearer token cannot be checked right now: the identity provider\'s signing keys cannot be read. Retry later.', error.retryAfterSeconds));
      }
      next(error);
    }
  };
}

function instrument(metrics: ServiceMetrics | undefined, verifier: TokenVerifier) {
  if (!metrics) return undefined;
  const status = verifier.keySetStatus;
  if (status) {
    let reported = 0;
    metrics.counter({
      name: 'auth_jwks_read_failures_total',
      help: 'Failed reads of the identity provider\'s JWKS (tokens keep verifying with the last key set for auth.jwks-stale-max-age)',
      collect() {
        const failed = status().failedReads;
        if (failed > reported) this.inc(failed - reported);
        reported = failed;
      },
    });
    metrics.gauge({
      name: 'auth_jwks_age_seconds',
      help: 'Seconds since the identity provider\'s key set in use was read (grows while the provider is unreachable; 503s start at auth.jwks-stale-max-age)',
      collect() {
        const age = status().ageSeconds;
        if (age !== undefined) this.set(age);
      },
    });
  }
  return metrics.counter({
    name: 'auth_identity_provider_unavailable_total',
    help: 'Requests answered 503 because the identity provider\'s signing keys could not be read',
  });
}

/** 403 unless the authenticated caller holds `permission` (the anonymous principal of mode none holds every permission). */
export function requirePermission(permission: string): RequestHandler {
  return (_req, res, next) => {
    const principal = res.locals.principal;
    if (!principal) return next(challenge('nhsn', undefined, 'A bearer token is required.'));
    if (holdsPermission(principal, permission)) return next();
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
