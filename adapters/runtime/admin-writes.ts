import type { RequestHandler } from 'express';
import { requirePermissionForWrites } from '../auth/index.js';

/**
 * The write guard of a service's `/api` routes: writes need the admin permission, except POSTs to
 * the service's processing routes (`$validate` …: they compute an answer and change nothing, so
 * any authenticated user may call them). A processing route is named by its exact path
 * (`/api/$validate`), compared whole, ignoring case and a trailing slash as express routing does:
 * a path that merely contains one (`/api/category/x$validate`, `/api/foo/$validate`) is a write
 * like any other.
 */
export function adminWritesExceptProcessing(permission: string, processingPaths: readonly string[]): RequestHandler {
  const guard = requirePermissionForWrites(permission);
  const exempt = new Set(processingPaths.map(normalizedPath));
  return (req, res, next) => (req.method === 'POST' && exempt.has(normalizedPath(req.baseUrl + req.path)) ? next() : guard(req, res, next));
}

/** Lower case without trailing slashes (a linear scan: the path is the client's). */
function normalizedPath(path: string): string {
  let end = path.length;
  while (end > 1 && path.charCodeAt(end - 1) === 0x2f) end--;
  return path.slice(0, end).toLowerCase();
}
