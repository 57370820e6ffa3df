/** Re-categorize and re-validate a report as background jobs with progress. */
export * from './report-job.js';
export { ReportJobService, INTERRUPTED_BY_RESTART, type ReportJobServiceDependencies, type RevalidationFlow } from './report-job-service.js';
