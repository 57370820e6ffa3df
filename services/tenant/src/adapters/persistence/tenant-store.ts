import type { EntityManager, MikroORM } from '@mikro-orm/postgresql';
import type { Catalog } from '#contracts/catalog.js';
import type { TenantOutbox } from '../../domain/ports/tenant-outbox.js';
import type { TenantStore, TenantTransaction } from '../../domain/ports/tenant-store.js';
import { FacilityOrderCache, type FacilityOrderCacheOptions } from './facility-order-cache.js';
import { MikroFacilityRepository } from './facility-repository.js';
import { MikroMeasureMappingRepository } from './measure-mapping-repository.js';
import { MikroReportingPlanRepository } from './reporting-plan-repository.js';
import { SqlScheduleRepository } from './schedule-repository.js';
import { TransactionalTenantOutbox } from './tenant-outbox.js';
import { MikroVendorRepository, MikroVendorVersionRepository } from './vendor-repositories.js';

const READ_ONLY_OUTBOX: TenantOutbox = {
  auditableEventOccurred: () => Promise.reject(new Error('events can only be written in a write transaction')),
  reportsScheduled: () => Promise.reject(new Error('events can only be written in a write transaction')),
  generateReportRequested: () => Promise.reject(new Error('events can only be written in a write transaction')),
};

function transactionOn(em: EntityManager, outbox: TenantOutbox): TenantTransaction {
  return {
    facilities: new MikroFacilityRepository(em),
    plans: new MikroReportingPlanRepository(em),
    mappings: new MikroMeasureMappingRepository(em),
    vendors: new MikroVendorRepository(em),
    vendorVersions: new MikroVendorVersionRepository(em),
    schedules: new SqlScheduleRepository(em),
    outbox,
  };
}

/**
 * A read: facilities on the ORM's own EntityManager, whose reads are plain SQL on the pool and need no
 * unit of work (a fork per request was a tenth of a facility look-up's CPU); the other repositories
 * share one fork, made when the first of them is used. Reads only: writes through the global
 * EntityManager are refused by MikroORM (allowGlobalContext false).
 */
function readOn(orm: MikroORM, facilityOrders: FacilityOrderCache): TenantTransaction {
  let forked: TenantTransaction | undefined;
  const fork = () => (forked ??= transactionOn(orm.em.fork(), READ_ONLY_OUTBOX));
  return {
    facilities: new MikroFacilityRepository(orm.em, facilityOrders),
    get plans() { return fork().plans; },
    get mappings() { return fork().mappings; },
    get vendors() { return fork().vendors; },
    get vendorVersions() { return fork().vendorVersions; },
    get schedules() { return fork().schedules; },
    outbox: READ_ONLY_OUTBOX,
  };
}

export interface MikroTenantStoreOptions {
  readonly orm: MikroORM;
  readonly catalog: Catalog;
  /** Called after a write transaction committed, e.g. `() => relay.notify()` to publish at once. */
  readonly afterCommit?: () => void;
  /** Bounds of the facility search's cached sort orders (facility-order-cache.ts). */
  readonly facilityOrders?: FacilityOrderCacheOptions;
}

/** TenantStore on MikroORM: every write runs in a transaction on its own EntityManager fork. */
export class MikroTenantStore implements TenantStore {
  /** Shared by every read of this store; never handed to a write transaction. */
  private readonly facilityOrders: FacilityOrderCache;

  constructor(private readonly options: MikroTenantStoreOptions) {
    this.facilityOrders = new FacilityOrderCache(options.facilityOrders);
  }

  async write<T>(work: (tx: TenantTransaction) => Promise<T>): Promise<T> {
    const result = await this.options.orm.em.fork().transactional((em) =>
      work(transactionOn(em, new TransactionalTenantOutbox(em, this.options.catalog))));
    this.options.afterCommit?.();
    return result;
  }

  read<T>(work: (tx: TenantTransaction) => Promise<T>): Promise<T> {
    return work(readOn(this.options.orm, this.facilityOrders));
  }
}
