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

/**
 * Where a job can pick up after a restart: every patient up to and including `after` (in the
 * store's patient order) is done, `done` of them, `errors` of those failed. Patients after it may
 * have been done too (several run at once); they are done again, which both jobs can afford (a
 * re-categorization is the same, a re-validation announces only a changed outcome).
 */
export interface ReportJobCheckpoint {
  readonly after: string;
  readonly done: number;
  readonly errors: number;
}

export type ReportJobProgress = Partial<Pick<ReportJob, 'status' | 'total' | 'done' | 'errors' | 'lastError'>> & {
  readonly checkpoint?: ReportJobCheckpoint;
};

/** A job taken over from an instance that stopped, with where it had got to. */
export interface ClaimedReportJob {
  readonly job: ReportJob;
  /** Undefined when no patient was done yet: it starts from the first. */
  readonly checkpoint?: ReportJobCheckpoint;
}

/** Port: where jobs are kept. */
export interface ReportJobStore {
  create(job: { kind: ReportJobKind; facilityId: string; reportId: string; total: number }): Promise<ReportJob>;
  get(id: string): Promise<ReportJob | undefined>;
  update(id: string, progress: ReportJobProgress): Promise<void>;
  /** Touches updated_at of live jobs (so other instances can tell a live job from an orphan). */
  heartbeat(ids: readonly string[]): Promise<void>;
  /**
   * Takes over the queued or running jobs not touched for `staleAfterMs` (their instance stopped):
   * each is claimed by one instance only (touched, its restarts counted). A job that has been taken
   * over `maxRestarts` times already is failed with `reason` instead (one that stops every instance
   * that runs it must not go round for ever).
   */
  claimStale(staleAfterMs: number, maxRestarts: number, reason: string): Promise<{ claimed: ClaimedReportJob[]; failed: number }>;
}

/** Port: the stored submissions of a report. */
export interface ReportSubmissions {
  /**
   * Patients with stored results (their outcome), in one fixed order: what re-validation fetches
   * again and re-categorization touches. With `after`, only those after that patient (a resumed job).
   */
  validatedPatients(facilityId: string, reportId: string, after?: string): Promise<string[]>;
  /** Categorizes the patient's stored issues with `categorizer`; updates the stored verdict, and announces it when it changed. */
  recategorizePatient(key: SubmissionKey, categorizer: Categorizer): Promise<void>;
}
