/**
 * The report service of the flow's unit tests: submissions held in memory behind the
 * SubmissionSource port, recording every request. Like the real one it answers a missing
 * submission as not found, and a report service that is down or does not answer in time as
 * SubmissionUnavailableError (submission-source.contract.spec.ts holds it to the same cases as the
 * HTTP adapter).
 */
import {
  SubmissionUnavailableError, type FetchSubmissionOptions, type SubmissionFetch, type SubmissionKey, type SubmissionSource,
} from '#validation/domain/flow/index.js';

const keyOf = (key: SubmissionKey) => `${key.facilityId}|${key.reportId}|${key.patientId}`;

export class InMemorySubmissionSource implements SubmissionSource {
  readonly requests: Array<{ key: SubmissionKey; options: FetchSubmissionOptions }> = [];
  private readonly bodies = new Map<string, Uint8Array>();
  private readonly failures = new Map<string, number>();
  private readonly stalled = new Set<string>();
  private anyBody: Uint8Array | undefined;

  /** `timeoutMs`: how long a stalled submission takes to time out. */
  constructor(private readonly timeoutMs = 1_000) {}

  /** The report service's answer for this submission: bytes as given, text or a value as its UTF-8 JSON. */
  put(key: SubmissionKey, body: unknown): this {
    this.bodies.set(keyOf(key), bytesOf(body));
    return this;
  }

  /** The body of every submission not put on its own. */
  serving(body: unknown): this {
    this.anyBody = bytesOf(body);
    return this;
  }

  /** The next `times` requests for this submission find the report service down. */
  failFirst(key: SubmissionKey, times: number): void {
    this.failures.set(keyOf(key), times);
  }

  /** Requests for this submission get no answer until the timeout. */
  stall(key: SubmissionKey): void {
    this.stalled.add(keyOf(key));
  }

  async fetch(key: SubmissionKey, options: FetchSubmissionOptions = {}): Promise<SubmissionFetch> {
    this.requests.push({ key, options });
    const id = keyOf(key);
    if (this.stalled.has(id)) {
      await new Promise((resolve) => setTimeout(resolve, this.timeoutMs));
      throw new SubmissionUnavailableError('The report service timed out after 1 attempt(s)');
    }
    const failures = this.failures.get(id) ?? 0;
    if (failures > 0) {
      this.failures.set(id, failures - 1);
      throw new SubmissionUnavailableError('The report service answered 503 after 1 attempt(s)');
    }
    const body = this.bodies.get(id) ?? this.anyBody;
    if (body === undefined) {
      return { kind: 'not-found', detail: `The report service has no submission for patient ${key.patientId} of report ${key.reportId} (facility ${key.facilityId}): 404` };
    }
    return { kind: 'found', body };
  }
}

/** The bytes the report service would answer (as the HTTP adapter hands them on: bytes, never a parsed value). */
function bytesOf(body: unknown): Uint8Array {
  if (body instanceof Uint8Array) return body;
  return new TextEncoder().encode(typeof body === 'string' ? body : JSON.stringify(body));
}
