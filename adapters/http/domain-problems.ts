/**
 * The one mapping of the shared failure vocabulary (`services/shared-kernel/src/domain/errors.ts`)
 * to Problem Details, used by the error handler of every service's app (errors.ts): a route or use
 * case throws a NotFoundError, the client gets the 404.
 *
 * | failure         | status | type slug / title (unless the error names a reason)                        |
 * |-----------------|--------|-----------------------------------------------------------------------------|
 * | `invalid-input` | 400    | `validation-failed` / Validation failed with field problems (`errors`), else `bad-request` / Bad request |
 * | `forbidden`     | 403    | `forbidden` / Forbidden                                                     |
 * | `not-found`     | 404    | `not-found` / Not found                                                     |
 * | `conflict`      | 409    | `conflict` / Conflict                                                       |
 * | `unprocessable` | 422    | `unprocessable-content` / Unprocessable content                             |
 * | `unavailable`   | 503    | `service-unavailable` / Service unavailable, `Retry-After` when the error says when |
 *
 * `detail` is the error's message; a reason gives its code as the slug and its title; the error's
 * facts become extension members (RFC 9457 §3.2).
 */
import type { DomainError, FailureKind } from '#shared-kernel/domain/errors.js';
import { HttpProblem } from './problem.js';

const PROBLEMS: Readonly<Record<FailureKind, (error: DomainError) => HttpProblem>> = {
  'invalid-input': (error) => HttpProblem.badRequest(error.message, error.problems.length > 0 ? error.problems : undefined),
  forbidden: (error) => HttpProblem.forbidden(error.message),
  'not-found': (error) => HttpProblem.notFound(error.message),
  conflict: (error) => HttpProblem.conflict(error.message),
  unprocessable: (error) => HttpProblem.unprocessable(error.message, error.problems.length > 0 ? error.problems : undefined),
  unavailable: (error) => HttpProblem.serviceUnavailable(error.message, error.retryAfterSeconds),
};

export function problemOf(error: DomainError): HttpProblem {
  const problem = PROBLEMS[error.failure](error);
  if (!error.reason && !error.facts) return problem;
  return new HttpProblem(problem.status, error.reason?.code ?? problem.slug, error.reason?.title ?? problem.title, problem.detail,
    problem.errors, problem.headers, error.facts);
}
