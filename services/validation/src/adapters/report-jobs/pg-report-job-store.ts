import { randomUUID } from 'node:crypto';
import type { MikroORM } from '@mikro-orm/postgresql';
import type { Updateable } from 'kysely';
import { isUuid } from '#adapters/http/index.js';
import type { ReportJob, ReportJobKind, ReportJobProgress, ReportJobStatus, ReportJobStore } from '../../application/report-jobs/report-job.js';
import { REPORT_JOB_TABLE } from './report-job-table.js';

interface JobRow {
  id: string; kind: ReportJobKind; facility_id: string; report_id: string; status: ReportJobStatus;
  total: number; done: number; errors: number; last_error: string | null; created_at: Date; updated_at: Date;
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
    };
    await this.db().insertInto(REPORT_JOB_TABLE).values(row).execute();
    return toJob(row);
  }

  async get(id: string): Promise<ReportJob | undefined> {
    if (!isUuid(id)) return undefined; // not a job id; also keeps a malformed id away from the uuid column
    const row = await this.db().selectFrom(REPORT_JOB_TABLE).selectAll().where('id', '=', id).executeTakeFirst() as JobRow | undefined;
    return row && toJob(row);
  }

  async update(id: string, progress: ReportJobProgress): Promise<void> {
    const set: Updateable<JobRow> = { updated_at: new Date() };
    if (progress.status !== undefined) set.status = progress.status;
    if (progress.total !== undefined) set.total = progress.total;
    if (progress.done !== undefined) set.done = progress.done;
    if (progress.errors !== undefined) set.errors = progress.errors;
    if (progress.lastError !== undefined) set.last_error = progress.lastError;
    await this.db().updateTable(REPORT_JOB_TABLE).set(set).where('id', '=', id).execute();
  }

  async heartbeat(ids: readonly string[]): Promise<void> {
    if (ids.length === 0) return;
    await this.db().updateTable(REPORT_JOB_TABLE).set({ updated_at: new Date() })
      .where('id', 'in', [...ids]).where('status', 'in', ['queued', 'running']).execute();
  }

  async failStale(staleAfterMs: number, reason: string): Promise<number> {
    const before = new Date(Date.now() - staleAfterMs);
    const result = await this.db().updateTable(REPORT_JOB_TABLE).set({ status: 'failed', last_error: reason, updated_at: new Date() })
      .where('status', 'in', ['queued', 'running']).where('updated_at', '<=', before).executeTakeFirst() as { numUpdatedRows?: bigint };
    return Number(result.numUpdatedRows ?? 0);
  }
}

function toJob(row: JobRow): ReportJob {
  return {
    id: row.id, kind: row.kind, facilityId: row.facility_id, reportId: row.report_id, status: row.status,
    total: row.total, done: row.done, errors: row.errors, lastError: row.last_error,
    createdAt: new Date(row.created_at).toISOString(), updatedAt: new Date(row.updated_at).toISOString(),
  };
}
