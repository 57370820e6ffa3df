import type { EntityManager } from '@mikro-orm/postgresql';
import type { Catalog } from '#contracts/catalog.js';
import { enqueueOutboxMessage, insertMany, OUTBOX_TABLE, uuidV7 } from '#adapters/persistence/index.js';
import type { AuditEvent } from '../../domain/audit.js';
import type { GenerateReportCommand, TenantOutbox } from '../../domain/ports/tenant-outbox.js';
import type { ScheduledReport } from '../../domain/report-schedule.js';

export const SCHEMA_VERSION = '1.0.0';

/**
 * Audit events about resources that belong to no single facility (measure mappings, vendors,
 * bulk deletes) still need a facilityId in AuditableEventOccurred v1; they carry this marker.
 */
export const NO_FACILITY = '*';

/** Last instant of a period: the contract's endDate is inclusive (original: start + 1 period − 1 s). */
export function inclusiveEnd(exclusiveEnd: Date): Date {
  return new Date(exclusiveEnd.getTime() - 1000);
}

export function reportScheduledPayload(report: ScheduledReport, scheduledAt: Date = report.period.start) {
  return {
    schemaVersion: SCHEMA_VERSION,
    facilityId: report.facilityId,
    reportTypes: [...report.measures],
    frequency: report.frequency,
    startDate: report.period.start.toISOString(),
    endDate: inclusiveEnd(report.period.end).toISOString(),
    scheduledAt: scheduledAt.toISOString(),
    timeZone: report.timeZone,
  };
}

export function auditPayload(event: AuditEvent) {
  return {
    schemaVersion: SCHEMA_VERSION,
    facilityId: event.facilityId ?? NO_FACILITY,
    serviceName: event.serviceName,
    correlationId: event.correlationId,
    eventDate: event.eventDate,
    userId: event.userId,
    user: event.user,
    action: event.action,
    resource: event.resource,
    propertyChanges: event.propertyChanges.map((change) => ({ ...change })),
    notes: event.notes,
  };
}

export function generateReportPayload(command: GenerateReportCommand) {
  return {
    schemaVersion: SCHEMA_VERSION,
    facilityId: command.facilityId,
    reportId: command.reportId,
    ...(command.startDate ? { startDate: command.startDate.toISOString() } : {}),
    ...(command.endDate ? { endDate: command.endDate.toISOString() } : {}),
    ...(command.measures ? { reportTypes: [...command.measures] } : {}),
    ...(command.patientIds ? { patientIds: [...command.patientIds] } : {}),
    bypassSubmission: command.bypassSubmission,
    regenerate: command.regenerate,
  };
}

/** TenantOutbox on the shared transactional outbox: rows commit with the change that caused them. */
export class TransactionalTenantOutbox implements TenantOutbox {
  constructor(private readonly em: EntityManager, private readonly catalog: Catalog) {}

  async auditableEventOccurred(event: AuditEvent): Promise<void> {
    await enqueueOutboxMessage(this.em, {
      subject: this.catalog.byName('AuditableEventOccurred').subject, payload: auditPayload(event), msgId: `audit-${event.correlationId}`,
    });
  }

  /**
   * The scheduler's batch as multi-row INSERTs into the shared outbox table: 10,000 facilities with
   * the same boundary would otherwise cost 10,000 round trips. Same columns and defaults as
   * enqueueOutboxMessage (which has no bulk form yet); must run inside the caller's transaction.
   */
  async reportsScheduled(reports: readonly ScheduledReport[]): Promise<void> {
    if (reports.length === 0) return;
    if (!this.em.isInTransaction()) throw new Error('reportsScheduled must run inside a transaction so the events commit with the schedule');
    const subject = this.catalog.byName('ReportScheduled').subject;
    const now = new Date();
    await insertMany(this.em, OUTBOX_TABLE,
      ['id', 'subject', 'payload', 'headers', 'msg_id', 'created_at', 'published_at', 'attempts', 'next_attempt_at', 'last_error'],
      reports.map((report) => [uuidV7(), subject, JSON.stringify(reportScheduledPayload(report)), '{}', report.messageId, now, null, 0, null, null]),
      { chunkSize: 500 });
  }

  async generateReportRequested(command: GenerateReportCommand): Promise<void> {
    await enqueueOutboxMessage(this.em, {
      subject: this.catalog.byName('GenerateReportRequested').subject,
      payload: generateReportPayload(command),
      msgId: `generate-report-${command.requestId}`,
    });
  }
}
