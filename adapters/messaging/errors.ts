/**
 * Errors of the messaging adapter. Handlers signal what should happen to a message by the error
 * they throw (see consumer-runner.ts): RetryableError (or any other error) → redeliver later with
 * backoff; PermanentError → dead-letter at once, retrying cannot help.
 */

/** A payload does not satisfy its contract; nothing was sent (publisher) or the message was dead-lettered (consumer). */
export class ContractViolationError extends Error {
  override readonly name = 'ContractViolationError';
  constructor(readonly messageName: string, readonly subject: string, readonly schemaErrors: string, what = 'payload') {
    super(`${messageName} ${what} violates its contract (${subject}): ${schemaErrors}`);
  }
}

/** No contract in the catalog has this subject: publishing to it would bypass validation. */
export class UnknownSubjectError extends Error {
  override readonly name = 'UnknownSubjectError';
  constructor(readonly subject: string) {
    super(`No message contract for subject "${subject}"; add it to contracts/catalog.ts`);
  }
}

/** Temporary failure (a dependency is down, a lock is held): try again after the backoff delay. */
export class RetryableError extends Error {
  override readonly name = 'RetryableError';
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
  }
}

/** The message can never be processed (e.g. it refers to something that does not exist): dead-letter it now. */
export class PermanentError extends Error {
  override readonly name = 'PermanentError';
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
  }
}

/** A request-reply call got no answer in time, or nobody serves the subject. */
export class QueryFailedError extends Error {
  override readonly name = 'QueryFailedError';
  constructor(readonly messageName: string, readonly reason: 'timeout' | 'no-responders' | 'invalid-reply' | 'connection', message: string, options?: ErrorOptions) {
    super(message, options);
  }
}
