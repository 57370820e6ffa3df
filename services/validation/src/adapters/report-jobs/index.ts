/** PostgreSQL and HTTP adapters of the report jobs (re-categorize, re-validate). */
export { reportJobRoutes } from './report-job-routes.js';
export { PgReportJobStore } from './pg-report-job-store.js';
export { PgReportSubmissions } from './pg-report-submissions.js';
export { ReportJobEntity, CreateReportJobTable, reportJobEntities, reportJobMigrations, REPORT_JOB_TABLE } from './report-job-table.js';
