import type { EntityManager } from '@mikro-orm/postgresql';
import type { MeasureMapping } from '../../domain/measure-mapping.js';
import type { MeasureMappingRepository } from '../../domain/ports/measure-mapping-repository.js';
import { storedMember } from '#adapters/persistence/index.js';
import { FREQUENCIES } from '../../domain/reporting-period.js';
import { translateConstraints } from './constraint-errors.js';
import { MeasureMappingEntity, type MeasureMappingRow } from './entities.js';

type MappingRow = MeasureMappingRow;

function toMapping(row: MappingRow): MeasureMapping {
  return {
    id: row.id, dqm: row.dqm, measure: row.measure, frequency: storedMember(FREQUENCIES, row.frequency, 'measure_mapping.frequency'),
    createDate: row.createDate, modifyDate: row.modifyDate ?? null,
  };
}

const DUPLICATE = (mapping: MeasureMapping) =>
  `a measure mapping for measure ${JSON.stringify(mapping.measure)} and dqm ${JSON.stringify(mapping.dqm)} already exists`;

export class MikroMeasureMappingRepository implements MeasureMappingRepository {
  constructor(private readonly em: EntityManager) {}

  async findById(id: string): Promise<MeasureMapping | null> {
    const row = await this.em.findOne(MeasureMappingEntity, { id }, { disableIdentityMap: true });
    return row ? toMapping(row) : null;
  }

  async list(): Promise<MeasureMapping[]> {
    const rows = await this.em.find(MeasureMappingEntity, {}, { orderBy: { measure: 'asc', dqm: 'asc' }, disableIdentityMap: true });
    return rows.map(toMapping);
  }

  async insert(mapping: MeasureMapping): Promise<void> {
    await translateConstraints(() => this.em.insert(MeasureMappingEntity, { ...mapping }), { unique: DUPLICATE(mapping), field: 'measure' });
  }

  async update(mapping: MeasureMapping): Promise<void> {
    const { id, ...changes } = mapping;
    await translateConstraints(() => this.em.nativeUpdate(MeasureMappingEntity, { id }, changes), { unique: DUPLICATE(mapping), field: 'measure' });
  }

  async remove(id: string): Promise<void> {
    await this.em.nativeDelete(MeasureMappingEntity, { id });
  }

  removeAll(): Promise<number> {
    return this.em.nativeDelete(MeasureMappingEntity, {});
  }
}
