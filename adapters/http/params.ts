import type { Router } from 'express';
import { HttpProblem } from './problem.js';
import { isUuid } from './rest.js';

/**
 * Path parameters that name stored ids, by their column's length: a longer value cannot name
 * anything stored, and writing one would fail in the database (a 500). Every route of `router` with
 * such a parameter refuses a longer value with 400 naming it, before its handler runs.
 */
export function limitParamLengths(router: Router, maxLengths: Readonly<Record<string, number>>): void {
  for (const [name, max] of Object.entries(maxLengths)) {
    router.param(name, (_req, _res, next, value: unknown) => {
      if (typeof value === 'string' && value.length > max) {
        next(HttpProblem.badRequest(`Path parameter ${name} must be at most ${max} characters; got ${value.length}`,
          [{ field: name, message: `must be at most ${max} characters` }]));
      } else {
        next();
      }
    });
  }
}

/**
 * Path parameters that hold the UUID id of a resource: every route of `router` with such a parameter
 * (GET and DELETE as well as PUT) refuses a value that is not a UUID with 400 `Invalid Id format`,
 * the specification's message, before its handler runs.
 */
export function requireUuidParams(router: Router, names: readonly string[]): void {
  for (const name of names) {
    router.param(name, (_req, _res, next, value: unknown) => {
      next(typeof value === 'string' && isUuid(value) ? undefined
        : HttpProblem.badRequest('Invalid Id format', [{ field: name, message: 'must be a UUID' }]));
    });
  }
}
