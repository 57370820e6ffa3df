import type { EntityManager, MikroORM } from '@mikro-orm/postgresql';
import type { Catalog } from '#contracts/catalog.js';
import type { TenantOutbox, TenantStore, TenantTransaction } from '../../domain/ports.js';
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

export interface MikroTenantStoreOptions {
  readonly orm: MikroORM;
  readonly catalog: Catalog;
  /** Called after a write transaction committed, e.g. `() => relay.notify()` to publish at once. */
  readonly afterCommit?: () => void;
}

/** TenantStore on MikroORM: every unit of work runs on its own EntityManager fork. */
export class MikroTenantStore implements TenantStore {
  constructor(private readonly options: MikroTenantStoreOptions) {}

  async write<T>(work: (tx: TenantTransaction) => Promise<T>): Promise<T> {
    const result = await this.options.orm.em.fork().transactional((em) =>
      work(transactionOn(em, new TransactionalTenantOutbox(em, this.options.catalog))));
    this.options.afterCommit?.();
    return result;
  }

  read<T>(work: (tx: TenantTransaction) => Promise<T>): Promise<T> {
    return work(transactionOn(this.options.orm.em.fork(), READ_ONLY_OUTBOX));
  }
}
