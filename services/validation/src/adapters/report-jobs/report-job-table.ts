/** Table `report_job`: one row per re-categorize / re-validate job, with its progress. */
import { defineEntity, p } from '@mikro-orm/postgresql';
import { Migration } from '@mikro-orm/migrations';

export const REPORT_JOB_TABLE = 'report_job';

export const ReportJobEntity = defineEntity({
  name: 'ReportJobEntity',
  tableName: REPORT_JOB_TABLE,
  properties: {
    id: p.uuid().primary(),
    kind: p.string().length(16),
    facilityId: p.string().length(255),
    reportId: p.string().length(255),
    status: p.string().length(16),
    total: p.integer(),
    done: p.integer(),
    errors: p.integer(),
    lastError: p.text().nullable(),
    checkpointAfter: p.string().length(255).nullable(),
    checkpointDone: p.integer(),
    checkpointErrors: p.integer(),
    restarts: p.integer(),
    createdAt: p.datetime(),
    updatedAt: p.datetime(),
  },
});

export class CreateReportJobTable extends Migration {
  override up(): void {
    this.addSql(`create table "${REPORT_JOB_TABLE}" (
      "id" uuid primary key,
      "kind" varchar(16) not null check ("kind" in ('recategorize', 'revalidate')),
      "facility_id" varchar(255) not null,
      "report_id" varchar(255) not null,
      "status" varchar(16) not null check ("status" in ('queued', 'running', 'succeeded', 'failed')),
      "total" integer not null,
      "done" integer not null default 0,
      "errors" integer not null default 0,
      "last_error" text null,
      "created_at" timestamptz not null default now(),
      "updated_at" timestamptz not null default now())`);
    // The orphan sweep looks only at unfinished jobs.
    this.addSql(`create index "report_job_unfinished_idx" on "${REPORT_JOB_TABLE}" ("updated_at") where "status" in ('queued', 'running')`);
  }

  override down(): void {
    this.addSql(`drop table if exists "${REPORT_JOB_TABLE}"`);
  }
}

/**
 * Jobs are resumed after a restart rather than failed: the checkpoint (the last patient before
 * which every patient is done, with the counts up to it) and how often the job was taken over.
 */
export class ResumeReportJobs extends Migration {
  override up(): void {
    this.addSql(`alter table "${REPORT_JOB_TABLE}"
      add column "checkpoint_after" varchar(255) null,
      add column "checkpoint_done" integer not null default 0,
      add column "checkpoint_errors" integer not null default 0,
      add column "restarts" integer not null default 0`);
  }

  override down(): void {
    this.addSql(`alter table "${REPORT_JOB_TABLE}" drop column "checkpoint_after", drop column "checkpoint_done", drop column "checkpoint_errors", drop column "restarts"`);
  }
}

export const reportJobEntities = [ReportJobEntity];
export const reportJobMigrations = [
  { name: 'Migration20261122070000_report_job', class: CreateReportJobTable },
  { name: 'Migration20261201091000_report_job_resume', class: ResumeReportJobs },
];
