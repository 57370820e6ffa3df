/**
 * Port to the FHIR validation engine, as the validation API needs it. The engine (domain/engine)
 * implements it; the composition root plugs it in.
 */
import type { OperationOutcomeLike } from '../results/validation-issue.js';

export interface ValidateOptions {
  /** Extra profiles to validate against, besides those in meta.profile. */
  readonly profiles?: readonly string[];
  /** The caller's Authorization header, passed on to remote terminology. */
  readonly authorization?: string;
}

export interface OperationOutcome extends OperationOutcomeLike {
  resourceType: 'OperationOutcome';
  issue: Record<string, unknown>[];
}

export interface ResourceValidator {
  /**
   * Validates one resource or a Bundle; problems of the resource are issues, never exceptions (a
   * validation that passes its deadline is one fatal issue, see domain/engine/outcome/deadline.ts).
   * Throws ValidatorBusyError when there is no room for it now.
   */
  validate(resource: Record<string, unknown>, options?: ValidateOptions): Promise<OperationOutcome>;
}

/**
 * The validator has no room for more work right now (every worker is busy and its queue is at its
 * limit): nothing is wrong with the resource; the caller may try again after `retryAfterSeconds`.
 */
export class ValidatorBusyError extends Error {
  override readonly name = 'ValidatorBusyError';
  constructor(message: string, readonly retryAfterSeconds: number) {
    super(message);
  }
}
