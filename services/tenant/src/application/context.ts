import type { Actor, AuditAction, AuditEvent } from '../domain/audit.js';
import { diffProperties } from '../domain/audit.js';
import type { Clock } from '../domain/clock.js';
import type { IdGenerator } from '../domain/ports/id-generator.js';
import type { TenantStore, TenantTransaction } from '../domain/ports/tenant-store.js';

/** What every application service needs. */
export interface TenantContext {
  readonly store: TenantStore;
  readonly clock: Clock;
  readonly newId: IdGenerator;
  readonly settings: TenantSettings;
}

export interface TenantSettings {
  /** MeasureConfig__CheckIfMeasureExists. */
  readonly checkIfMeasureExists: boolean;
}

export interface AuditSubject {
  readonly action: AuditAction;
  readonly resource: string;
  readonly resourceId: string;
  readonly facilityId: string | null;
  readonly before: object | null;
  readonly after: object | null;
  readonly notes: string;
}

/** Writes AuditableEventOccurred for a change into the transaction's outbox. */
export async function audit(context: TenantContext, tx: TenantTransaction, actor: Actor, subject: AuditSubject): Promise<void> {
  const event: AuditEvent = {
    facilityId: subject.facilityId,
    serviceName: 'Tenant',
    correlationId: context.newId(),
    eventDate: context.clock.now().toISOString(),
    userId: actor.userId,
    user: actor.user,
    action: subject.action,
    resource: subject.resource,
    resourceId: subject.resourceId,
    propertyChanges: diffProperties(subject.before, subject.after),
    notes: subject.notes,
  };
  await tx.outbox.auditableEventOccurred(event);
}
