import type { FacilityRepository } from './facility-repository.js';
import type { ReportingPlanRepository } from './reporting-plan-repository.js';
import type { MeasureMappingRepository } from './measure-mapping-repository.js';
import type { VendorRepository } from './vendor-repository.js';
import type { VendorVersionRepository } from './vendor-version-repository.js';
import type { ScheduleRepository } from './schedule-repository.js';
import type { TenantOutbox } from './tenant-outbox.js';

/**
 * What the application needs from persistence and messaging. One TenantTransaction is one
 * database transaction: repository writes and outbox messages commit together or not at all.
 */
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
