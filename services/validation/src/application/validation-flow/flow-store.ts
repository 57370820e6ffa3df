/**
 * Steps (4), (5) and (6) of the flow in ONE PostgreSQL transaction: store the aggregated outcome,
 * replace the patient's results (with their category links), and enqueue ValidationComplete in
 * the outbox. Either all of it is committed or none; the relay publishes after the commit.
 *
 * Idempotency: the submission's row is locked (advisory lock on its key, so two instances handling
 * duplicates of one event serialize); when the stored outcome hash equals the new one, the results
 * are rewritten (same content) but no second ValidationComplete is enqueued. The message id is
 * `<facility>:<report>:<patient>:<outcome hash>`, so even a re-enqueue inside JetStream's duplicate
 * window would be dropped by the server.
 */
import { randomUUID } from 'node:crypto';
import type { MikroORM } from '@mikro-orm/postgresql';
import { enqueueOutboxMessage } from '../../../../../adapters/persistence/index.js';
import { replacePatientResultsIn } from '../../adapters/http/validation-api-module.js';
import type { SubmissionKey } from '../../domain/flow/submission.js';
import type { NewResult } from '../../domain/results/result-repository.js';
import { VALIDATION_OUTCOME_TABLE } from './outcome-table.js';

export interface OutcomeCounts {
  readonly total: number;
  readonly errors: number;
  readonly warnings: number;
  readonly information: number;
  readonly categorized: number;
  readonly uncategorized: number;
  readonly unacceptable: number;
}

export interface FlowRecord {
  readonly key: SubmissionKey;
  readonly outcome: Record<string, unknown>;
  /** `outcome` as JSON text (what is stored). */
  readonly outcomeJson: string;
  readonly outcomeHash: string;
  readonly valid: boolean;
  readonly counts: OutcomeCounts;
  readonly resourceCount: number;
  readonly results: readonly NewResult[];
  /** Builds the ValidationComplete message for the run id chosen in the transaction. */
  readonly completion: (runId: string) => { subject: string; payload: unknown; headers?: Record<string, string> };
}

export interface CommitResult {
  /** False when the same outcome was already stored and announced. */
  readonly announced: boolean;
  readonly runId: string;
  readonly msgId: string;
}

export function completionMsgId(key: SubmissionKey, outcomeHash: string): string {
  return `${key.facilityId}:${key.reportId}:${key.patientId}:${outcomeHash}`;
}

export class PgFlowStore {
  constructor(private readonly orm: MikroORM) {}

  commit(record: FlowRecord): Promise<CommitResult> {
    const { key } = record;
    return this.orm.em.fork().transactional(async (tx) => {
      await tx.execute('select pg_advisory_xact_lock(hashtextextended(?, 0))', [`${VALIDATION_OUTCOME_TABLE}|${key.facilityId}|${key.reportId}|${key.patientId}`]);
      const db = tx.getKysely<any>();
      const previous = await db.selectFrom(VALIDATION_OUTCOME_TABLE).select(['outcome_hash', 'run_id'])
        .where('facility_id', '=', key.facilityId).where('report_id', '=', key.reportId).where('patient_id', '=', key.patientId)
        .executeTakeFirst() as { outcome_hash: string; run_id: string } | undefined;
      const msgId = completionMsgId(key, record.outcomeHash);
      const unchanged = previous?.outcome_hash === record.outcomeHash;
      const runId = unchanged ? previous.run_id : randomUUID();
      const row = {
        outcome: record.outcomeJson, outcome_hash: record.outcomeHash, valid: record.valid, run_id: runId,
        issue_count: record.counts.total, error_count: record.counts.errors, warning_count: record.counts.warnings,
        information_count: record.counts.information, uncategorized_count: record.counts.uncategorized,
        unacceptable_count: record.counts.unacceptable, resource_count: record.resourceCount, updated_at: new Date(),
      };
      await db.insertInto(VALIDATION_OUTCOME_TABLE)
        .values({ facility_id: key.facilityId, report_id: key.reportId, patient_id: key.patientId, ...row })
        .onConflict((oc: any) => oc.columns(['facility_id', 'report_id', 'patient_id']).doUpdateSet(row))
        .execute();
      await replacePatientResultsIn(tx, key, record.results);
      if (!unchanged) {
        const message = record.completion(runId);
        await enqueueOutboxMessage(tx, { subject: message.subject, payload: message.payload, msgId, headers: message.headers });
      }
      return { announced: !unchanged, runId, msgId };
    });
  }

  /** The stored outcome of one submission (tests, reports). */
  async find(key: SubmissionKey): Promise<{ outcome: Record<string, unknown>; valid: boolean; outcomeHash: string; runId: string } | undefined> {
    const row = await this.orm.em.fork().getKysely<any>().selectFrom(VALIDATION_OUTCOME_TABLE).select(['outcome', 'valid', 'outcome_hash', 'run_id'])
      .where('facility_id', '=', key.facilityId).where('report_id', '=', key.reportId).where('patient_id', '=', key.patientId)
      .executeTakeFirst() as { outcome: Record<string, unknown>; valid: boolean; outcome_hash: string; run_id: string } | undefined;
    return row && { outcome: row.outcome, valid: row.valid, outcomeHash: row.outcome_hash, runId: row.run_id };
  }
}
