import type { VendorVersion } from '../vendor.js';

export interface VendorVersionRepository {
  findById(id: string): Promise<VendorVersion | null>;
  list(vendorId?: string): Promise<VendorVersion[]>;
  insert(version: VendorVersion): Promise<void>;
  update(version: VendorVersion): Promise<void>;
  remove(id: string): Promise<void>;
}
