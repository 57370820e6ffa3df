/**
 * Port to the FHIR validation engine, as the validation API needs it. The engine (domain/engine)
 * implements it; the composition root plugs it in.
 */
import type { ValidationOutcome } from '../engine/outcome/issue.js';
import { UnavailableError } from '#shared-kernel/domain/errors.js';
import type { ValidationScope } from '../flow/validation-scope.js';
import type { ValidationSettings } from '../engine/validator-options.js';

export interface ValidateOptions {
  /** Extra profiles to validate against, besides those in meta.profile. */
  readonly profiles?: readonly string[];
  /** The caller's Authorization header, passed on to remote terminology. */
  readonly authorization?: string;
  /** The HL7 validator's settings for this validation (over the scope's, when a scope is given too). */
  readonly settings?: ValidationSettings;
  /** The validation configuration that applies (its packages, resources and settings); absent = all artifacts. */
  readonly scope?: ValidationScope;
  /** A synchronous request's deadline (HTTP): past it the validation is stopped, queued or running, and the resource gets the timeout issue. */
  readonly deadline?: RequestDeadline;
}

/**
 * When a synchronous request's work must be done: `atMs` on the clock of `performance.timeOrigin +
 * performance.now()` (the same in every thread), and the whole request's budget it was derived from
 * (what the timeout issue names). Unlike the per-resource deadline it counts from the request's
 * arrival, so reading the body and waiting for a worker use it up too.
 */
export interface RequestDeadline {
  readonly atMs: number;
  readonly budgetMs: number;
}

/** The clock of RequestDeadline.atMs. */
export function requestClockMs(): number {
  return performance.timeOrigin + performance.now();
}

/** What the validator answers for a resource: the engine's outcome itself (one outcome type from the engine to the store). */
export type { ValidationOutcome } from '../engine/outcome/issue.js';

/**
 * A resource to validate: parsed FHIR JSON, FHIR JSON text or FHIR XML text. Text is read by the
 * engine where it validates (a worker), with its own reader: line and column on every issue, and
 * its depth and size limits, which give a fatal issue where a parsed object too deep to copy
 * between threads would have thrown.
 */
export type ResourceInput = Record<string, unknown> | FhirJsonText | FhirXmlText;

/** FHIR XML as received (`application/fhir+xml`). */
export interface FhirXmlText {
  readonly xml: string;
}

/**
 * FHIR JSON as received (`application/fhir+json`): its text, or its bytes (UTF-8; copied to the worker
 * and decoded there, so the thread serving HTTP neither decodes nor parses a large body). Parsed
 * resources always have resourceType; this never does.
 */
export interface FhirJsonText {
  readonly json: string | Uint8Array;
  /** The root's resourceType when the caller already knows it (metrics labels); not read by the engine. */
  readonly rootType?: string;
  /**
   * False: the text is not what the client sent (a resource re-serialized out of a `Parameters` body), so
   * its positions mean nothing to the client: it is read without locations. Default true.
   */
  readonly located?: boolean;
}

export function isFhirXmlText(input: unknown): input is FhirXmlText {
  return typeof input === 'object' && input !== null && 'xml' in input && typeof input.xml === 'string' && !('resourceType' in input);
}

export function isFhirJsonText(input: unknown): input is FhirJsonText {
  if (typeof input !== 'object' || input === null || 'resourceType' in input) return false;
  const json = 'json' in input ? input.json : undefined;
  return typeof json === 'string' || json instanceof Uint8Array;
}

/** What the engine's Validator is given for an input (the text to read, or the parsed value), and in which format. */
export function engineInput(input: unknown): { readonly value: unknown; readonly format?: 'json' | 'xml' } {
  if (isFhirXmlText(input)) return { value: input.xml, format: 'xml' };
  if (isFhirJsonText(input)) {
    const text = typeof input.json === 'string' ? input.json : new TextDecoder().decode(input.json);
    if (input.located !== false) return { value: text, format: 'json' };
    const value: unknown = JSON.parse(text);
    return { value };
  }
  return { value: input };
}

export interface ResourceValidator {
  /**
   * Validates one resource or a Bundle; problems of the resource are issues, never exceptions (a
   * validation that passes its deadline is one fatal issue, see domain/engine/outcome/deadline.ts).
   * Throws ValidatorBusyError when there is no room for it now.
   */
  validate(resource: ResourceInput, options?: ValidateOptions): Promise<ValidationOutcome>;
}

/**
 * The validator has no room for more work right now (every worker is busy and its queue is at its
 * limit): nothing is wrong with the resource; the caller may try again after `retryAfterSeconds`.
 */
export class ValidatorBusyError extends UnavailableError {
  override readonly name = 'ValidatorBusyError';
  declare readonly retryAfterSeconds: number;
  constructor(retryAfterSeconds: number, options?: ErrorOptions) {
    super('Every validation worker is busy; try again later', { ...options, dependency: 'validation workers', retryAfterSeconds });
  }
}

/**
 * The engine as the flow uses it, and the only way the flow validates: the whole submission from
 * the bytes the report service answered, read (submissionFromBytes), each entry validated ON ITS
 * OWN, its issues rebased into the Bundle and written as text once where they were found (the
 * engine host: in a worker, worker-pool/submission-task.ts), the entries' texts joined into the
 * aggregated OperationOutcome's text. Nothing parsed crosses to the flow's thread.
 */
export interface ScopedResourceValidator {
  validateSubmission(bytes: Uint8Array, options?: { scope?: ValidationScope }): Promise<SubmissionValidation>;
}

/** A submission validated from its bytes: the aggregated outcome as the JSON text that is stored, or why the bytes are no submission. */
export type SubmissionValidation =
  | { readonly kind: 'validated'; readonly resourceCount: number; readonly outcomeJson: string }
  | { readonly kind: 'unreadable'; readonly message: string };
