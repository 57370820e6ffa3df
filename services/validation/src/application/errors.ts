/**
 * The validation service's own member of the shared failure vocabulary
 * (services/shared-kernel/src/domain/errors.ts: NotFoundError, InvalidInputError, ... which the
 * use cases throw directly; HTTP maps them once, adapters/http/domain-problems.ts).
 */
import { UnprocessableError } from '#shared-kernel/domain/errors.js';

/**
 * A resource given to $validate could not be validated within its deadline (the text says which
 * budget): mostly the content made the validation too costly, so a retry would fail the same way (422
 * `validation-timeout`); with a request budget, a long wait for busy workers can also spend it.
 */
export class ValidationDeadlineError extends UnprocessableError {
  override readonly name = 'ValidationDeadlineError';
  constructor(message: string) {
    super(message, { reason: { code: 'validation-timeout', title: 'Validation did not finish' } });
  }
}
