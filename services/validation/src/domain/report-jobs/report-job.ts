/**
 * Background jobs over one report of one facility (the specification's planned
 * operations): `recategorize` applies the latest category rules to the report's STORED results;
 * `revalidate` runs the whole validation flow again for every patient of the report.
 */

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
