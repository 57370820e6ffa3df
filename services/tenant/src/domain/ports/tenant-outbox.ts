import type { AuditEvent } from '../audit.js';
import type { ScheduledReport } from '../report-schedule.js';

export interface GenerateReportCommand {
  /** Identifies this request (the message id); a regeneration reuses reportId but not requestId. */
  readonly requestId: string;
  readonly reportId: string;
  readonly facilityId: string;
  /** Period and measures are required for a new report; a regeneration reuses the report's own. */
  readonly startDate?: Date;
  readonly endDate?: Date;
  readonly measures?: readonly string[];
  readonly patientIds?: readonly string[];
  /** True when an existing report is produced again. */
  readonly regenerate: boolean;
  /** Generate without submitting to NHSN. */
  readonly bypassSubmission: boolean;
}

/** Events and commands, written to the transactional outbox of the current transaction. */
export interface TenantOutbox {
  auditableEventOccurred(event: AuditEvent): Promise<void>;
  /** The scheduler's batch, written with multi-row inserts; each carries its deterministic msg id. */
  reportsScheduled(reports: readonly ScheduledReport[]): Promise<void>;
  generateReportRequested(command: GenerateReportCommand): Promise<void>;
}
