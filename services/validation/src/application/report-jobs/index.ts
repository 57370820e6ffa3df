/** Re-categorize and re-validate a report as background jobs with progress. */
export * from '../../domain/report-jobs/report-job.js';
export { ReportJobService, INTERRUPTED_BY_RESTART, type ReportJobServiceDependencies, type RevalidationFlow } from './report-job-service.js';
export type { ReportJobStore } from '../../domain/ports/report-job-store.js';
export type { ReportSubmissions } from '../../domain/ports/report-submissions.js';
