import type { RequestHandler } from 'express';
import type { OpenApiBuilder } from './openapi.js';

/**
 * Routes this project renamed to follow the conventions (plural nouns, lower case, hyphens), with
 * their old paths kept for one release as deprecated aliases: an operator's scripts keep working,
 * and each answer says it is deprecated and what replaces it.
 *
 * `from` and `to` are express-style paths with the same `:params` (`/api/job/:jobId` →
 * `/api/jobs/:jobId`). A request on `from` is answered by the route of `to` (the request's path is
 * rewritten before the routes see it), with
 * - `Deprecation: @<ROUTES_DEPRECATED_AT as Unix time>` (RFC 9745), and
 * - `Link: <successor>; rel="successor-version"` (RFC 8288): the new path as a reference RELATIVE
 *   to the old one (`../jobs/<id>`), so that it resolves right at the service and through the
 *   gateway, whose paths carry the component (`/api/validation/job/<id>` → `/api/validation/jobs/<id>`).
 * The OpenAPI document lists the old paths too, as copies of the new ones marked `deprecated`.
 */
export interface RenamedRoute {
  readonly from: string;
  readonly to: string;
}

/** When the routes were renamed: their old paths answer until the release after it. */
export const ROUTES_DEPRECATED_AT = new Date('2026-12-01T00:00:00Z');

/** The `Deprecation` header value of the deprecated paths (RFC 9745: `@` and a Unix time). */
export const DEPRECATION_HEADER = `@${Math.floor(ROUTES_DEPRECATED_AT.getTime() / 1000)}`;

/**
 * The middleware answering the old paths with the new routes; mount it before those routes (on the
 * same router or the app). Also registers the old paths in `openApi`, deprecated.
 */
export function renamedRoutes(openApi: OpenApiBuilder, renamed: readonly RenamedRoute[]): RequestHandler {
  const patterns = renamed.map(({ from, to }) => ({ from: segmentsOf(from), to: segmentsOf(to) }));
  for (const { from, to } of renamed) openApi.registerDeprecatedAlias(from, to);
  return (req, res, next) => {
    const queryStart = req.url.indexOf('?');
    const path = queryStart === -1 ? req.url : req.url.slice(0, queryStart);
    const segments = segmentsOf(path);
    for (const pattern of patterns) {
      const params = matchSegments(pattern.from, segments);
      if (!params) continue;
      // A parameter of `to` that `from` lacks (a mistake in the renamed table) stays as written.
      const target = pattern.to.map((segment) => (segment.startsWith(':') ? params.get(segment) ?? segment : segment));
      res.setHeader('Deprecation', DEPRECATION_HEADER);
      // From /api/a/b/c the base directory is /api/a/b/: climb to /api/ (or the gateway's /api/<component>/).
      const climb = '../'.repeat(Math.max(0, segments.length - 2));
      res.setHeader('Link', `<${climb}${target.slice(1).join('/')}>; rel="successor-version"`);
      req.url = `/${target.join('/')}${queryStart === -1 ? '' : req.url.slice(queryStart)}`;
      break;
    }
    next();
  };
}

/** `/api/job/:jobId` → ['api', 'job', ':jobId']; a request path's segments stay as sent (encoded). */
function segmentsOf(path: string): string[] {
  return path.split('/').filter((segment) => segment !== '');
}

/**
 * The `:param` values when `segments` match `pattern` segment by segment (literal segments
 * case-insensitively, as express routes; a parameter takes any one non-empty segment), else undefined.
 */
function matchSegments(pattern: readonly string[], segments: readonly string[]): Map<string, string> | undefined {
  if (pattern.length !== segments.length) return undefined;
  const params = new Map<string, string>();
  for (const [i, expected] of pattern.entries()) {
    const actual = segments[i];
    if (actual === undefined) return undefined; // not reached: the lengths are equal
    if (expected.startsWith(':')) params.set(expected, actual);
    else if (expected.toLowerCase() !== actual.toLowerCase()) return undefined;
  }
  return params;
}
