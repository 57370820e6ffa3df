import type { ErrorRequestHandler } from 'express';
import { HttpProblem } from '../../../../../adapters/http/index.js';
import { ConflictError, NotFoundError, ValidationError } from '../../domain/errors.js';

/**
 * Translates domain failures into Problem Details before the app's error handler sees them:
 * ValidationError → 400 with one field error per problem, NotFoundError → 404,
 * ConflictError (e.g. a duplicate FacilityId caught by the unique index) → 409.
 */
export const domainErrorTranslator: ErrorRequestHandler = (error, _req, _res, next) => {
  if (error instanceof ValidationError) {
    next(HttpProblem.badRequest(error.message, error.problems.map((problem) => ({ field: problem.field, message: problem.message }))));
  } else if (error instanceof NotFoundError) {
    next(HttpProblem.notFound(error.message));
  } else if (error instanceof ConflictError) {
    next(HttpProblem.conflict(error.message));
  } else {
    next(error);
  }
};
