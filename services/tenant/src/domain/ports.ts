import type { AuditEvent } from './audit.js';
import type { Facility } from './facility.js';
import type { MeasureMapping } from './measure-mapping.js';
import type { Page, PageRequest, Sort, FacilitySortField, PlanSortField } from './paging.js';
import type { ScheduledReport } from './report-schedule.js';
import type { Frequency } from './reporting-period.js';
import type { FacilityReportingPlan } from './reporting-plan.js';
import type { Vendor, VendorVersion } from './vendor.js';

/**
 * Ports the application needs from persistence and messaging. One TenantTransaction is one
 * database transaction: repository writes and outbox messages commit together or not at all.
 */
export interface FacilitySearch {
  readonly facilityId?: string;
  /** Case-insensitive substring. */
  readonly facilityName?: string;
  readonly timeZone?: string;
  readonly includeDeleted: boolean;
}

export interface FacilityRepository {
  findById(id: string): Promise<Facility | null>;
  /** Includes soft-deleted facilities; callers decide what a deleted one means. */
  findByFacilityId(facilityId: string): Promise<Facility | null>;
  /** Several at once (the scheduler's batch); missing ids are simply absent. */
  findByFacilityIds(facilityIds: readonly string[]): Promise<Facility[]>;
  search(criteria: FacilitySearch, sort: Sort<FacilitySortField>, page: PageRequest): Promise<Page<Facility>>;
  /** Every facility (ordered by facilityId) whose name or id contains `search`, case-insensitive. */
  list(search: string | undefined, includeDeleted: boolean): Promise<Facility[]>;
  /** Throws ConflictError when the FacilityId exists (enforced by a unique index). */
  insert(facility: Facility): Promise<void>;
  update(facility: Facility): Promise<void>;
  remove(id: string): Promise<void>;
}

export interface PlanFilter {
  readonly month?: number;
  readonly year?: number;
  readonly isReporting?: boolean;
}

export interface ReportingPlanRepository {
  findById(id: string): Promise<FacilityReportingPlan | null>;
  search(sort: Sort<PlanSortField>, page: PageRequest): Promise<Page<FacilityReportingPlan>>;
  findByFacility(facilityId: string, filter: PlanFilter): Promise<FacilityReportingPlan[]>;
  /** The plans of several facilities for the given months (the scheduler's batch). */
  findForMonths(facilityIds: readonly string[], months: ReadonlyArray<{ year: number; month: number }>): Promise<FacilityReportingPlan[]>;
  /** Throws ConflictError when the facility already has a plan for that mapping and month. */
  insert(plan: FacilityReportingPlan): Promise<void>;
  update(plan: FacilityReportingPlan): Promise<void>;
  remove(id: string): Promise<void>;
  removeAll(): Promise<number>;
  removeByFacility(facilityId: string): Promise<number>;
}

export interface MeasureMappingRepository {
  findById(id: string): Promise<MeasureMapping | null>;
  list(): Promise<MeasureMapping[]>;
  /** Throws ConflictError when (measure, dqm) exists. */
  insert(mapping: MeasureMapping): Promise<void>;
  update(mapping: MeasureMapping): Promise<void>;
  remove(id: string): Promise<void>;
  removeAll(): Promise<number>;
}

export interface VendorRepository {
  findById(id: string): Promise<Vendor | null>;
  list(): Promise<Vendor[]>;
  insert(vendor: Vendor): Promise<void>;
  update(vendor: Vendor): Promise<void>;
  remove(id: string): Promise<void>;
}

export interface VendorVersionRepository {
  findById(id: string): Promise<VendorVersion | null>;
  list(vendorId?: string): Promise<VendorVersion[]>;
  insert(version: VendorVersion): Promise<void>;
  update(version: VendorVersion): Promise<void>;
  remove(id: string): Promise<void>;
}

/** One row of the scheduler's job store: when a facility's next period of one frequency starts. */
export interface ScheduleEntry {
  readonly facilityId: string;
  readonly frequency: Frequency;
  readonly timeZone: string;
  readonly nextFireAt: Date;
  readonly lastFiredPeriodStart: Date | null;
}

export interface ScheduleRepository {
  /**
   * `forUpdate` locks the rows until the transaction ends, so a reschedule waits for a scheduler
   * transaction that holds them and then sees its committed result instead of a stale one.
   */
  findByFacility(facilityId: string, options?: { forUpdate?: boolean }): Promise<ScheduleEntry[]>;
  save(entry: ScheduleEntry): Promise<void>;
  /** Upserts several entries in one statement. */
  saveMany(entries: readonly ScheduleEntry[]): Promise<void>;
  remove(facilityId: string, frequency: Frequency): Promise<void>;
  removeAllFor(facilityId: string): Promise<void>;
  /**
   * Locks up to `limit` entries due at `now` that no other transaction holds
   * (SELECT … FOR UPDATE SKIP LOCKED); the locks last until the transaction ends.
   */
  claimDue(now: Date, limit: number, claimedBy: string): Promise<ScheduleEntry[]>;
}

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

export interface TenantTransaction {
  readonly facilities: FacilityRepository;
  readonly plans: ReportingPlanRepository;
  readonly mappings: MeasureMappingRepository;
  readonly vendors: VendorRepository;
  readonly vendorVersions: VendorVersionRepository;
  readonly schedules: ScheduleRepository;
  readonly outbox: TenantOutbox;
}

export interface TenantStore {
  /** Runs `work` in one database transaction; a thrown error rolls everything back. */
  write<T>(work: (tx: TenantTransaction) => Promise<T>): Promise<T>;
  /** Runs read-only `work` outside a transaction. */
  read<T>(work: (tx: TenantTransaction) => Promise<T>): Promise<T>;
}

/** Source of new ids (UUID v4 in production). */
export type IdGenerator = () => string;
