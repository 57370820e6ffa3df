import type { ErrorRequestHandler } from 'express';
import { HttpProblem } from '../../../../../adapters/http/index.js';
import { ConflictError, InvalidInputError, NotFoundError, ValidationDeadlineError } from '../../application/errors.js';
import { ValidatorBusyError } from '../../domain/ports/resource-validator.js';

/** Router-level error middleware: application errors become Problem Details; anything else passes on. */
export function applicationErrors(): ErrorRequestHandler {
  return (error: unknown, _req, _res, next) => {
    if (error instanceof NotFoundError) next(HttpProblem.notFound(error.message));
    else if (error instanceof InvalidInputError) next(HttpProblem.badRequest(error.message, error.problems.length > 0 ? error.problems : undefined));
    else if (error instanceof ConflictError) next(HttpProblem.conflict(error.message));
    // The content made the validation too costly: the client's to change, and a retry would fail the same way.
    else if (error instanceof ValidationDeadlineError) next(new HttpProblem(422, 'validation-timeout', 'Validation did not finish', error.message));
    else if (error instanceof ValidatorBusyError) next(HttpProblem.serviceUnavailable('Every validation worker is busy; try again later', error.retryAfterSeconds));
    else next(error);
  };
}

/** `true`/`false` (any case) or absent; anything else is a 400 naming the parameter. */
export function booleanQuery(query: Readonly<Record<string, unknown>>, name: string): boolean {
  const value = query[name];
  if (value === undefined || value === '') return false;
  if (typeof value === 'string') {
    const lower = value.toLowerCase();
    if (lower === 'true') return true;
    if (lower === 'false') return false;
  }
  throw HttpProblem.badRequest(`Query parameter ${name} must be true or false`, [{ field: name, message: 'must be true or false' }]);
}
