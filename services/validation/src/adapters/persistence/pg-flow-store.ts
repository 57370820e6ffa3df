/**
 * Steps (4), (5) and (6) of the flow in ONE PostgreSQL statement (so one transaction and one round
 * trip), shared with the other submissions whose commits waited for the previous statement (group
 * commit, below): store the aggregated outcome with its categorized issues (one row per submission,
 * replacing the previous results), and enqueue ValidationComplete in the outbox. Either all of it
 * is committed or none; the relay publishes after the commit.
 *
 * Idempotency per event: every ReadyForValidation gets one ValidationComplete, whatever its outcome,
 * and a redelivery of an event already announced gets none (its results are rewritten). The row
 * remembers the events it announced; the upsert holds the submission's row lock, so two instances
 * handling one event at once serialize on it (see storeSubmissionResults).
 *
 * The message id is `<facility>:<report>:<patient>:<run id>`: one id per announced run, so the
 * relay's retries of one row are dropped by JetStream as duplicates, while a submission whose outcome
 * goes A → B → A within the stream's duplicate window announces all three (the third A is a new run;
 * an id made of the outcome hash would repeat the first A's and be dropped by the server).
 */
import type { MikroORM } from '@mikro-orm/postgresql';
import { pendingOutboxRow } from '#adapters/persistence/index.js';
import { storeSubmissionResults, submissionKeyId, type StoredSubmission, type SubmissionWrite } from './result-repository.js';
import { SUBMISSION_RESULTS_TABLE, type SubmissionResultsDatabase } from './submission-results-table.js';
import type { SubmissionKey } from '../../domain/ports/submission-source.js';
import { completionMsgId, type CommitOptions, type CommitResult, type FlowRecord } from '../../domain/ports/flow-store.js';

/** Most submissions written by one statement. */
const MAX_GROUP = 16;

export interface PgFlowStoreOptions {
  /** Least time between the starts of two statements under load (default DEFAULT_GATHER_MS; 0 = no wait). */
  readonly gatherMs?: number;
  /**
   * Most submissions per statement (at most 16): a group this big goes at once, without waiting out
   * the interval. The flow holds each submission's message until its commit, so the waiting commits
   * use up the consumer's concurrency: see groupLimitFor.
   */
  readonly maxGroup?: number;
}

/**
 * maxGroup for a consumer that handles `concurrency` submissions at once: a third of them. Under
 * load about one group waits to be gathered while the previous one is being written, so a third
 * of the slots is left to the submissions being fetched and validated: the workers' queue then
 * rarely runs dry between two groups (with half of 16, bench:flow saw the machine 6–9 % idle
 * throughout the rounds, with a third of 24 4–7 %).
 */
export function groupLimitFor(concurrency: number): number {
  return Math.max(1, Math.min(MAX_GROUP, Math.floor(concurrency / 3)));
}

/**
 * Least time between the starts of two statements under load. Measured with bench:flow on one day
 * (one instance, two workers, 2 cores shared with PostgreSQL and NATS): without the wait, 8 or 16
 * submissions in flight, 1.2 submissions per statement, PostgreSQL ~1.0 CPU-ms per submission, end
 * to end 0.61–0.65 of engine-only; 20 ms with 16 in flight 0.70 (5 rounds); 50 ms with 16 in flight
 * (groups of up to 8) ~7 per statement, PostgreSQL 0.4–0.5 CPU-ms, socket writes to PostgreSQL 0.96
 * → 0.27 and to NATS 1.6 → 0.5 per submission (the acks of a group go out together), end to end
 * 0.68–0.74 over nine runs of 9 rounds (0.71–0.74 on a fast hour of the host, down to 0.68 on a slow one). With only 8 in flight the waiting commits starved the
 * workers (0.51) until groups were capped (0.65): hence groupLimitFor, and twelve in flight per
 * worker by default (defaultConsumerConcurrency: 24 with two workers, groups of up to 8, 0.72–0.74
 * over five runs on a slower, noisier hour of the host).
 */
export const DEFAULT_GATHER_MS = 50;

interface PendingCommit {
  readonly write: SubmissionWrite;
  readonly resolve: (result: CommitResult) => void;
  readonly reject: (error: unknown) => void;
}

/**
 * Group commit: one statement is in flight at a time; the commits that arrive meanwhile wait and
 * then go together in the next statement (up to maxGroup). Besides, a statement starts at most
 * every `gatherMs` (default 50): a commit arriving sooner after the previous statement started waits
 * for the rest of that interval (or until maxGroup commits wait), so under load the commits of
 * ~gatherMs go together. An idle store (no statement for gatherMs) writes a commit at once, alone,
 * so a lone submission never waits; so does a commit the flow marks `lastInFlight` (nothing else
 * is being validated, so nothing could join the group), with those waiting. Each caller still
 * learns its own result only after the statement that holds its submission committed.
 *
 * Why wait: every statement costs a round trip, a transaction and the wake-ups of both ends,
 * whatever its size; submissions finish one by one, a few milliseconds apart, so without the wait
 * a busy store wrote ~1.2 submissions per statement. Measured with bench:flow (one instance, two
 * workers, PostgreSQL on the same two cores): see DEFAULT_GATHER_MS.
 *
 * Two commits of one submission never share a statement (the later waits for the next one), and
 * when a shared statement fails, its commits are retried one by one, so one bad record fails alone.
 */
export class PgFlowStore {
  private readonly waiting: PendingCommit[] = [];
  private writing = false;
  /** When the last statement started (performance.now()), and the timer of a gathering wait. */
  private lastStartedAt = Number.NEGATIVE_INFINITY;
  private gathering: NodeJS.Timeout | undefined;
  /** A commit marked lastInFlight waits: the next statement goes without waiting out the interval. */
  private noMoreComing = false;
  private readonly gatherMs: number;
  private readonly maxGroup: number;

  constructor(private readonly orm: MikroORM, options: PgFlowStoreOptions = {}) {
    const gatherMs = options.gatherMs ?? DEFAULT_GATHER_MS;
    if (!Number.isFinite(gatherMs) || gatherMs < 0) throw new Error(`PgFlowStore: gatherMs must be a number ≥ 0, got ${gatherMs}`);
    const maxGroup = options.maxGroup ?? MAX_GROUP;
    if (!Number.isInteger(maxGroup) || maxGroup < 1) throw new Error(`PgFlowStore: maxGroup must be an integer ≥ 1, got ${maxGroup}`);
    this.gatherMs = gatherMs;
    this.maxGroup = Math.min(MAX_GROUP, maxGroup);
  }

  /** Rejects (nothing stored) when the announcement fails its contract, as when the statement fails. */
  commit(record: FlowRecord, options: CommitOptions = {}): Promise<CommitResult> {
    let write: SubmissionWrite;
    try {
      write = this.prepare(record);
    } catch (error) {
      return Promise.reject(error instanceof Error ? error : new Error(String(error)));
    }
    return new Promise<CommitResult>((resolve, reject) => {
      this.waiting.push({ write, resolve, reject });
      if (options.lastInFlight) this.noMoreComing = true;
      this.schedule();
    });
  }

  /** Starts the next statement now, or when the gathering interval ends (see the class comment). */
  private schedule(): void {
    if (this.writing) return; // writeWaiting picks the waiting commits up
    const wait = this.lastStartedAt + this.gatherMs - performance.now();
    if (wait <= 0 || this.noMoreComing || this.waiting.length >= this.maxGroup) {
      this.noMoreComing = false;
      if (this.gathering) clearTimeout(this.gathering);
      this.gathering = undefined;
      void this.writeWaiting();
      return;
    }
    this.gathering ??= setTimeout(() => {
      this.gathering = undefined;
      if (!this.writing) void this.writeWaiting();
    }, wait);
  }

  /** The write of one record: its announcement checked now, inserted only if it is announced (see storeSubmissionResults). */
  private prepare(record: FlowRecord): SubmissionWrite {
    const { key, runId, announcement } = record;
    return {
      record: {
        key, outcomeJson: record.outcomeJson, outcomeHash: record.outcomeHash, categorization: record.categorization,
        valid: record.valid, uncategorizedCount: record.counts.uncategorized, unacceptableCount: record.counts.unacceptable,
        resourceCount: record.resourceCount, unobtainable: record.unobtainable,
      },
      eventId: record.eventId,
      runId,
      announcement: pendingOutboxRow({ subject: announcement.subject, payload: announcement.payload, msgId: completionMsgId(key, runId), headers: announcement.headers }),
    };
  }

  private async writeWaiting(): Promise<void> {
    this.writing = true;
    try {
      this.lastStartedAt = performance.now();
      await this.writeGroup(this.nextGroup());
    } finally {
      this.writing = false;
    }
    // Commits that arrived meanwhile: a full group goes at once, fewer wait out the interval.
    if (this.waiting.length > 0) this.schedule();
  }

  /** The oldest waiting commits, at most maxGroup, no submission twice (a repeat stays for the next group, in order). */
  private nextGroup(): PendingCommit[] {
    const group: PendingCommit[] = [];
    const keys = new Set<string>();
    const later: PendingCommit[] = [];
    for (const pending of this.waiting) {
      const id = submissionKeyId(pending.write.record.key);
      if (group.length >= this.maxGroup || keys.has(id)) {
        later.push(pending);
        continue;
      }
      keys.add(id);
      group.push(pending);
    }
    this.waiting.splice(0, this.waiting.length, ...later);
    return group;
  }

  private async writeGroup(group: readonly PendingCommit[]): Promise<void> {
    let stored: StoredSubmission[];
    try {
      stored = await storeSubmissionResults(this.orm.em.fork().getKysely(), group.map((pending) => pending.write));
    } catch (error) {
      const [only] = group;
      if (only && group.length === 1) {
        only.reject(error);
        return;
      }
      for (const pending of group) await this.writeGroup([pending]);
      return;
    }
    // Not announced: the run and message id of the submission's last announcement.
    group.forEach((pending, i) => {
      const result = stored[i];
      if (!result) {
        pending.reject(new Error(`The flow store wrote ${String(stored.length)} submissions of a group of ${String(group.length)}`));
        return;
      }
      pending.resolve({ announced: result.changed, runId: result.runId, msgId: completionMsgId(pending.write.record.key, result.runId) });
    });
  }

  /** The stored outcome of one submission (tests, reports). */
  async find(key: SubmissionKey): Promise<{ outcome: Record<string, unknown>; valid: boolean; outcomeHash: string; runId: string } | undefined> {
    const row = await this.orm.em.fork().getKysely<SubmissionResultsDatabase>().selectFrom(SUBMISSION_RESULTS_TABLE).select(['outcome', 'valid', 'outcome_hash', 'run_id'])
      .where('facility_id', '=', key.facilityId).where('report_id', '=', key.reportId).where('patient_id', '=', key.patientId)
      .executeTakeFirst();
    if (!row) return undefined;
    const outcome: unknown = JSON.parse(row.outcome);
    return { outcome: isRecord(outcome) ? outcome : {}, valid: row.valid, outcomeHash: row.outcome_hash, runId: row.run_id };
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
