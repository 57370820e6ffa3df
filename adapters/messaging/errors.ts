/**
 * Errors of the messaging adapter. Handlers signal what should happen to a message by the error
 * they throw (see consumer-runner.ts and failure-kind.ts):
 * - PermanentError: the message itself is wrong (data error) → dead-letter at once, retrying cannot help;
 * - UnavailableError (or an error the classification recognises as a dependency being unreachable:
 *   a PostgreSQL connection failure, a NATS timeout, a refused connection) → keep the message and
 *   retry it in place, without using up its deliveries, for up to the outage horizon;
 * - RetryableError (or any other error) → redeliver later with backoff, dead-letter after the
 *   maximum deliveries.
 */

import { UnavailableError as SharedUnavailableError } from '#shared-kernel/domain/errors.js';
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

/**
 * A dependency the handler needs (database, another service, the broker) is unreachable or failing,
 * and the message is fine: it will succeed once the dependency is back. Adapters raise it (or it is
 * recognised from the dependency's own error, see failure-kind.ts); the consumer runner holds the
 * message and retries it without counting a delivery. It is the shared vocabulary's UnavailableError
 * (services/shared-kernel), which the runner recognises too, e.g. the validation flow's
 * SubmissionUnavailableError when the report service does not answer.
 */
export class UnavailableError extends SharedUnavailableError {
  override readonly name = 'UnavailableError';
  constructor(override readonly dependency: string, message: string, options?: ErrorOptions) {
    super(message, { ...options, dependency });
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
