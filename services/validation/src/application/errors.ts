/**
 * Application errors the HTTP adapter turns into Problem Details: NotFound → 404, InvalidInput → 400
 * (with field problems), Conflict → 409, ValidationDeadline → 422.
 */
import type { FieldProblem } from '../domain/categorization/category.js';

export class NotFoundError extends Error {
  override readonly name = 'NotFoundError';
}

export class InvalidInputError extends Error {
  override readonly name = 'InvalidInputError';
  constructor(message: string, readonly problems: readonly FieldProblem[] = []) {
    super(message);
  }
}

export class ConflictError extends Error {
  override readonly name = 'ConflictError';
}

/** A resource given to $validate could not be validated within its deadline (the text says which budget). */
export class ValidationDeadlineError extends Error {
  override readonly name = 'ValidationDeadlineError';
}
