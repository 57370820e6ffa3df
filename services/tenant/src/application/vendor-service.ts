import type { Actor } from '../domain/audit.js';
import { ConflictError, NotFoundError, InvalidInputError } from '#shared-kernel/domain/errors.js';
import type { TenantTransaction } from '../domain/ports/tenant-store.js';
import type { Vendor, VendorVersion } from '../domain/vendor.js';
import { validateVendorInput, validateVendorVersionInput } from '../domain/vendor.js';
import { audit, type TenantContext } from './context.js';

/** Vendors (EHR products) and their versions, which facilities reference by vendorVersionId. */
export class VendorService {
  constructor(private readonly context: TenantContext) {}

  listVendors(): Promise<Vendor[]> {
    return this.context.store.read((tx) => tx.vendors.list());
  }

  getVendor(id: string): Promise<Vendor> {
    return this.context.store.read((tx) => this.requireVendor(tx, id));
  }

  createVendor(input: { name: string; authentication?: string | null }, actor: Actor): Promise<Vendor> {
    const values = validateVendorInput(input);
    return this.context.store.write(async (tx) => {
      const vendor: Vendor = { id: this.context.newId(), ...values };
      await tx.vendors.insert(vendor);
      await this.audit(tx, actor, 'Create', 'Vendor', vendor.id, null, vendor);
      return vendor;
    });
  }

  updateVendor(id: string, input: { name: string; authentication?: string | null }, actor: Actor): Promise<Vendor> {
    const values = validateVendorInput(input);
    return this.context.store.write(async (tx) => {
      const before = await this.requireVendor(tx, id);
      const after: Vendor = { ...before, ...values };
      await tx.vendors.update(after);
      await this.audit(tx, actor, 'Update', 'Vendor', id, before, after);
      return after;
    });
  }

  removeVendor(id: string, actor: Actor): Promise<void> {
    return this.context.store.write(async (tx) => {
      const before = await this.requireVendor(tx, id);
      if ((await tx.vendorVersions.list(id)).length > 0) {
        throw new ConflictError(`vendor ${JSON.stringify(id)} still has versions; delete them first`, { field: 'id' });
      }
      await tx.vendors.remove(id);
      await this.audit(tx, actor, 'Delete', 'Vendor', id, before, null);
    });
  }

  listVersions(vendorId?: string): Promise<VendorVersion[]> {
    return this.context.store.read((tx) => tx.vendorVersions.list(vendorId));
  }

  getVersion(id: string): Promise<VendorVersion> {
    return this.context.store.read((tx) => this.requireVersion(tx, id));
  }

  createVersion(input: { vendorId: string; version: string }, actor: Actor): Promise<VendorVersion> {
    const values = validateVendorVersionInput(input);
    return this.context.store.write(async (tx) => {
      await this.assertVendor(tx, values.vendorId);
      const version: VendorVersion = { id: this.context.newId(), ...values };
      await tx.vendorVersions.insert(version);
      await this.audit(tx, actor, 'Create', 'VendorVersion', version.id, null, version);
      return version;
    });
  }

  updateVersion(id: string, input: { vendorId: string; version: string }, actor: Actor): Promise<VendorVersion> {
    const values = validateVendorVersionInput(input);
    return this.context.store.write(async (tx) => {
      const before = await this.requireVersion(tx, id);
      await this.assertVendor(tx, values.vendorId);
      const after: VendorVersion = { ...before, ...values };
      await tx.vendorVersions.update(after);
      await this.audit(tx, actor, 'Update', 'VendorVersion', id, before, after);
      return after;
    });
  }

  removeVersion(id: string, actor: Actor): Promise<void> {
    return this.context.store.write(async (tx) => {
      const before = await this.requireVersion(tx, id);
      await tx.vendorVersions.remove(id);
      await this.audit(tx, actor, 'Delete', 'VendorVersion', id, before, null);
    });
  }

  private audit(tx: TenantTransaction, actor: Actor, action: 'Create' | 'Update' | 'Delete', resource: string, id: string, before: object | null, after: object | null) {
    return audit(this.context, tx, actor, {
      action, resource, resourceId: id, facilityId: null, before, after, notes: `${resource} ${id}: ${action.toLowerCase()}`,
    });
  }

  private async assertVendor(tx: TenantTransaction, vendorId: string): Promise<void> {
    if (!(await tx.vendors.findById(vendorId))) throw InvalidInputError.of('vendorId', `vendorId: no vendor ${JSON.stringify(vendorId)}`);
  }

  private async requireVendor(tx: TenantTransaction, id: string): Promise<Vendor> {
    const vendor = await tx.vendors.findById(id);
    if (!vendor) throw NotFoundError.named('Vendor', id);
    return vendor;
  }

  private async requireVersion(tx: TenantTransaction, id: string): Promise<VendorVersion> {
    const version = await tx.vendorVersions.findById(id);
    if (!version) throw NotFoundError.named('VendorVersion', id);
    return version;
  }
}
