import type { ClaimedReportJob, ReportJob, ReportJobKind, ReportJobProgress } from '../report-jobs/report-job.js';

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
