/**
 * A call to another service or external system failed for good: after the last attempt it still
 * answered 5xx/429, timed out, or could not be reached. The standard HTTP app answers it with 502.
 */
export class UpstreamError extends Error {
  override readonly name = 'UpstreamError';

  constructor(
    message: string,
    /** HTTP method and URL of the call (without query string), for the log. */
    readonly method: string,
    readonly url: string,
    /** Status of the last response; undefined when no response arrived (network error, timeout). */
    readonly status: number | undefined,
    readonly attempts: number,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }

  /** True when the last attempt was aborted by the per-attempt timeout. */
  get timedOut(): boolean {
    return this.cause instanceof Error && this.cause.name === 'TimeoutError';
  }
}
