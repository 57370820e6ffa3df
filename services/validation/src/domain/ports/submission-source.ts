import { UnavailableError } from '#shared-kernel/domain/errors.js';

/**
 * The validation flow's view of a patient submission and of the report service that holds it
 * (specification: "retrieve the patient's MeasureReport from the report service").
 */

/** Which submission: the keys of ReadyForValidation. */
export interface SubmissionKey {
  readonly facilityId: string;
  readonly reportId: string;
  readonly patientId: string;
}

export type FhirResourceJson = Record<string, unknown> & { resourceType: string };

export interface SubmissionBundle {
  readonly resourceType: 'Bundle';
  readonly type?: string;
  readonly entry: { fullUrl?: string; resource: FhirResourceJson }[];
  readonly [key: string]: unknown;
}

/**
 * What the report service said. `found` carries the body's bytes as received (MeasureReport, Bundle
 * or the original PatientSubmissionModel, or a Bundle of the lines of an NDJSON payload): they are
 * read where they are validated (a worker, see submissionFromBytes), never on the flow's thread.
 * `not-found` is definite (404): retrying cannot help.
 */
export type SubmissionFetch =
  | { readonly kind: 'found'; readonly body: Uint8Array }
  | { readonly kind: 'not-found'; readonly detail: string };

export interface FetchSubmissionOptions {
  /** Caller's Authorization header to pass on (else the adapter's service token). */
  readonly authorization?: string;
  /**
   * ReadyForValidation's payloadUri: where the report service says the submission is. The adapter
   * reads it only when it lies within the report service, and falls back to its submission route.
   */
  readonly payloadUri?: string;
  readonly signal?: AbortSignal;
}

/** Port: the report service. */
export interface SubmissionSource {
  fetch(key: SubmissionKey, options?: FetchSubmissionOptions): Promise<SubmissionFetch>;
}

/** The report service is down, timed out or answered 5xx/429: try again later. */
export class SubmissionUnavailableError extends UnavailableError {
  override readonly name = 'SubmissionUnavailableError';
  constructor(message: string, options?: ErrorOptions) {
    super(message, { ...options, dependency: 'report service' });
  }
}
