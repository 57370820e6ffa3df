/**
 * Background jobs over one report of one facility (the specification's planned
 * operations): `recategorize` applies the latest category rules to the report's STORED results;
 * `revalidate` runs the whole validation flow again for every patient of the report.
 */
import type { Categorizer } from '../../domain/categorization/categorizer.js';
import type { SubmissionKey } from '../../domain/flow/submission.js';

export const REPORT_JOB_KINDS = ['recategorize', 'revalidate'] as const;
export type ReportJobKind = (typeof REPORT_JOB_KINDS)[number];
export const REPORT_JOB_STATUSES = ['queued', 'running', 'succeeded', 'failed'] as const;
export type ReportJobStatus = (typeof REPORT_JOB_STATUSES)[number];

export interface ReportJob {
  readonly id: string;
  readonly kind: ReportJobKind;
  readonly facilityId: string;
  readonly reportId: string;
  readonly status: ReportJobStatus;
  /** Patients to process. */
  readonly total: number;
  /** Patients processed (successfully or not). */
  readonly done: number;
  /** Patients that failed. */
  readonly errors: number;
  readonly lastError: string | null;
  /** ISO 8601. */
  readonly createdAt: string;
  readonly updatedAt: string;
}

export type ReportJobProgress = Partial<Pick<ReportJob, 'status' | 'total' | 'done' | 'errors' | 'lastError'>>;

/** Port: where jobs are kept. */
export interface ReportJobStore {
  create(job: { kind: ReportJobKind; facilityId: string; reportId: string; total: number }): Promise<ReportJob>;
  get(id: string): Promise<ReportJob | undefined>;
  update(id: string, progress: ReportJobProgress): Promise<void>;
  /** Touches updated_at of live jobs (so other instances can tell a live job from an orphan). */
  heartbeat(ids: readonly string[]): Promise<void>;
  /** Queued or running jobs not touched for `staleAfterMs` get status failed with `reason`; returns how many. */
  failStale(staleAfterMs: number, reason: string): Promise<number>;
}

/** Port: the stored submissions of a report. */
export interface ReportSubmissions {
  /** Patients with stored results (their outcome): what re-validation fetches again and re-categorization touches. */
  validatedPatients(facilityId: string, reportId: string): Promise<string[]>;
  /** Categorizes the patient's stored issues with `categorizer`; updates the stored verdict, and announces it when it changed. */
  recategorizePatient(key: SubmissionKey, categorizer: Categorizer): Promise<void>;
}
