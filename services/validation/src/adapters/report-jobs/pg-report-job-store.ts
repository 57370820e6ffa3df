import { randomUUID } from 'node:crypto';
import type { MikroORM } from '@mikro-orm/postgresql';
import type { Updateable } from 'kysely';
import { isUuid } from '#adapters/http/index.js';
import type { ClaimedReportJob, ReportJob, ReportJobKind, ReportJobProgress, ReportJobStatus } from '../../domain/report-jobs/report-job.js';
import type { ReportJobStore } from '../../domain/ports/report-job-store.js';
import { REPORT_JOB_TABLE } from './report-job-table.js';

interface JobRow {
  id: string; kind: ReportJobKind; facility_id: string; report_id: string; status: ReportJobStatus;
  total: number; done: number; errors: number; last_error: string | null; created_at: Date; updated_at: Date;
  checkpoint_after: string | null; checkpoint_done: number; checkpoint_errors: number; restarts: number;
}

/** The table as Kysely sees it (report-job-table.ts). */
interface ReportJobDatabase {
  [REPORT_JOB_TABLE]: JobRow;
}

/** Report jobs in PostgreSQL (table report_job). */
export class PgReportJobStore implements ReportJobStore {
  constructor(private readonly orm: MikroORM) {}

  private db() {
    return this.orm.em.fork().getKysely<ReportJobDatabase>();
  }

  async create(job: { kind: ReportJobKind; facilityId: string; reportId: string; total: number }): Promise<ReportJob> {
    const now = new Date();
    const row: JobRow = {
      id: randomUUID(), kind: job.kind, facility_id: job.facilityId, report_id: job.reportId, status: 'queued',
      total: job.total, done: 0, errors: 0, last_error: null, created_at: now, updated_at: now,
      checkpoint_after: null, checkpoint_done: 0, checkpoint_errors: 0, restarts: 0,
    };
    await this.db().insertInto(REPORT_JOB_TABLE).values(row).execute();
    return toJob(row);
  }

  async get(id: string): Promise<ReportJob | undefined> {
    if (!isUuid(id)) return undefined; // not a job id; also keeps a malformed id away from the uuid column
    const row = await this.db().selectFrom(REPORT_JOB_TABLE).selectAll().where('id', '=', id).executeTakeFirst();
    return row && toJob(row);
  }

  async update(id: string, progress: ReportJobProgress): Promise<void> {
    const set: Updateable<JobRow> = { updated_at: new Date() };
    if (progress.status !== undefined) set.status = progress.status;
    if (progress.total !== undefined) set.total = progress.total;
    if (progress.done !== undefined) set.done = progress.done;
    if (progress.errors !== undefined) set.errors = progress.errors;
    if (progress.lastError !== undefined) set.last_error = progress.lastError;
    if (progress.checkpoint !== undefined) {
      set.checkpoint_after = progress.checkpoint.after;
      set.checkpoint_done = progress.checkpoint.done;
      set.checkpoint_errors = progress.checkpoint.errors;
    }
    await this.db().updateTable(REPORT_JOB_TABLE).set(set).where('id', '=', id).execute();
  }

  async heartbeat(ids: readonly string[]): Promise<void> {
    if (ids.length === 0) return;
    await this.db().updateTable(REPORT_JOB_TABLE).set({ updated_at: new Date() })
      .where('id', 'in', [...ids]).where('status', 'in', ['queued', 'running']).execute();
  }

  /**
   * Each UPDATE re-checks `updated_at` on the row's latest version after waiting for its lock, so of
   * two instances sweeping at once only one takes a job over (the other sees it freshly touched).
   */
  async claimStale(staleAfterMs: number, maxRestarts: number, reason: string): Promise<{ claimed: ClaimedReportJob[]; failed: number }> {
    const before = new Date(Date.now() - staleAfterMs);
    const unfinished = ['queued', 'running'] as const;
    const failed = await this.db().updateTable(REPORT_JOB_TABLE).set({ status: 'failed', last_error: reason, updated_at: new Date() })
      .where('status', 'in', unfinished).where('updated_at', '<=', before).where('restarts', '>=', maxRestarts).executeTakeFirst();
    const claimed = await this.db().updateTable(REPORT_JOB_TABLE).set((eb) => ({ restarts: eb('restarts', '+', 1), updated_at: new Date() }))
      .where('status', 'in', unfinished).where('updated_at', '<=', before).where('restarts', '<', maxRestarts)
      .returningAll().execute();
    return {
      claimed: claimed.map((row) => ({
        job: toJob(row),
        ...(row.checkpoint_after === null ? {} : { checkpoint: { after: row.checkpoint_after, done: row.checkpoint_done, errors: row.checkpoint_errors } }),
      })),
      failed: Number(failed.numUpdatedRows ?? 0),
    };
  }
}

function toJob(row: JobRow): ReportJob {
  return {
    id: row.id, kind: row.kind, facilityId: row.facility_id, reportId: row.report_id, status: row.status,
    total: row.total, done: row.done, errors: row.errors, lastError: row.last_error,
    createdAt: new Date(row.created_at).toISOString(), updatedAt: new Date(row.updated_at).toISOString(),
  };
}
