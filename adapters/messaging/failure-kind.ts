/**
 * What kind of failure a handler's error is, which decides what the consumer runner does with the
 * message (consumer-runner.ts):
 *
 * | kind          | examples                                                  | the runner                          |
 * |---------------|-----------------------------------------------------------|-------------------------------------|
 * | `data`        | PermanentError (the message can never be processed)       | dead-letters it at once             |
 * | `unavailable` | UnavailableError; PostgreSQL unreachable, shutting down   | keeps it and retries in place, for  |
 * |               | or failing over; a refused/reset connection; NATS timeout | up to the outage horizon, without   |
 * |               | or no responders                                          | counting a delivery                 |
 * | `unknown`     | anything else (a bug, an unexpected answer)               | redelivers with backoff, dead-      |
 * |               |                                                           | letters after the maximum deliveries|
 *
 * Code that knows a dependency failed, adapters and domain alike, raises the shared vocabulary's
 * UnavailableError (services/shared-kernel, naming the `dependency`). The errors of the
 * database driver and the network are recognised here by their codes, because they reach the
 * handler as they are: PostgreSQL SQLSTATE class 08 (connection exception), 57P01/57P02/57P03
 * (administrator or crash shutdown, cannot connect now: a restart or failover), 53300 (too many
 * connections) and 25006 (read-only transaction: connected to a standby during a failover); Node's
 * socket errors (ECONNREFUSED, ECONNRESET, ...); the pg driver's connection losses, which carry no
 * code, by their message; NATS's connection, timeout and no-responders errors by name. The cause
 * chain is searched, so a wrapped error is classified by what it wraps.
 */
import { UnavailableError } from '#shared-kernel/domain/errors.js';
import { PermanentError } from './errors.js';

export type FailureKind = 'data' | 'unavailable' | 'unknown';

const UNAVAILABLE_SQLSTATES = new Set(['57P01', '57P02', '57P03', '53300', '25006']);

const NETWORK_CODES = new Set([
  'ECONNREFUSED', 'ECONNRESET', 'ECONNABORTED', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH', 'ENETUNREACH', 'ENETDOWN',
  'ENOTFOUND', 'EAI_AGAIN', 'UND_ERR_SOCKET', 'UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_HEADERS_TIMEOUT',
]);

/** The pg driver's connection losses (no code): the server went away mid-query, or no connection could be made in time. */
const PG_CONNECTION_LOST = /^(Connection terminated( unexpectedly| due to connection timeout)?|timeout exceeded when trying to connect|Client has encountered a connection error and is not queryable)$/;

/** @nats-io error names of a broker that cannot be reached or does not answer (nats-core errors.ts). */
const NATS_UNAVAILABLE = new Set(['ConnectionError', 'ClosedConnectionError', 'DrainingConnectionError', 'TimeoutError', 'NoResponders']);

const MAX_CAUSE_DEPTH = 8;

/** Whether this one error (not its causes) says a dependency is unreachable. */
function isUnavailable(error: object): boolean {
  if (error instanceof UnavailableError) return true;
  const code = 'code' in error && typeof error.code === 'string' ? error.code : undefined;
  if (code && (code.startsWith('08') && code.length === 5 || UNAVAILABLE_SQLSTATES.has(code) || NETWORK_CODES.has(code))) return true;
  if ('message' in error && typeof error.message === 'string' && PG_CONNECTION_LOST.test(error.message)) return true;
  return 'name' in error && typeof error.name === 'string' && NATS_UNAVAILABLE.has(error.name);
}

export function classifyFailure(error: unknown): FailureKind {
  if (error instanceof PermanentError) return 'data';
  let current: unknown = error;
  for (let depth = 0; depth < MAX_CAUSE_DEPTH && typeof current === 'object' && current !== null; depth++) {
    if (isUnavailable(current)) return 'unavailable';
    current = 'cause' in current ? current.cause : undefined;
  }
  return 'unknown';
}
