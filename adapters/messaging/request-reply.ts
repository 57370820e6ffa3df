/**
 * Queries (and reply-expecting commands such as the terminology checks) over core NATS
 * request-reply. Nothing is stored: a request with no responder fails at once, a slow one times out.
 *
 * - serveQuery: subscribes in queue group `<name>` (several instances share the load), validates
 *   the request against the contract (invalid → `{error:{code:'BAD_REQUEST', message, details}}`),
 *   runs the handler, validates the reply (a handler bug → INTERNAL, never an off-contract reply),
 *   and answers. A handler answers an error by returning an ErrorReply or throwing QueryError or
 *   an error of the shared failure vocabulary (services/shared-kernel: NotFoundError → NOT_FOUND,
 *   InvalidInputError → BAD_REQUEST with its field problems as details, ...); any other exception
 *   becomes `{error:{code:'INTERNAL'}}` (details only in the log).
 * - requestQuery: validates the request, sends it, validates and returns the reply (a typed error
 *   reply is returned, not thrown: NOT_FOUND is an answer). Throws QueryFailedError on timeout, no
 *   responders or an off-contract reply, and ContractViolationError for an invalid request.
 *
 * Tracing: requestQuery sends a `traceparent` (the caller's, or a child span of the current context);
 * serveQuery runs the handler inside a context with that trace (a new one when absent or invalid),
 * so the responder's log lines and onward calls carry the requester's traceId.
 */
import { DomainError, type FailureKind } from '#shared-kernel/domain/errors.js';
import { errors as natsErrors, type Msg, type NatsConnection, type Subscription } from '@nats-io/transport-node';
import { catalog as defaultCatalog, type Catalog, type MessageContract } from '#contracts/catalog.js';
import { isErrorReply, type ErrorCode, type ErrorReply, type MessagePayloads, type ReplyOf, type RequestReplyName } from '#contracts/types.js';
import { checkPayload, checkReply, validateAgainst } from '#contracts/validate.js';
import type { Logger } from '../observability/logger.js';
import { contextFromTraceparent, withTraceparent } from '../observability/propagation.js';
import { runWithContext } from '../observability/request-context.js';
import { ContractViolationError, QueryFailedError } from './errors.js';
import { headersToRecord, recordToHeaders, TRACEPARENT_HEADER } from './headers.js';

/** The shared failure vocabulary as typed error replies: a handler may simply throw it. */
const QUERY_ERROR_CODES: Readonly<Record<FailureKind, ErrorCode>> = {
  'invalid-input': 'BAD_REQUEST', unprocessable: 'BAD_REQUEST', forbidden: 'FORBIDDEN', 'not-found': 'NOT_FOUND', conflict: 'CONFLICT', unavailable: 'UNAVAILABLE',
};

/** Thrown by a query handler to answer with a typed error, e.g. `throw new QueryError('NOT_FOUND', 'Facility X not found')`. */
export class QueryError extends Error {
  override readonly name = 'QueryError';
  constructor(readonly code: ErrorCode, message: string, readonly details?: string[]) {
    super(message);
  }
}

export interface QueryContext {
  messageName: string;
  headers: Record<string, string>;
  traceparent: string | undefined;
}

export type QueryHandler<N extends RequestReplyName> = (request: MessagePayloads[N], ctx: QueryContext) => Promise<ReplyOf<N>> | ReplyOf<N>;

export interface ServeQueryOptions {
  logger: Logger;
  catalog?: Catalog;
  /** Queue group; default the message name. */
  queue?: string;
}

export interface QueryServer {
  readonly subject: string;
  /** Stops receiving requests and waits for the ones in progress to be answered. */
  stop(): Promise<void>;
}

const encoder = new TextEncoder();
const errorReply = (code: ErrorCode, message: string, details?: string[]): ErrorReply =>
  ({ error: details && details.length > 0 ? { code, message, details } : { code, message } });

function requestReplyContract(catalog: Catalog, name: string): MessageContract & { reply: NonNullable<MessageContract['reply']> } {
  const contract = catalog.byName(name);
  const { reply } = contract;
  if (contract.transport !== 'request-reply' || !reply) throw new Error(`${name} is not a request-reply message`);
  return { ...contract, reply };
}

export function serveQuery<N extends RequestReplyName>(nc: NatsConnection, name: N, handler: QueryHandler<N>, options: ServeQueryOptions): QueryServer {
  const catalog = options.catalog ?? defaultCatalog;
  const contract = requestReplyContract(catalog, name);
  const log = options.logger.child({ component: 'query-server', query: name });
  const sub: Subscription = nc.subscribe(contract.subject, { queue: options.queue ?? name });
  const inProgress = new Set<Promise<void>>();

  async function answer(msg: Msg): Promise<unknown> {
    let request: unknown;
    try {
      request = msg.json();
    } catch (err) {
      return errorReply('BAD_REQUEST', `${name} request is not valid JSON: ${err instanceof Error ? err.message : String(err)}`);
    }
    const check = checkPayload(name, request, catalog);
    if (!check.ok) return errorReply('BAD_REQUEST', `${name} request violates its contract`, check.errors.split('; '));
    const headers = headersToRecord(msg.headers);
    let reply: unknown;
    try {
      reply = await handler(check.value, { messageName: name, headers, traceparent: headers[TRACEPARENT_HEADER] });
    } catch (err) {
      if (err instanceof QueryError) return errorReply(err.code, err.message, err.details);
      if (err instanceof DomainError) return errorReply(QUERY_ERROR_CODES[err.failure], err.message, err.problems.map((p) => `${p.field}: ${p.message}`));
      log.error({ err }, 'query handler failed');
      return errorReply('INTERNAL', `${name} failed; see the responder's logs`);
    }
    const replyCheck = validateAgainst(contract.reply.schema, reply);
    if (!replyCheck.ok) {
      log.error({ errors: replyCheck.errors }, 'query handler produced a reply that violates the contract');
      return errorReply('INTERNAL', `${name} produced an invalid reply; see the responder's logs`);
    }
    return reply;
  }

  async function respond(msg: Msg): Promise<void> {
    if (!msg.reply) {
      log.warn({ subject: msg.subject }, 'message without reply subject ignored');
      return;
    }
    const headers = headersToRecord(msg.headers);
    const started = performance.now();
    const reply = await runWithContext(contextFromTraceparent(headers[TRACEPARENT_HEADER]), async () => {
      const answered = await answer(msg);
      log.debug({ outcome: isErrorReply(answered) ? answered.error.code : 'ok', durationMs: Math.round(performance.now() - started) }, 'query answered');
      return answered;
    });
    try {
      msg.respond(encoder.encode(JSON.stringify(reply)));
    } catch (err) {
      log.warn({ err }, 'could not send reply (requester gone or connection closed)');
    }
  }

  void (async () => {
    for await (const msg of sub) {
      // Each request runs on its own so one slow request does not hold up the others.
      const p = respond(msg).finally(() => inProgress.delete(p));
      inProgress.add(p);
    }
  })();

  let stopped: Promise<void> | undefined;
  return {
    subject: contract.subject,
    stop() {
      stopped ??= (async () => {
        if (!sub.isClosed()) await sub.drain().catch(() => sub.unsubscribe());
        await Promise.allSettled([...inProgress]);
      })();
      return stopped;
    },
  };
}

export interface RequestQueryOptions {
  /** Default 5 s. */
  timeoutMs?: number;
  headers?: Record<string, string>;
  catalog?: Catalog;
}

export async function requestQuery<N extends RequestReplyName>(
  nc: NatsConnection, name: N, request: MessagePayloads[N], options: RequestQueryOptions = {},
): Promise<ReplyOf<N>> {
  const contract = requestReplyContract(options.catalog ?? defaultCatalog, name);
  const check = validateAgainst(contract.payload.schema, request);
  if (!check.ok) throw new ContractViolationError(name, contract.subject, check.errors, 'request');
  const timeoutMs = options.timeoutMs ?? 5_000;
  let msg: Msg;
  try {
    const headers = recordToHeaders(withTraceparent(options.headers));
    msg = await nc.request(contract.subject, JSON.stringify(request), { timeout: timeoutMs, ...(headers ? { headers } : {}) });
  } catch (err) {
    if (isNoResponders(err)) throw new QueryFailedError(name, 'no-responders', `No service answers ${name} (${contract.subject})`, { cause: err });
    if (err instanceof natsErrors.TimeoutError || (err instanceof Error && err.cause instanceof natsErrors.TimeoutError)) {
      throw new QueryFailedError(name, 'timeout', `${name} got no reply within ${timeoutMs} ms`, { cause: err });
    }
    throw new QueryFailedError(name, 'connection', `${name} request failed: ${err instanceof Error ? err.message : String(err)}`, { cause: err });
  }
  let reply: unknown;
  try {
    reply = msg.json();
  } catch (err) {
    throw new QueryFailedError(name, 'invalid-reply', `${name} reply is not JSON`, { cause: err });
  }
  const replyCheck = checkReply(name, reply, options.catalog ?? defaultCatalog);
  if (!replyCheck.ok) throw new QueryFailedError(name, 'invalid-reply', `${name} reply violates its contract: ${replyCheck.errors}`);
  return replyCheck.value;
}

function isNoResponders(err: unknown): boolean {
  return err instanceof natsErrors.NoRespondersError
    || (err instanceof natsErrors.RequestError && err.isNoResponders());
}
