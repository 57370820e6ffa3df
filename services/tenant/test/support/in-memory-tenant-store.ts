/**
 * TenantStore in memory, for unit tests of the tenant's use cases and scheduler. It is held to the
 * same contract as MikroTenantStore (persistence/tenant-store.contract.int.spec.ts): a write is one
 * transaction (its repository writes and outbox messages commit together, a thrown error leaves
 * nothing), writes run one after another, reads see what is committed and cannot write events; the
 * database's unique indexes and foreign keys answer as ConflictError with the same messages (plans
 * go with their facility, as `on delete cascade` does); searches and lists sort and page like the
 * SQL (ties by id, nulls last ascending and first descending). Audit events and report requests are
 * checked against their contracts as the transactional outbox checks them (a bad one fails the write).
 *
 * Text sorts by UTF-16 code units: tests that compare orders with PostgreSQL use one case of ASCII.
 */
import { pendingOutboxRow } from '#adapters/persistence/index.js';
import { catalog as productionCatalog, type Catalog } from '#contracts/catalog.js';
import { ConflictError } from '#shared-kernel/domain/errors.js';
import { auditPayload, generateReportPayload } from '#tenant/adapters/persistence/tenant-outbox.js';
import type { AuditEvent } from '#tenant/domain/audit.js';
import type { Facility } from '#tenant/domain/facility.js';
import type { MeasureMapping } from '#tenant/domain/measure-mapping.js';
import type { FacilitySortField, Page, PageRequest, PlanSortField, Sort } from '#tenant/domain/paging.js';
import type { FacilityRepository, FacilitySearch } from '#tenant/domain/ports/facility-repository.js';
import type { MeasureMappingRepository } from '#tenant/domain/ports/measure-mapping-repository.js';
import type { PlanFilter, ReportingPlanRepository } from '#tenant/domain/ports/reporting-plan-repository.js';
import type { ScheduleEntry, ScheduleRepository } from '#tenant/domain/ports/schedule-repository.js';
import type { GenerateReportCommand, TenantOutbox } from '#tenant/domain/ports/tenant-outbox.js';
import type { TenantStore, TenantTransaction } from '#tenant/domain/ports/tenant-store.js';
import type { VendorRepository } from '#tenant/domain/ports/vendor-repository.js';
import type { VendorVersionRepository } from '#tenant/domain/ports/vendor-version-repository.js';
import type { ScheduledReport } from '#tenant/domain/report-schedule.js';
import type { Frequency } from '#tenant/domain/reporting-period.js';
import type { FacilityReportingPlan } from '#tenant/domain/reporting-plan.js';
import type { Vendor, VendorVersion } from '#tenant/domain/vendor.js';

/** A message the store's outbox received, with the message id the transactional outbox gives it. */
export type InMemoryOutboxMessage =
  | { readonly name: 'AuditableEventOccurred'; readonly msgId: string; readonly event: AuditEvent }
  | { readonly name: 'ReportScheduled'; readonly msgId: string; readonly report: ScheduledReport }
  | { readonly name: 'GenerateReportRequested'; readonly msgId: string; readonly command: GenerateReportCommand };

interface StoredSchedule extends ScheduleEntry {
  readonly claimedBy: string | null;
}

/** Every table; records are never mutated in place, so a transaction's copy is a copy of the maps. */
interface Tables {
  facilities: Map<string, Facility>;
  plans: Map<string, FacilityReportingPlan>;
  mappings: Map<string, MeasureMapping>;
  vendors: Map<string, Vendor>;
  vendorVersions: Map<string, VendorVersion>;
  schedules: Map<string, StoredSchedule>;
}

function copyOf(tables: Tables): Tables {
  return {
    facilities: new Map(tables.facilities), plans: new Map(tables.plans), mappings: new Map(tables.mappings),
    vendors: new Map(tables.vendors), vendorVersions: new Map(tables.vendorVersions), schedules: new Map(tables.schedules),
  };
}

type Comparable = string | number | boolean | Date | null;

/** PostgreSQL's order of one column: nulls last ascending (first descending), booleans false first. */
function compareValues(a: Comparable, b: Comparable): number {
  if (a === b) return 0;
  if (a === null) return 1;
  if (b === null) return -1;
  const x = a instanceof Date ? a.getTime() : a;
  const y = b instanceof Date ? b.getTime() : b;
  if (x === y) return 0;
  return x < y ? -1 : 1;
}

function byColumns<T>(...columns: ReadonlyArray<{ value: (record: T) => Comparable; descending?: boolean }>) {
  return (a: T, b: T): number => {
    for (const column of columns) {
      const order = compareValues(column.value(a), column.value(b));
      if (order !== 0) return column.descending ? -order : order;
    }
    return 0;
  };
}

function paged<T>(records: readonly T[], page: PageRequest): Page<T> {
  const offset = (page.pageNumber - 1) * page.pageSize;
  return { records: records.slice(offset, offset + page.pageSize), totalCount: records.length };
}

const containsIgnoringCase = (text: string | null, part: string) => text !== null && text.toLowerCase().includes(part.toLowerCase());

function copyFacility(facility: Facility): Facility {
  return {
    ...facility,
    scheduledReports: { daily: [...facility.scheduledReports.daily], weekly: [...facility.scheduledReports.weekly], monthly: [...facility.scheduledReports.monthly] },
    ehrConnections: facility.ehrConnections.map((connection) => ({ ...connection })),
  };
}

const FACILITY_COLUMNS: Readonly<Record<FacilitySortField, (facility: Facility) => Comparable>> = {
  Id: (f) => f.id, FacilityId: (f) => f.facilityId, FacilityName: (f) => f.facilityName, TimeZone: (f) => f.timeZone,
  CreateDate: (f) => f.createDate, ModifyDate: (f) => f.modifyDate,
};

const PLAN_COLUMNS: Readonly<Record<PlanSortField, (plan: FacilityReportingPlan) => Comparable>> = {
  Id: (p) => p.id, FacilityId: (p) => p.facilityId, MeasureMappingId: (p) => p.measureMappingId, ReportingMonth: (p) => p.reportingMonth,
  ReportingYear: (p) => p.reportingYear, IsReporting: (p) => p.isReporting, CreateDate: (p) => p.createDate, ModifyDate: (p) => p.modifyDate,
};

class Facilities implements FacilityRepository {
  constructor(private readonly tables: Tables) {}

  findById(id: string): Promise<Facility | null> {
    const found = this.tables.facilities.get(id);
    return Promise.resolve(found ? copyFacility(found) : null);
  }

  findByFacilityId(facilityId: string): Promise<Facility | null> {
    const found = [...this.tables.facilities.values()].find((facility) => facility.facilityId === facilityId);
    return Promise.resolve(found ? copyFacility(found) : null);
  }

  findByFacilityIds(facilityIds: readonly string[]): Promise<Facility[]> {
    const wanted = new Set(facilityIds);
    return Promise.resolve([...this.tables.facilities.values()].filter((facility) => wanted.has(facility.facilityId)).map(copyFacility));
  }

  search(criteria: FacilitySearch, sort: Sort<FacilitySortField>, page: PageRequest): Promise<Page<Facility>> {
    const descending = sort.order === 'Descending';
    const found = [...this.tables.facilities.values()]
      .filter((facility) => (criteria.includeDeleted || !facility.isDeleted)
        && (criteria.facilityId === undefined || facility.facilityId === criteria.facilityId)
        && (criteria.facilityName === undefined || containsIgnoringCase(facility.facilityName, criteria.facilityName))
        && (criteria.timeZone === undefined || facility.timeZone === criteria.timeZone))
      .sort(byColumns({ value: FACILITY_COLUMNS[sort.by], descending }, { value: (facility) => facility.id, descending }));
    const result = paged(found, page);
    return Promise.resolve({ records: result.records.map(copyFacility), totalCount: result.totalCount });
  }

  list(search: string | undefined, includeDeleted: boolean): Promise<Facility[]> {
    return Promise.resolve([...this.tables.facilities.values()]
      .filter((facility) => (includeDeleted || !facility.isDeleted)
        && (search === undefined || search === '' || containsIgnoringCase(facility.facilityName, search) || containsIgnoringCase(facility.facilityId, search)))
      .sort(byColumns({ value: (facility) => facility.facilityId }))
      .map(copyFacility));
  }

  insert(facility: Facility): Promise<void> {
    this.check(facility);
    this.tables.facilities.set(facility.id, copyFacility(facility));
    return Promise.resolve();
  }

  update(facility: Facility): Promise<void> {
    const stored = this.tables.facilities.get(facility.id);
    if (!stored) return Promise.resolve();
    this.check(facility);
    // The plans' foreign key (no action on update): a facility with plans keeps its FacilityId.
    if (stored.facilityId !== facility.facilityId && [...this.tables.plans.values()].some((plan) => plan.facilityId === stored.facilityId)) {
      throw new ConflictError(`vendorVersionId: no vendor version ${JSON.stringify(facility.vendorVersionId)}`, { field: 'facilityId' });
    }
    this.tables.facilities.set(facility.id, copyFacility(facility));
    return Promise.resolve();
  }

  remove(id: string): Promise<void> {
    const stored = this.tables.facilities.get(id);
    if (!stored) return Promise.resolve();
    this.tables.facilities.delete(id);
    // on delete cascade
    for (const [planId, plan] of this.tables.plans) if (plan.facilityId === stored.facilityId) this.tables.plans.delete(planId);
    return Promise.resolve();
  }

  /** facility_facility_id_uq and the vendor version's foreign key, with translateConstraints' messages. */
  private check(facility: Facility): void {
    if ([...this.tables.facilities.values()].some((other) => other.id !== facility.id && other.facilityId === facility.facilityId)) {
      throw new ConflictError(`facilityId: a facility with facilityId ${JSON.stringify(facility.facilityId)} already exists`, { field: 'facilityId' });
    }
    if (facility.vendorVersionId !== null && !this.tables.vendorVersions.has(facility.vendorVersionId)) {
      throw new ConflictError(`vendorVersionId: no vendor version ${JSON.stringify(facility.vendorVersionId)}`, { field: 'facilityId' });
    }
  }
}

const duplicatePlan = (plan: FacilityReportingPlan) =>
  `a plan for facility ${JSON.stringify(plan.facilityId)}, measure mapping ${JSON.stringify(plan.measureMappingId)} and ${plan.reportingYear}-${String(plan.reportingMonth).padStart(2, '0')} already exists`;

class Plans implements ReportingPlanRepository {
  constructor(private readonly tables: Tables) {}

  findById(id: string): Promise<FacilityReportingPlan | null> {
    return Promise.resolve(this.tables.plans.get(id) ?? null);
  }

  search(sort: Sort<PlanSortField>, page: PageRequest): Promise<Page<FacilityReportingPlan>> {
    const all = [...this.tables.plans.values()].sort(byColumns(
      { value: PLAN_COLUMNS[sort.by], descending: sort.order === 'Descending' }, { value: (plan) => plan.id }));
    return Promise.resolve(paged(all, page));
  }

  findByFacility(facilityId: string, filter: PlanFilter): Promise<FacilityReportingPlan[]> {
    return Promise.resolve([...this.tables.plans.values()]
      .filter((plan) => plan.facilityId === facilityId
        && (filter.month === undefined || plan.reportingMonth === filter.month)
        && (filter.year === undefined || plan.reportingYear === filter.year)
        && (filter.isReporting === undefined || plan.isReporting === filter.isReporting))
      .sort(byColumns({ value: (plan) => plan.reportingYear }, { value: (plan) => plan.reportingMonth }, { value: (plan) => plan.measureMappingId })));
  }

  findForMonths(facilityIds: readonly string[], months: ReadonlyArray<{ year: number; month: number }>): Promise<FacilityReportingPlan[]> {
    const wanted = new Set(facilityIds);
    return Promise.resolve([...this.tables.plans.values()].filter((plan) => wanted.has(plan.facilityId)
      && months.some(({ year, month }) => plan.reportingYear === year && plan.reportingMonth === month)));
  }

  insert(plan: FacilityReportingPlan): Promise<void> {
    this.check(plan);
    this.tables.plans.set(plan.id, { ...plan });
    return Promise.resolve();
  }

  update(plan: FacilityReportingPlan): Promise<void> {
    if (!this.tables.plans.has(plan.id)) return Promise.resolve();
    this.check(plan);
    this.tables.plans.set(plan.id, { ...plan });
    return Promise.resolve();
  }

  remove(id: string): Promise<void> {
    this.tables.plans.delete(id);
    return Promise.resolve();
  }

  removeAll(): Promise<number> {
    const count = this.tables.plans.size;
    this.tables.plans.clear();
    return Promise.resolve(count);
  }

  removeByFacility(facilityId: string): Promise<number> {
    let count = 0;
    for (const [id, plan] of this.tables.plans) {
      if (plan.facilityId === facilityId) {
        this.tables.plans.delete(id);
        count += 1;
      }
    }
    return Promise.resolve(count);
  }

  private check(plan: FacilityReportingPlan): void {
    if ([...this.tables.plans.values()].some((other) => other.id !== plan.id && other.facilityId === plan.facilityId
      && other.measureMappingId === plan.measureMappingId && other.reportingYear === plan.reportingYear && other.reportingMonth === plan.reportingMonth)) {
      throw new ConflictError(duplicatePlan(plan));
    }
    if (![...this.tables.facilities.values()].some((facility) => facility.facilityId === plan.facilityId)) {
      throw new ConflictError(`facilityId: no facility ${JSON.stringify(plan.facilityId)}`);
    }
  }
}

class Mappings implements MeasureMappingRepository {
  constructor(private readonly tables: Tables) {}

  findById(id: string): Promise<MeasureMapping | null> {
    return Promise.resolve(this.tables.mappings.get(id) ?? null);
  }

  list(): Promise<MeasureMapping[]> {
    return Promise.resolve([...this.tables.mappings.values()].sort(byColumns({ value: (m) => m.measure }, { value: (m) => m.dqm })));
  }

  insert(mapping: MeasureMapping): Promise<void> {
    this.check(mapping);
    this.tables.mappings.set(mapping.id, { ...mapping });
    return Promise.resolve();
  }

  update(mapping: MeasureMapping): Promise<void> {
    if (!this.tables.mappings.has(mapping.id)) return Promise.resolve();
    this.check(mapping);
    this.tables.mappings.set(mapping.id, { ...mapping });
    return Promise.resolve();
  }

  remove(id: string): Promise<void> {
    this.tables.mappings.delete(id);
    return Promise.resolve();
  }

  removeAll(): Promise<number> {
    const count = this.tables.mappings.size;
    this.tables.mappings.clear();
    return Promise.resolve(count);
  }

  private check(mapping: MeasureMapping): void {
    if ([...this.tables.mappings.values()].some((other) => other.id !== mapping.id && other.measure === mapping.measure && other.dqm === mapping.dqm)) {
      throw new ConflictError(`a measure mapping for measure ${JSON.stringify(mapping.measure)} and dqm ${JSON.stringify(mapping.dqm)} already exists`, { field: 'measure' });
    }
  }
}

class Vendors implements VendorRepository {
  constructor(private readonly tables: Tables) {}

  findById(id: string): Promise<Vendor | null> {
    return Promise.resolve(this.tables.vendors.get(id) ?? null);
  }

  list(): Promise<Vendor[]> {
    return Promise.resolve([...this.tables.vendors.values()].sort(byColumns({ value: (vendor) => vendor.name })));
  }

  insert(vendor: Vendor): Promise<void> {
    this.check(vendor);
    this.tables.vendors.set(vendor.id, { ...vendor });
    return Promise.resolve();
  }

  update(vendor: Vendor): Promise<void> {
    if (!this.tables.vendors.has(vendor.id)) return Promise.resolve();
    this.check(vendor);
    this.tables.vendors.set(vendor.id, { ...vendor });
    return Promise.resolve();
  }

  remove(id: string): Promise<void> {
    if ([...this.tables.vendorVersions.values()].some((version) => version.vendorId === id)) {
      throw new ConflictError(`vendor ${JSON.stringify(id)} still has versions`);
    }
    this.tables.vendors.delete(id);
    return Promise.resolve();
  }

  private check(vendor: Vendor): void {
    if ([...this.tables.vendors.values()].some((other) => other.id !== vendor.id && other.name === vendor.name)) {
      throw new ConflictError(`name: a vendor named ${JSON.stringify(vendor.name)} already exists`, { field: 'name' });
    }
  }
}

class VendorVersions implements VendorVersionRepository {
  constructor(private readonly tables: Tables) {}

  findById(id: string): Promise<VendorVersion | null> {
    return Promise.resolve(this.tables.vendorVersions.get(id) ?? null);
  }

  list(vendorId?: string): Promise<VendorVersion[]> {
    return Promise.resolve([...this.tables.vendorVersions.values()]
      .filter((version) => vendorId === undefined || version.vendorId === vendorId)
      .sort(byColumns({ value: (version) => version.vendorId }, { value: (version) => version.version })));
  }

  insert(version: VendorVersion): Promise<void> {
    this.check(version);
    this.tables.vendorVersions.set(version.id, { ...version });
    return Promise.resolve();
  }

  update(version: VendorVersion): Promise<void> {
    if (!this.tables.vendorVersions.has(version.id)) return Promise.resolve();
    this.check(version);
    this.tables.vendorVersions.set(version.id, { ...version });
    return Promise.resolve();
  }

  remove(id: string): Promise<void> {
    if ([...this.tables.facilities.values()].some((facility) => facility.vendorVersionId === id)) {
      throw new ConflictError(`vendor version ${JSON.stringify(id)} is used by a facility`);
    }
    this.tables.vendorVersions.delete(id);
    return Promise.resolve();
  }

  private check(version: VendorVersion): void {
    if ([...this.tables.vendorVersions.values()].some((other) => other.id !== version.id && other.vendorId === version.vendorId && other.version === version.version)) {
      throw new ConflictError(`version: vendor ${JSON.stringify(version.vendorId)} already has version ${JSON.stringify(version.version)}`, { field: 'version' });
    }
    if (!this.tables.vendors.has(version.vendorId)) {
      throw new ConflictError('the record is referenced by or refers to another record', { field: 'version' });
    }
  }
}

const scheduleKey = (facilityId: string, frequency: Frequency) => `${facilityId}\u0000${frequency}`;

function toEntry(stored: ScheduleEntry): ScheduleEntry {
  return {
    facilityId: stored.facilityId, frequency: stored.frequency, timeZone: stored.timeZone,
    nextFireAt: new Date(stored.nextFireAt), lastFiredPeriodStart: stored.lastFiredPeriodStart === null ? null : new Date(stored.lastFiredPeriodStart),
  };
}

class Schedules implements ScheduleRepository {
  constructor(private readonly tables: Tables, private readonly inTransaction: boolean) {}

  findByFacility(facilityId: string): Promise<ScheduleEntry[]> {
    return Promise.resolve([...this.tables.schedules.values()]
      .filter((entry) => entry.facilityId === facilityId)
      .sort(byColumns({ value: (entry) => entry.frequency }))
      .map(toEntry));
  }

  save(entry: ScheduleEntry): Promise<void> {
    const key = scheduleKey(entry.facilityId, entry.frequency);
    this.tables.schedules.set(key, { ...toEntry(entry), claimedBy: this.tables.schedules.get(key)?.claimedBy ?? null });
    return Promise.resolve();
  }

  async saveMany(entries: readonly ScheduleEntry[]): Promise<void> {
    for (const entry of entries) await this.save(entry);
  }

  remove(facilityId: string, frequency: Frequency): Promise<void> {
    this.tables.schedules.delete(scheduleKey(facilityId, frequency));
    return Promise.resolve();
  }

  removeAllFor(facilityId: string): Promise<void> {
    for (const [key, entry] of this.tables.schedules) if (entry.facilityId === facilityId) this.tables.schedules.delete(key);
    return Promise.resolve();
  }

  claimDue(now: Date, limit: number, claimedBy: string): Promise<ScheduleEntry[]> {
    if (!this.inTransaction) return Promise.reject(new Error('claimDue must run inside a transaction: the row locks end with it'));
    const due = [...this.tables.schedules.entries()]
      .filter(([, entry]) => entry.nextFireAt.getTime() <= now.getTime())
      .sort(([, a], [, b]) => a.nextFireAt.getTime() - b.nextFireAt.getTime())
      .slice(0, limit);
    for (const [key, entry] of due) this.tables.schedules.set(key, { ...entry, claimedBy });
    return Promise.resolve(due.map(([, entry]) => toEntry(entry)));
  }
}

const READ_ONLY = () => Promise.reject(new Error('events can only be written in a write transaction'));
const READ_ONLY_OUTBOX: TenantOutbox = { auditableEventOccurred: READ_ONLY, reportsScheduled: READ_ONLY, generateReportRequested: READ_ONLY };

class PendingOutbox implements TenantOutbox {
  readonly messages: InMemoryOutboxMessage[] = [];

  constructor(private readonly catalog: Catalog) {}

  auditableEventOccurred(event: AuditEvent): Promise<void> {
    pendingOutboxRow({ subject: this.catalog.byName('AuditableEventOccurred').subject, payload: auditPayload(event) });
    this.messages.push({ name: 'AuditableEventOccurred', msgId: `audit-${event.correlationId}`, event });
    return Promise.resolve();
  }

  reportsScheduled(reports: readonly ScheduledReport[]): Promise<void> {
    for (const report of reports) this.messages.push({ name: 'ReportScheduled', msgId: report.messageId, report });
    return Promise.resolve();
  }

  generateReportRequested(command: GenerateReportCommand): Promise<void> {
    pendingOutboxRow({ subject: this.catalog.byName('GenerateReportRequested').subject, payload: generateReportPayload(command) });
    this.messages.push({ name: 'GenerateReportRequested', msgId: `generate-report-${command.requestId}`, command });
    return Promise.resolve();
  }
}

function transactionOn(tables: Tables, outbox: TenantOutbox, inTransaction: boolean): TenantTransaction {
  return {
    facilities: new Facilities(tables), plans: new Plans(tables), mappings: new Mappings(tables), vendors: new Vendors(tables),
    vendorVersions: new VendorVersions(tables), schedules: new Schedules(tables, inTransaction), outbox,
  };
}

export interface InMemoryTenantStoreOptions {
  /** Called after a write committed (the Mikro store's hook for the outbox relay). */
  readonly afterCommit?: () => void;
  /** Whose contracts the messages are checked against; default: the production catalog. */
  readonly catalog?: Catalog;
}

export class InMemoryTenantStore implements TenantStore {
  /** Every message committed, oldest first (what the relay would publish). */
  readonly messages: InMemoryOutboxMessage[] = [];
  private committed: Tables = {
    facilities: new Map(), plans: new Map(), mappings: new Map(), vendors: new Map(), vendorVersions: new Map(), schedules: new Map(),
  };
  /** Writes run one at a time, each on a copy that replaces the committed tables when it succeeds. */
  private queue: Promise<unknown> = Promise.resolve();

  constructor(private readonly options: InMemoryTenantStoreOptions = {}) {}

  write<T>(work: (tx: TenantTransaction) => Promise<T>): Promise<T> {
    const run = async () => {
      const tables = copyOf(this.committed);
      const outbox = new PendingOutbox(this.options.catalog ?? productionCatalog);
      const result = await work(transactionOn(tables, outbox, true));
      this.committed = tables;
      this.messages.push(...outbox.messages);
      this.options.afterCommit?.();
      return result;
    };
    const done = this.queue.then(run, run);
    this.queue = done.catch(() => undefined);
    return done;
  }

  read<T>(work: (tx: TenantTransaction) => Promise<T>): Promise<T> {
    // A copy: what a read would change is not kept (the contract has reads only read).
    return work(transactionOn(copyOf(this.committed), READ_ONLY_OUTBOX, false));
  }

  /** The ids of the committed messages of one kind, oldest first. */
  sent(name: InMemoryOutboxMessage['name']): string[] {
    return this.messages.filter((message) => message.name === name).map((message) => message.msgId);
  }
}
