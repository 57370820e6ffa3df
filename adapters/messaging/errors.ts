/**
 * Errors of the messaging adapter: transport errors only (a payload its contract refuses, a subject
 * no contract has, a query without an answer) and what a handler tells the consumer runner to do with
 * its message (see consumer-runner.ts and failure-kind.ts):
 * - PermanentError: the message itself is wrong (data error) → dead-letter at once, retrying cannot help;
 * - the shared vocabulary's UnavailableError (`#shared-kernel/domain/errors.js`, with the `dependency`
 *   that is down), or an error the classification recognises as a dependency being unreachable (a
 *   PostgreSQL connection failure, a NATS timeout, a refused connection) → keep the message and retry
 *   it in place, without using up its deliveries, for up to the outage horizon;
 * - RetryableError (or any other error) → redeliver later with backoff, dead-letter after the
 *   maximum deliveries.
 */

import { UnpublishableMessageError } from './publisher-port.js';

/** A payload does not satisfy its contract; nothing was sent or enqueued (publisher, outbox, request-reply). */
export class ContractViolationError extends UnpublishableMessageError {
  override readonly name = 'ContractViolationError';
  constructor(readonly messageName: string, readonly subject: string, readonly schemaErrors: string, what = 'payload') {
    super(`${messageName} ${what} violates its contract (${subject}): ${schemaErrors}`);
  }
}

/** No contract in the catalog has this subject (or it is not a JetStream message): publishing to it would bypass validation. */
export class UnknownSubjectError extends UnpublishableMessageError {
  override readonly name = 'UnknownSubjectError';
  constructor(readonly subject: string, detail = 'add it to contracts/catalog.ts') {
    super(`No message contract for subject "${subject}"; ${detail}`);
  }
}

/** Temporary failure that is not a dependency outage (a lock is held, a race lost): try again after the backoff delay, within the maximum deliveries. */
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
