import type { MeasureMapping } from '../measure-mapping.js';

export interface MeasureMappingRepository {
  findById(id: string): Promise<MeasureMapping | null>;
  list(): Promise<MeasureMapping[]>;
  /** Throws ConflictError when (measure, dqm) exists. */
  insert(mapping: MeasureMapping): Promise<void>;
  update(mapping: MeasureMapping): Promise<void>;
  remove(id: string): Promise<void>;
  removeAll(): Promise<number>;
}
