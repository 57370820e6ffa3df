import type { EntityManager } from '@mikro-orm/postgresql';
import { sql } from 'kysely';
import { contractOfSubject } from '#contracts/catalog.js';
import { validateAgainst } from '#contracts/validate.js';
import { ContractViolationError, UnknownSubjectError } from '../../messaging/errors.js';
import { currentContext } from '../../observability/request-context.js';
import { hasTraceparent, outgoingTraceparent, TRACEPARENT } from '../../observability/propagation.js';
import { OUTBOX_TABLE, type OutboxDatabase } from './outbox-table.js';
import { uuidV7 } from './uuid-v7.js';

export interface OutboxMessageInput {
  /** A JetStream message's subject from the catalog (contracts/catalog.ts; any subject root). */
  subject: string;
  /** Stored as jsonb and published as JSON; must satisfy the subject's contract. */
  payload: unknown;
  /**
   * Nats-Msg-Id. Defaults to the row id. Give a deterministic id (e.g. `<facility>-<frequency>-<period>`)
   * when the same business event may be enqueued twice and JetStream should keep only one.
   */
  msgId?: string;
  /**
   * Published with the message. Without a `traceparent` here, the current context's trace (the HTTP
   * request or message being handled) is recorded, so the relay publishes the event in that trace.
   */
  headers?: Record<string, string>;
}

export interface EnqueuedOutboxMessage {
  id: string;
  msgId: string;
}

const SUBJECT = /^[^\s*>]+$/;

/** An outbox row ready to insert: checked, with the trace context recorded, ids chosen. */
export interface PendingOutboxRow {
  readonly id: string;
  readonly msgId: string;
  readonly subject: string;
  /** JSON text of the payload (jsonb column). */
  readonly payloadJson: string;
  /** JSON text of the headers (jsonb column). */
  readonly headersJson: string;
}

/**
 * Checks a payload, as JSON text, against the contract of its subject (any subject root). Throws
 * UnknownSubjectError when no JetStream contract has the subject, ContractViolationError (naming the
 * message and the schema errors) when the payload fails it. (The tenant scheduler's bulk insert of
 * ReportScheduled rows does not come through here on purpose: one facility's bad row must not stop
 * every facility's firing; the relay parks such a row instead.)
 */
function checkOutboxPayload(subject: string, payloadJson: string): void {
  const contract = contractOfSubject(subject);
  if (!contract || contract.transport !== 'jetstream') throw new UnknownSubjectError(subject, 'the outbox only carries the JetStream messages of contracts/catalog.ts');
  // Checked as it will be stored and published (a Date becomes a string, undefined fields vanish).
  const check = validateAgainst(contract.payload.schema, JSON.parse(payloadJson));
  if (!check.ok) throw new ContractViolationError(contract.name, subject, check.errors);
}

/**
 * Checks a message and builds its outbox row, for a statement that inserts it together with the
 * change it announces (see enqueueOutboxMessage for the usual way). Throws on a bad message, so
 * the caller's transaction rolls back instead of committing an event that could never be
 * published: UnknownSubjectError when no JetStream contract has the subject, ContractViolationError
 * (naming the message and the schema errors) when the payload, as it will be stored, fails it.
 */
export function pendingOutboxRow(input: OutboxMessageInput): PendingOutboxRow {
  if (typeof input.subject !== 'string' || !SUBJECT.test(input.subject)) {
    throw new Error(`enqueueOutboxMessage: invalid subject ${JSON.stringify(input.subject)} (no spaces or wildcards)`);
  }
  const payloadJson = JSON.stringify(input.payload);
  if (payloadJson === undefined) throw new Error('enqueueOutboxMessage: payload is not JSON-serialisable');
  if (input.msgId !== undefined && (typeof input.msgId !== 'string' || input.msgId.trim() === '')) {
    throw new Error('enqueueOutboxMessage: msgId must be a non-empty string when given');
  }
  const headers = { ...input.headers };
  for (const [name, value] of Object.entries(headers)) {
    if (typeof value !== 'string') throw new Error(`enqueueOutboxMessage: header ${name} must be a string`);
  }
  checkOutboxPayload(input.subject, payloadJson);
  // Outside any context (scheduler, start-up) none is stored: the relay's publisher then starts a trace.
  const context = currentContext();
  if (context && !hasTraceparent(headers)) headers[TRACEPARENT] = outgoingTraceparent(context);
  const id = uuidV7();
  return { id, msgId: input.msgId ?? id, subject: input.subject, payloadJson, headersJson: JSON.stringify(headers) };
}

/**
 * Stores an event to be published by the OutboxRelay. Must run inside the caller's transaction
 * (`em.transactional(async (tx) => { ...change...; await enqueueOutboxMessage(tx, ...) })`) so the change
 * and its event commit or roll back together; it refuses an EntityManager that is not in a transaction.
 * After the commit, call `relay.notify()` to publish without waiting for the next poll.
 */
export async function enqueueOutboxMessage(em: EntityManager, input: OutboxMessageInput): Promise<EnqueuedOutboxMessage> {
  if (!em.isInTransaction()) {
    throw new Error('enqueueOutboxMessage must be called inside em.transactional(...) so the event commits with the change');
  }
  const row = pendingOutboxRow(input);
  await em.getKysely<OutboxDatabase>()
    .insertInto(OUTBOX_TABLE)
    .values({
      id: row.id,
      subject: row.subject,
      payload: row.payloadJson,
      // jsonb from its JSON text, as the payload (one parameter, as a plain value would be)
      headers: sql<Record<string, string>>`${row.headersJson}`,
      msg_id: row.msgId,
      created_at: new Date(),
      published_at: null,
      attempts: 0,
      next_attempt_at: null,
      last_error: null,
    })
    .execute();
  return { id: row.id, msgId: row.msgId };
}
