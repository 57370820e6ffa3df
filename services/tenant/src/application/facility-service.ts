import type { Actor } from '../domain/audit.js';
import { ConflictError, NotFoundError, InvalidInputError } from '#shared-kernel/domain/errors.js';
import type { Facility, FacilityInput } from '../domain/facility.js';
import { allScheduledMeasures, measuresFor, scheduledFrequencies, validateFacilityInput } from '../domain/facility.js';
import type { FacilitySortField, Page, PageRequest, Sort } from '../domain/paging.js';
import type { FacilitySearch } from '../domain/ports/facility-repository.js';
import type { ScheduleEntry } from '../domain/ports/schedule-repository.js';
import type { TenantTransaction } from '../domain/ports/tenant-store.js';
import { localIsoDateTime, upcomingPeriodStarts, periodContaining, type Frequency } from '../domain/reporting-period.js';
import { audit, type TenantContext } from './context.js';
import { assertMeasuresExist } from './measure-catalog.js';
import { reschedule } from './rescheduling.js';

const RESOURCE = 'Facility';

export interface GenerateReportRequest {
  readonly startDate: Date;
  readonly endDate: Date;
  /** Defaults to every measure the facility schedules. */
  readonly measures?: readonly string[];
  readonly patientIds?: readonly string[];
  readonly bypassSubmission?: boolean;
}

export interface UpcomingRun {
  readonly frequency: Frequency;
  readonly measures: readonly string[];
  /** The facility's IANA time zone, in which the `...Local` fields are given. */
  readonly timeZone: string;
  /** When the job store will fire next (may be in the past when a firing is overdue), in UTC. */
  readonly nextFireAt: string | null;
  /** The same instant on the facility's wall clock, with its offset (`2026-12-01T00:05:00-05:00`). */
  readonly nextFireAtLocal: string | null;
  /** UTC instants, and the same instants on the facility's wall clock (`end` exclusive). */
  readonly periods: ReadonlyArray<{ start: string; end: string; startLocal: string; endLocal: string }>;
}

/** Use cases of facility configurations. */
export class FacilityService {
  constructor(private readonly context: TenantContext) {}

  search(criteria: FacilitySearch, sort: Sort<FacilitySortField>, page: PageRequest): Promise<Page<Facility>> {
    return this.context.store.read((tx) => tx.facilities.search(criteria, sort, page));
  }

  list(search: string | undefined, includeDeleted: boolean): Promise<Facility[]> {
    return this.context.store.read((tx) => tx.facilities.list(search, includeDeleted));
  }

  /** Soft-deleted facilities are found too; they carry isDeleted true. */
  get(facilityId: string): Promise<Facility> {
    return this.context.store.read((tx) => this.require(tx, facilityId));
  }

  create(input: FacilityInput, actor: Actor): Promise<Facility> {
    const values = validateFacilityInput(input);
    return this.context.store.write(async (tx) => {
      await this.assertReferences(tx, values.scheduledReports, values.vendorVersionId);
      if (await tx.facilities.findByFacilityId(values.facilityId)) {
        throw new ConflictError(`facilityId: a facility with facilityId ${JSON.stringify(values.facilityId)} already exists`, { field: 'facilityId' });
      }
      const facility: Facility = {
        id: this.context.newId(), ...values, ehrConnections: values.ehrConnections ?? [], isDeleted: false, createDate: this.context.clock.now(), modifyDate: null,
      };
      await tx.facilities.insert(facility);
      await reschedule(tx, facility, this.context.clock.now());
      await audit(this.context, tx, actor, {
        action: 'Create', resource: RESOURCE, resourceId: facility.id, facilityId: facility.facilityId, before: null, after: facility,
        notes: `New facility configuration (${facility.id}) created for '${facility.facilityId}'`,
      });
      return facility;
    });
  }

  /** Replaces the configuration of an existing facility; the facilityId itself cannot change. */
  update(facilityId: string, input: FacilityInput & { id?: string | null }, actor: Actor): Promise<Facility> {
    const values = validateFacilityInput(input);
    if (values.facilityId !== facilityId) {
      throw InvalidInputError.of('facilityId', `facilityId in the body (${JSON.stringify(values.facilityId)}) must equal the facilityId in the URL (${JSON.stringify(facilityId)})`);
    }
    return this.context.store.write(async (tx) => {
      const before = await this.require(tx, facilityId);
      if (input.id !== undefined && input.id !== null && input.id !== before.id) {
        throw InvalidInputError.of('id', `id in the body (${JSON.stringify(input.id)}) does not match the facility's id`);
      }
      await this.assertReferences(tx, values.scheduledReports, values.vendorVersionId);
      // The key registry also sets keyId; a client that does not send it must not erase it (null clears it).
      const keyId = input.keyId === undefined ? before.keyId : values.keyId;
      // Likewise the EHR connections: an older client that does not know the field keeps them.
      const ehrConnections = values.ehrConnections ?? before.ehrConnections;
      const after: Facility = { ...before, ...values, keyId, ehrConnections, modifyDate: this.context.clock.now() };
      await tx.facilities.update(after);
      await reschedule(tx, after, this.context.clock.now());
      await audit(this.context, tx, actor, {
        action: 'Update', resource: RESOURCE, resourceId: after.id, facilityId, before, after,
        notes: `Updated facility configuration (${after.id}) for '${facilityId}'`,
      });
      return after;
    });
  }

  /** Removes the facility, its reporting plans and its schedules. */
  remove(facilityId: string, actor: Actor): Promise<void> {
    return this.context.store.write(async (tx) => {
      const before = await this.require(tx, facilityId);
      await tx.plans.removeByFacility(facilityId);
      await tx.schedules.removeAllFor(facilityId);
      await tx.facilities.remove(before.id);
      await audit(this.context, tx, actor, {
        action: 'Delete', resource: RESOURCE, resourceId: before.id, facilityId, before, after: null,
        notes: `Deleted facility configuration (${before.id}) for '${facilityId}'`,
      });
    });
  }

  /** Keeps configuration and history; the facility leaves every list and fires no schedules. */
  softDelete(facilityId: string, actor: Actor): Promise<Facility> {
    return this.setDeleted(facilityId, true, actor);
  }

  restore(facilityId: string, actor: Actor): Promise<Facility> {
    return this.setDeleted(facilityId, false, actor);
  }

  /** Sends GenerateReportRequested for an ad-hoc period; answers the new report id. */
  generateReport(facilityId: string, request: GenerateReportRequest, actor: Actor): Promise<{ reportId: string }> {
    if (!(request.startDate.getTime() < request.endDate.getTime())) {
      throw InvalidInputError.of('endDate', 'endDate must be after startDate');
    }
    const reportId = this.context.newId();
    return this.context.store.write(async (tx) => {
      const facility = await this.requireActive(tx, facilityId);
      const measures = request.measures && request.measures.length > 0 ? [...new Set(request.measures)] : allScheduledMeasures(facility.scheduledReports);
      if (measures.length === 0) throw InvalidInputError.of('measures', 'measures: the facility schedules no measures; name at least one');
      await assertMeasuresExist(this.context, tx, 'measures', measures);
      await tx.outbox.generateReportRequested({
        requestId: this.context.newId(), reportId, facilityId, startDate: request.startDate, endDate: request.endDate, measures,
        ...(request.patientIds && request.patientIds.length > 0 ? { patientIds: request.patientIds } : {}),
        regenerate: false, bypassSubmission: request.bypassSubmission ?? false,
      });
      await audit(this.context, tx, actor, {
        action: 'Create', resource: 'Report', resourceId: reportId, facilityId, before: null, after: null,
        notes: `Generation of report ${reportId} requested for '${facilityId}' (${request.startDate.toISOString()} to ${request.endDate.toISOString()}): ${measures.join(', ')}`,
      });
      return { reportId };
    });
  }

  /** Asks the report service to produce an existing report again (same report id, its own period). */
  regenerateReport(facilityId: string, reportId: string, options: { bypassSubmission?: boolean }, actor: Actor): Promise<{ reportId: string }> {
    return this.context.store.write(async (tx) => {
      await this.requireActive(tx, facilityId);
      await tx.outbox.generateReportRequested({
        requestId: this.context.newId(), reportId, facilityId, regenerate: true, bypassSubmission: options.bypassSubmission ?? false,
      });
      await audit(this.context, tx, actor, {
        action: 'Update', resource: 'Report', resourceId: reportId, facilityId, before: null, after: null,
        notes: `Regeneration of report ${reportId} requested for '${facilityId}'`,
      });
      return { reportId };
    });
  }

  /** The facility's next `count` periods per scheduled frequency and the job store's next firing. */
  nextRuns(facilityId: string, count: number): Promise<UpcomingRun[]> {
    return this.context.store.read(async (tx) => {
      const facility = await this.require(tx, facilityId);
      if (facility.isDeleted) return [];
      const entries = new Map((await tx.schedules.findByFacility(facilityId)).map((entry: ScheduleEntry) => [entry.frequency, entry]));
      const now = this.context.clock.now();
      const zone = facility.timeZone;
      return scheduledFrequencies(facility.scheduledReports).map((frequency) => {
        const nextFireAt = entries.get(frequency)?.nextFireAt;
        return {
          frequency,
          measures: measuresFor(facility.scheduledReports, frequency),
          timeZone: zone,
          nextFireAt: nextFireAt?.toISOString() ?? null,
          nextFireAtLocal: nextFireAt ? localIsoDateTime(nextFireAt, zone) : null,
          periods: upcomingPeriodStarts(frequency, now, zone, count).map((start) => {
            const period = periodContaining(frequency, start, zone);
            return {
              start: period.start.toISOString(), end: period.end.toISOString(),
              startLocal: localIsoDateTime(period.start, zone), endLocal: localIsoDateTime(period.end, zone),
            };
          }),
        };
      });
    });
  }

  private async requireActive(tx: TenantTransaction, facilityId: string): Promise<Facility> {
    const facility = await this.require(tx, facilityId);
    if (facility.isDeleted) throw InvalidInputError.of('facilityId', `facility ${JSON.stringify(facilityId)} is soft-deleted; restore it first`);
    return facility;
  }

  private setDeleted(facilityId: string, isDeleted: boolean, actor: Actor): Promise<Facility> {
    return this.context.store.write(async (tx) => {
      const before = await this.require(tx, facilityId);
      if (before.isDeleted === isDeleted) {
        throw InvalidInputError.of('facilityId', isDeleted
          ? `facility ${JSON.stringify(facilityId)} is already soft-deleted`
          : `facility ${JSON.stringify(facilityId)} is not soft-deleted`);
      }
      const after: Facility = { ...before, isDeleted, modifyDate: this.context.clock.now() };
      await tx.facilities.update(after);
      await reschedule(tx, after, this.context.clock.now());
      await audit(this.context, tx, actor, {
        action: isDeleted ? 'SoftDelete' : 'Restore', resource: RESOURCE, resourceId: after.id, facilityId, before, after,
        notes: `${isDeleted ? 'Soft-deleted' : 'Restored'} facility configuration (${after.id}) for '${facilityId}'`,
      });
      return after;
    });
  }

  private async assertReferences(tx: TenantTransaction, reports: Facility['scheduledReports'], vendorVersionId: string | null): Promise<void> {
    await assertMeasuresExist(this.context, tx, 'scheduledReports', allScheduledMeasures(reports));
    if (vendorVersionId !== null && !(await tx.vendorVersions.findById(vendorVersionId))) {
      throw InvalidInputError.of('vendorVersionId', `vendorVersionId: no vendor version ${JSON.stringify(vendorVersionId)}`);
    }
  }

  private async require(tx: TenantTransaction, facilityId: string): Promise<Facility> {
    const facility = await tx.facilities.findByFacilityId(facilityId);
    if (!facility) throw NotFoundError.named('Facility', facilityId);
    return facility;
  }
}
