import type { EntityManager } from '@mikro-orm/postgresql';
import type { VendorRepository } from '../../domain/ports/vendor-repository.js';
import type { VendorVersionRepository } from '../../domain/ports/vendor-version-repository.js';
import type { Vendor, VendorVersion } from '../../domain/vendor.js';
import { translateConstraints } from './constraint-errors.js';
import { VendorEntity, VendorVersionEntity } from './entities.js';

export class MikroVendorRepository implements VendorRepository {
  constructor(private readonly em: EntityManager) {}

  async findById(id: string): Promise<Vendor | null> {
    const row = await this.em.findOne(VendorEntity, { id }, { disableIdentityMap: true });
    return row ? { id: row.id, name: row.name, authentication: row.authentication ?? null } : null;
  }

  async list(): Promise<Vendor[]> {
    const rows = await this.em.find(VendorEntity, {}, { orderBy: { name: 'asc' }, disableIdentityMap: true });
    return rows.map((row) => ({ id: row.id, name: row.name, authentication: row.authentication ?? null }));
  }

  async insert(vendor: Vendor): Promise<void> {
    await translateConstraints(() => this.em.insert(VendorEntity, { ...vendor }), { unique: `name: a vendor named ${JSON.stringify(vendor.name)} already exists`, field: 'name' });
  }

  async update(vendor: Vendor): Promise<void> {
    const { id, ...changes } = vendor;
    await translateConstraints(() => this.em.nativeUpdate(VendorEntity, { id }, changes), { unique: `name: a vendor named ${JSON.stringify(vendor.name)} already exists`, field: 'name' });
  }

  async remove(id: string): Promise<void> {
    await translateConstraints(() => this.em.nativeDelete(VendorEntity, { id }), { unique: '', foreignKey: `vendor ${JSON.stringify(id)} still has versions` });
  }
}

export class MikroVendorVersionRepository implements VendorVersionRepository {
  constructor(private readonly em: EntityManager) {}

  async findById(id: string): Promise<VendorVersion | null> {
    const row = await this.em.findOne(VendorVersionEntity, { id }, { disableIdentityMap: true });
    return row ? { id: row.id, vendorId: row.vendorId, version: row.version } : null;
  }

  async list(vendorId?: string): Promise<VendorVersion[]> {
    const rows = await this.em.find(VendorVersionEntity, vendorId === undefined ? {} : { vendorId }, {
      orderBy: { vendorId: 'asc', version: 'asc' }, disableIdentityMap: true,
    });
    return rows.map((row) => ({ id: row.id, vendorId: row.vendorId, version: row.version }));
  }

  async insert(version: VendorVersion): Promise<void> {
    await translateConstraints(() => this.em.insert(VendorVersionEntity, { ...version }), {
      unique: `version: vendor ${JSON.stringify(version.vendorId)} already has version ${JSON.stringify(version.version)}`, field: 'version',
    });
  }

  async update(version: VendorVersion): Promise<void> {
    const { id, ...changes } = version;
    await translateConstraints(() => this.em.nativeUpdate(VendorVersionEntity, { id }, changes), {
      unique: `version: vendor ${JSON.stringify(version.vendorId)} already has version ${JSON.stringify(version.version)}`, field: 'version',
    });
  }

  async remove(id: string): Promise<void> {
    await translateConstraints(() => this.em.nativeDelete(VendorVersionEntity, { id }), {
      unique: '', foreignKey: `vendor version ${JSON.stringify(id)} is used by a facility`,
    });
  }
}
