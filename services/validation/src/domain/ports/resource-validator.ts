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
  /** Validates one resource or a Bundle; problems of the resource are issues, never exceptions. */
  validate(resource: Record<string, unknown>, options?: ValidateOptions): Promise<OperationOutcome>;
}
