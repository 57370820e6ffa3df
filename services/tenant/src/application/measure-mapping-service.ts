import type { Actor } from '../domain/audit.js';
import { NotFoundError } from '#shared-kernel/domain/errors.js';
import type { MeasureMapping, MeasureMappingInput } from '../domain/measure-mapping.js';
import { validateMeasureMappingInput } from '../domain/measure-mapping.js';
import type { TenantTransaction } from '../domain/ports/tenant-store.js';
import { audit, type TenantContext } from './context.js';

const RESOURCE = 'MeasureMapping';

export class MeasureMappingService {
  constructor(private readonly context: TenantContext) {}

  list(): Promise<MeasureMapping[]> {
    return this.context.store.read((tx) => tx.mappings.list());
  }

  get(id: string): Promise<MeasureMapping> {
    return this.context.store.read((tx) => this.require(tx, id));
  }

  create(input: MeasureMappingInput, actor: Actor): Promise<MeasureMapping> {
    const values = validateMeasureMappingInput(input);
    return this.context.store.write(async (tx) => {
      const mapping: MeasureMapping = { id: this.context.newId(), ...values, createDate: this.context.clock.now(), modifyDate: null };
      await tx.mappings.insert(mapping);
      await audit(this.context, tx, actor, {
        action: 'Create', resource: RESOURCE, resourceId: mapping.id, facilityId: null, before: null, after: mapping,
        notes: `Measure mapping ${mapping.id} created (${mapping.measure} → ${mapping.dqm})`,
      });
      return mapping;
    });
  }

  /** The route id wins over any id in the body (specification). */
  update(id: string, input: MeasureMappingInput, actor: Actor): Promise<MeasureMapping> {
    const values = validateMeasureMappingInput(input);
    return this.context.store.write(async (tx) => {
      const before = await this.require(tx, id);
      const after: MeasureMapping = { ...before, ...values, modifyDate: this.context.clock.now() };
      await tx.mappings.update(after);
      await audit(this.context, tx, actor, {
        action: 'Update', resource: RESOURCE, resourceId: id, facilityId: null, before, after,
        notes: `Measure mapping ${id} updated`,
      });
      return after;
    });
  }

  remove(id: string, actor: Actor): Promise<void> {
    return this.context.store.write(async (tx) => {
      const before = await this.require(tx, id);
      await tx.mappings.remove(id);
      await audit(this.context, tx, actor, {
        action: 'Delete', resource: RESOURCE, resourceId: id, facilityId: null, before, after: null, notes: `Measure mapping ${id} deleted`,
      });
    });
  }

  removeAll(actor: Actor): Promise<number> {
    return this.context.store.write(async (tx) => {
      const count = await tx.mappings.removeAll();
      await audit(this.context, tx, actor, {
        action: 'Delete', resource: RESOURCE, resourceId: '*', facilityId: null, before: null, after: null,
        notes: `All measure mappings deleted (${count})`,
      });
      return count;
    });
  }

  private async require(tx: TenantTransaction, id: string): Promise<MeasureMapping> {
    const mapping = await tx.mappings.findById(id);
    if (!mapping) throw NotFoundError.named(RESOURCE, id);
    return mapping;
  }
}
