import type { Vendor } from '../vendor.js';

export interface VendorRepository {
  findById(id: string): Promise<Vendor | null>;
  list(): Promise<Vendor[]>;
  insert(vendor: Vendor): Promise<void>;
  update(vendor: Vendor): Promise<void>;
  remove(id: string): Promise<void>;
}
