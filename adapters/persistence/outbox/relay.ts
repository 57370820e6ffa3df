import type { MikroORM } from '@mikro-orm/postgresql';
import type { Kysely } from 'kysely';
import { UnpublishableMessageError, type MessagePublisher } from '../../messaging/publisher-port.js';
import type { Logger } from '../../observability/logger.js';
import { OUTBOX_TABLE, type OutboxDatabase, type OutboxRow } from './outbox-table.js';

/** A row as a batch claims it. */
type ClaimedRow = Pick<OutboxRow, 'id' | 'subject' | 'payload' | 'headers' | 'msg_id' | 'attempts' | 'created_at'>;

/**
 * Publishes committed outbox rows to the broker.
 *
 * Each batch claims up to `batchSize` due rows in one statement (`FOR UPDATE SKIP LOCKED`, and a lease
 * on each: next_attempt_at pushed past the longest the batch can take), publishes them (the first
 * alone, then, once the broker has answered, the rest at once) and marks them published in a second
 * statement, so several instances relay the same table without publishing a row twice, in two
 * round trips per batch. A crash between publish and mark leaves the row unpublished and leased;
 * when the lease ends it is retried with the same Nats-Msg-Id, which JetStream drops inside its
 * duplicate window.
 * A failing publish increments `attempts`, records `last_error` and pushes `next_attempt_at` back
 * (exponential backoff); other rows keep flowing. Delivery order is created order, except around retries.
 * A row the publisher refuses for good (UnpublishableMessageError: fails its contract, no contract
 * for its subject, too large for the broker) is parked instead: `parked_at` set, `last_error` says
 * why, never claimed again. The number of parked rows is reported (`parked-rows` event) after
 * parking and with every cleanup, for the `outbox_parked_messages` gauge and its alert.
 */

export type OutboxRelayEvent =
  | { kind: 'published'; subject: string; msgId: string; attempts: number; duplicate: boolean }
  | { kind: 'failed'; subject: string; msgId: string; attempts: number; error: string }
  | { kind: 'parked'; subject: string; msgId: string; error: string }
  | { kind: 'parked-rows'; count: number }
  | { kind: 'cleaned'; deleted: number }
  | { kind: 'poll-error'; error: string };

export interface OutboxRelayOptions {
  orm: MikroORM;
  publisher: MessagePublisher;
  logger: Logger;
  /** Poll period when not woken by `notify()`. Default 1000 ms. */
  pollIntervalMs?: number;
  /** Rows claimed per batch. Default 50. */
  batchSize?: number;
  /**
   * A notified relay starts a batch at most this often (default DEFAULT_RELAY_GATHER_MS, 250 ms): under load, the messages
   * committed meanwhile are claimed and published together (a batch costs two database round trips,
   * claim and mark, however many rows it holds) instead of one busy batch after another. An idle relay that is
   * notified starts at once, and so does one told `now` (the last of a burst). In bench:flow (two
   * instances, ~50 submissions/s each), 20 ms gave 1.5 rows per batch and 100 ms 4–6: the instance's
   * main thread spent 0.5–1 CPU-ms less per submission and PostgreSQL and NATS ~0.5 less. With one
   * instance of two workers on a loaded host (~30 submissions/s) 100 ms still gave 3.6 rows per batch,
   * so the relay ran about 4 statements for each one of the flow store (which gathers up to 8 submissions per
   * statement): hence 250 ms, at most 250 ms more before an announcement under load (publish →
   * ValidationComplete takes seconds there).
   */
  gatherMs?: number;
  /** A publish slower than this counts as failed (its row stays leased meanwhile). Default 5000 ms. */
  publishTimeoutMs?: number;
  /**
   * After this many failures in a row the batch ends early: when the broker is down every publish would
   * wait for its timeout while the claimed rows stay leased. Untried rows keep their attempt count. Default 3.
   */
  maxConsecutiveFailures?: number;
  /** Backoff after the n-th failure: min(maxMs, initialMs * 2^(n-1)), plus up to 20 % jitter. */
  backoff?: { initialMs?: number; maxMs?: number };
  /** Published rows older than this are deleted. Default 7 days. */
  retentionMs?: number;
  /** How often the cleanup runs. Default 60 s. */
  cleanupIntervalMs?: number;
  /** Rows deleted per statement; a cleanup runs at most 100 such statements. Default 1000. */
  cleanupBatchSize?: number;
  /** Metrics hook; called synchronously, must not throw. */
  onEvent?: (event: OutboxRelayEvent) => void;
}

export interface RelayBatchResult {
  claimed: number;
  published: number;
  /** Failed this time and due again after their backoff. */
  failed: number;
  /** Refused for good and parked. */
  parked: number;
}

const MAX_ERROR_LENGTH = 2000;
const MAX_CLEANUP_STATEMENTS = 100;
/** OutboxRelayOptions.gatherMs by default. */
export const DEFAULT_RELAY_GATHER_MS = 250;
const POLL_ERROR_LOG_INTERVAL_MS = 30_000;

export class OutboxRelay {
  private readonly pollIntervalMs: number;
  private readonly batchSize: number;
  private readonly gatherMs: number;
  private readonly leaseMs: number;
  private lastBatchAt = 0;
  private readonly publishTimeoutMs: number;
  private readonly maxConsecutiveFailures: number;
  private readonly backoffInitialMs: number;
  private readonly backoffMaxMs: number;
  private readonly retentionMs: number;
  private readonly cleanupIntervalMs: number;
  private readonly cleanupBatchSize: number;

  private running = false;
  private loop: Promise<void> | undefined;
  private wake: (() => void) | undefined;
  private notified = false;
  /** Set by notify({ now }): the next batch does not wait out the gathering interval; endGather ends a wait in progress. */
  private skipGather = false;
  private endGather: (() => void) | undefined;
  private lastCleanupAt = 0;
  private lastPollErrorLogAt = 0;
  /** Rows this relay published but could not mark (the database went away in between). */
  private readonly publishedNotMarked = new Set<string>();

  constructor(private readonly options: OutboxRelayOptions) {
    this.pollIntervalMs = positive(options.pollIntervalMs ?? 1000, 'pollIntervalMs');
    this.batchSize = positive(options.batchSize ?? 50, 'batchSize');
    this.gatherMs = options.gatherMs === 0 ? 0 : positive(options.gatherMs ?? DEFAULT_RELAY_GATHER_MS, 'gatherMs');
    this.publishTimeoutMs = positive(options.publishTimeoutMs ?? 5000, 'publishTimeoutMs');
    this.maxConsecutiveFailures = positive(options.maxConsecutiveFailures ?? 3, 'maxConsecutiveFailures');
    // Longest a batch can publish: the failures it tolerates one at a time, then the rest at once; plus margin.
    this.leaseMs = (this.maxConsecutiveFailures + 1) * this.publishTimeoutMs + 5_000;
    this.backoffInitialMs = positive(options.backoff?.initialMs ?? 500, 'backoff.initialMs');
    this.backoffMaxMs = positive(options.backoff?.maxMs ?? 60_000, 'backoff.maxMs');
    this.retentionMs = positive(options.retentionMs ?? 7 * 24 * 3600_000, 'retentionMs');
    this.cleanupIntervalMs = positive(options.cleanupIntervalMs ?? 60_000, 'cleanupIntervalMs');
    this.cleanupBatchSize = positive(options.cleanupBatchSize ?? 1000, 'cleanupBatchSize');
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    this.loop = this.run();
  }

  /** Finishes the batch in progress, then returns. */
  async stop(): Promise<void> {
    this.running = false;
    this.wake?.();
    this.endGather?.();
    await this.loop;
    this.loop = undefined;
  }

  /**
   * Wakes the relay (call after committing a transaction that enqueued messages). Under load the
   * batch still waits out the gathering interval (gatherMs); `now`: the caller knows nothing more is
   * coming soon (the last of a burst), so the batch starts without waiting for others to join it.
   */
  notify(options: { readonly now?: boolean } = {}): void {
    this.notified = true;
    if (options.now) {
      this.skipGather = true;
      this.endGather?.();
    }
    this.wake?.();
  }

  /**
   * One claim-publish-mark batch. Exposed for tests and for callers that drive the relay themselves.
   *
   * The claim is one statement: it leases the oldest due rows (pushes their next_attempt_at past
   * the longest this batch can take) and returns them, so other relays skip them without a
   * transaction held open across the publishes. Marking is a second statement. A relay that dies
   * in between leaves its rows leased: they are due again when the lease ends, and their retry
   * carries the same Nats-Msg-Id (JetStream drops it if the first publish got through).
   *
   * A relay that is alive but lost the database between publishing and marking keeps the ids of
   * the rows it published and marks them first thing when the database is back, before claiming
   * anything: after an outage longer than JetStream's duplicate window (2 min), publishing them
   * again would deliver a second copy. (Another relay instance could still take such a row over
   * once its lease ended, if it reaches the database first; consumers dedupe by the message id.)
   */
  async relayOnce(): Promise<RelayBatchResult> {
    const db = this.options.orm.em.fork().getKysely<OutboxDatabase>();
    if (this.publishedNotMarked.size > 0) {
      // Throws while the database is still unreachable: nothing is claimed meanwhile.
      await this.markPublished(db, [...this.publishedNotMarked]);
      this.publishedNotMarked.clear();
    }
    const now = Date.now();
    const claimed = await db
      .updateTable(OUTBOX_TABLE)
      .set({ next_attempt_at: new Date(now + this.leaseMs) })
      .where('id', 'in', (eb) => eb
        .selectFrom(OUTBOX_TABLE)
        .select('id')
        .where('published_at', 'is', null)
        .where('parked_at', 'is', null)
        .where((w) => w.or([w('next_attempt_at', 'is', null), w('next_attempt_at', '<=', new Date(now))]))
        .orderBy('created_at')
        .orderBy('id')
        .limit(this.batchSize)
        .forUpdate()
        .skipLocked())
      .returning(['id', 'subject', 'payload', 'headers', 'msg_id', 'attempts', 'created_at'])
      .execute();
    // RETURNING does not keep the subquery's order.
    const rows = claimed.sort((a, b) => new Date(a.created_at).getTime() - new Date(b.created_at).getTime() || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));

    const publishedIds: string[] = [];
    let marked = false;
    try {
      return await this.publishClaimed(db, rows, publishedIds, () => { marked = true; });
    } catch (error) {
      // The database went away mid-batch: remember what was published, to mark it without publishing it again.
      if (!marked) for (const id of publishedIds) this.publishedNotMarked.add(id);
      throw error;
    }
  }

  private async publishClaimed(
    db: Kysely<OutboxDatabase>, rows: ClaimedRow[], publishedIds: string[], onMarked: () => void,
  ): Promise<RelayBatchResult> {
    const { publisher } = this.options;
    let failed = 0;
    let consecutiveFailures = 0;
    // One publish at a time until one succeeds (a broker that is down costs one timeout per try,
    // and the batch ends after maxConsecutiveFailures); then the rest of the batch at once: the
    // publishes go out together in created order and their acks come back together, instead of a
    // round trip each.
    let next = 0;
    let brokerAnswers = false;
    let parked = 0;
    while (next < rows.length && consecutiveFailures < this.maxConsecutiveFailures) {
      const chunk = rows.slice(next, brokerAnswers ? undefined : next + 1);
      next += chunk.length;
      const outcomes = await Promise.allSettled(chunk.map((row) => withTimeout(
        publisher.publish(row.subject, row.payload, { msgId: row.msg_id, headers: row.headers }),
        this.publishTimeoutMs,
      )));
      for (const [i, outcome] of outcomes.entries()) {
        const row = chunk[i];
        if (row === undefined) continue; // not reached: one outcome per row
        const attempts = row.attempts + 1;
        if (outcome.status === 'fulfilled') {
          publishedIds.push(row.id);
          consecutiveFailures = 0;
          brokerAnswers = true;
          this.emit({ kind: 'published', subject: row.subject, msgId: row.msg_id, attempts, duplicate: outcome.value?.duplicate ?? false });
          continue;
        }
        const message = errorMessage(outcome.reason).slice(0, MAX_ERROR_LENGTH);
        if (outcome.reason instanceof UnpublishableMessageError) {
          // The broker answered (or the publisher checked): retrying cannot help, so stop trying.
          parked++;
          await db
            .updateTable(OUTBOX_TABLE)
            .set({ attempts, last_error: message, next_attempt_at: null, parked_at: new Date() })
            .where('id', '=', row.id)
            .execute();
          this.options.logger.error({ subject: row.subject, msgId: row.msg_id, outboxId: row.id, err: message }, 'outbox message can never be published; parked');
          this.emit({ kind: 'parked', subject: row.subject, msgId: row.msg_id, error: message });
          continue;
        }
        failed++;
        consecutiveFailures++;
        await db
          .updateTable(OUTBOX_TABLE)
          .set({ attempts, last_error: message, next_attempt_at: new Date(Date.now() + this.backoffMs(attempts)) })
          .where('id', '=', row.id)
          .execute();
        this.options.logger.warn({ subject: row.subject, msgId: row.msg_id, attempts, err: message }, 'outbox publish failed; will retry');
        this.emit({ kind: 'failed', subject: row.subject, msgId: row.msg_id, attempts, error: message });
      }
    }
    await this.markPublished(db, publishedIds);
    onMarked();
    // Rows the batch did not try (it ended early): due again now, their attempt count untouched.
    const untried = rows.slice(next).map((row) => row.id);
    if (untried.length > 0) {
      await db.updateTable(OUTBOX_TABLE).set({ next_attempt_at: null }).where('id', 'in', untried).execute();
    }
    if (parked > 0) await this.reportParked();
    return { claimed: rows.length, published: publishedIds.length, failed, parked };
  }

  private async markPublished(db: Kysely<OutboxDatabase>, ids: readonly string[]): Promise<void> {
    if (ids.length === 0) return;
    await db
      .updateTable(OUTBOX_TABLE)
      .set((eb) => ({ published_at: new Date(), last_error: null, next_attempt_at: null, attempts: eb('attempts', '+', 1) }))
      .where('id', 'in', ids)
      .where('published_at', 'is', null)
      .execute();
  }

  /** Rows parked so far (they wait for an operator), reported as a `parked-rows` event too. */
  async countParked(): Promise<number> {
    const row = await this.options.orm.em.fork().getKysely<OutboxDatabase>()
      .selectFrom(OUTBOX_TABLE).select((eb) => eb.fn.countAll().as('count')).where('parked_at', 'is not', null).executeTakeFirst();
    return Number(row?.count ?? 0);
  }

  private async reportParked(): Promise<void> {
    this.emit({ kind: 'parked-rows', count: await this.countParked() });
  }

  /** Deletes published rows older than the retention, in batches. Returns the number deleted. */
  async deletePublished(olderThan: Date = new Date(Date.now() - this.retentionMs)): Promise<number> {
    const db = this.options.orm.em.fork().getKysely<OutboxDatabase>();
    let total = 0;
    for (let i = 0; i < MAX_CLEANUP_STATEMENTS; i++) {
      const result = await db
        .deleteFrom(OUTBOX_TABLE)
        .where('id', 'in', (eb) => eb
          .selectFrom(OUTBOX_TABLE)
          .select('id')
          .where('published_at', '<', olderThan)
          .limit(this.cleanupBatchSize)
          .forUpdate()
          .skipLocked())
        .executeTakeFirst();
      const deleted = Number(result.numDeletedRows);
      total += deleted;
      if (deleted < this.cleanupBatchSize) break;
    }
    if (total > 0) this.emit({ kind: 'cleaned', deleted: total });
    return total;
  }

  private async run(): Promise<void> {
    while (this.running) {
      let fullBatch = false;
      try {
        this.lastBatchAt = Date.now();
        fullBatch = (await this.relayOnce()).claimed === this.batchSize;
        if (Date.now() - this.lastCleanupAt >= this.cleanupIntervalMs) {
          this.lastCleanupAt = Date.now();
          await this.deletePublished();
          await this.reportParked();
        }
      } catch (error) {
        // The database itself is unavailable; rows are safe where they are, so just try again later.
        const message = errorMessage(error);
        if (Date.now() - this.lastPollErrorLogAt >= POLL_ERROR_LOG_INTERVAL_MS) {
          this.lastPollErrorLogAt = Date.now();
          this.options.logger.warn({ err: message }, 'outbox poll failed');
        }
        this.emit({ kind: 'poll-error', error: message });
      }
      if (this.running && !fullBatch) {
        await this.sleep();
        const gather = this.lastBatchAt + this.gatherMs - Date.now();
        if (gather > 0 && this.running && !this.skipGather) await this.gatherFor(gather);
        this.skipGather = false;
      }
    }
  }

  /** Waits `ms` for more rows to batch, or less when notified with `now` (or stopped). */
  private gatherFor(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.endGather = undefined;
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.endGather = done;
    });
  }

  private sleep(): Promise<void> {
    if (this.notified) {
      this.notified = false;
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.wake = undefined;
        this.notified = false;
        resolve();
      };
      const timer = setTimeout(done, this.pollIntervalMs);
      timer.unref();
      this.wake = done;
    });
  }

  private backoffMs(attempts: number): number {
    const base = Math.min(this.backoffMaxMs, this.backoffInitialMs * 2 ** Math.min(attempts - 1, 30));
    return Math.round(base * (1 + Math.random() * 0.2));
  }

  private emit(event: OutboxRelayEvent): void {
    try {
      this.options.onEvent?.(event);
    } catch (error) {
      this.options.logger.warn({ err: errorMessage(error) }, 'outbox metrics hook threw');
    }
  }
}

function positive(value: number, name: string): number {
  if (!Number.isFinite(value) || value <= 0) throw new Error(`OutboxRelay: ${name} must be a positive number`);
  return value;
}

function errorMessage(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`publish timed out after ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
