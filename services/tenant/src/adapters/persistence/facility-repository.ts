import type { EntityManager } from '@mikro-orm/postgresql';
import { CompiledQuery } from 'kysely';
import type { Facility } from '../../domain/facility.js';
import type { FacilitySortField, Page, PageRequest, Sort } from '../../domain/paging.js';
import type { FacilityRepository, FacilitySearch } from '../../domain/ports/facility-repository.js';
import { translateConstraints, likeContains } from './constraint-errors.js';
import { FacilityEntity, type FacilityRow } from './entities.js';
import type { FacilityOrderCache } from './facility-order-cache.js';
import { facilityRowColumns, searchFacilityRows, type RunQuery, type SqlQuery } from './facility-search.js';

export function toFacility(row: FacilityRow): Facility {
  return {
    id: row.id,
    facilityId: row.facilityId,
    facilityName: row.facilityName ?? null,
    timeZone: row.timeZone,
    scheduledReports: {
      daily: row.scheduledReports?.daily ?? [], weekly: row.scheduledReports?.weekly ?? [], monthly: row.scheduledReports?.monthly ?? [],
    },
    vendorVersionId: row.vendorVersionId ?? null,
    keyId: row.keyId ?? null,
    ehrConnections: (row.ehrConnections ?? []).map((connection) => ({ name: connection.name, clientId: connection.clientId, tokenUrl: connection.tokenUrl })),
    isDeleted: row.isDeleted,
    createDate: row.createDate,
    modifyDate: row.modifyDate ?? null,
  };
}

function toRow(facility: Facility): FacilityRow {
  return {
    ...facility, scheduledReports: { ...facility.scheduledReports }, ehrConnections: facility.ehrConnections.map((connection) => ({ ...connection })),
  } as FacilityRow;
}

/**
 * Facilities on MikroORM. Reads are plain SQL through the connection's query executor (on the
 * transaction's connection inside `store.write`): they only map rows, so the entity machinery
 * (identity map, hydration, change sets) was most of a look-up's CPU and the bulk of the search's.
 * Writes stay on the ORM.
 */
/** A row of `facilityRowColumns()`: MikroORM has the driver hand timestamps over as text. */
type SqlFacilityRow = Omit<FacilityRow, 'createDate' | 'modifyDate'> & { createDate: string; modifyDate: string | null };

/**
 * Facilities on MikroORM. Reads are plain SQL through the connection's query executor (on the
 * transaction's connection inside `store.write`): they only map rows, and the entity machinery
 * (identity map, hydration, query building) was most of a look-up's CPU and the bulk of the search's.
 * Writes stay on the ORM.
 */
export class MikroFacilityRepository implements FacilityRepository {
  /** `orders` only outside write transactions (see facility-order-cache.ts). */
  constructor(private readonly em: EntityManager, private readonly orders?: FacilityOrderCache) {}

  private readonly rows: RunQuery = async <Row>(query: SqlQuery) => {
    const result = await this.em.getKysely().executeQuery<Row>(CompiledQuery.raw(query.sql, [...query.parameters]));
    return [...result.rows];
  };

  private toFacility(row: SqlFacilityRow): Facility {
    const platform = this.em.getPlatform();
    return toFacility({ ...row, createDate: platform.parseDate(row.createDate), modifyDate: row.modifyDate === null ? null : platform.parseDate(row.modifyDate) });
  }

  private async facilities(where: string, parameters: readonly unknown[], orderBy = ''): Promise<Facility[]> {
    const rows = await this.rows<SqlFacilityRow>({ sql: `select ${facilityRowColumns()} from facility where ${where} ${orderBy}`, parameters });
    return rows.map((row) => this.toFacility(row));
  }

  async findById(id: string): Promise<Facility | null> {
    return (await this.facilities('id = $1', [id]))[0] ?? null;
  }

  async findByFacilityId(facilityId: string): Promise<Facility | null> {
    return (await this.facilities('facility_id = $1', [facilityId]))[0] ?? null;
  }

  async findByFacilityIds(facilityIds: readonly string[]): Promise<Facility[]> {
    if (facilityIds.length === 0) return [];
    return this.facilities('facility_id = any($1)', [[...facilityIds]]);
  }

  async search(criteria: FacilitySearch, sort: Sort<FacilitySortField>, page: PageRequest): Promise<Page<Facility>> {
    const found = await searchFacilityRows<SqlFacilityRow>(this.rows, this.orders, criteria, sort, page);
    return { records: found.rows.map((row) => this.toFacility(row)), totalCount: found.totalCount };
  }

  async list(search: string | undefined, includeDeleted: boolean): Promise<Facility[]> {
    const clauses = includeDeleted ? ['true'] : ['not is_deleted'];
    const parameters: string[] = [];
    if (search !== undefined && search !== '') {
      parameters.push(likeContains(search));
      clauses.push('(facility_name ilike $1 or facility_id ilike $1)');
    }
    return this.facilities(clauses.join(' and '), parameters, 'order by facility_id');
  }

  async insert(facility: Facility): Promise<void> {
    await translateConstraints(() => this.em.insert(FacilityEntity, toRow(facility)), {
      unique: `facilityId: a facility with facilityId ${JSON.stringify(facility.facilityId)} already exists`,
      foreignKey: `vendorVersionId: no vendor version ${JSON.stringify(facility.vendorVersionId)}`,
      field: 'facilityId',
    });
  }

  async update(facility: Facility): Promise<void> {
    const { id, ...changes } = toRow(facility);
    await translateConstraints(() => this.em.nativeUpdate(FacilityEntity, { id }, changes), {
      unique: `facilityId: a facility with facilityId ${JSON.stringify(facility.facilityId)} already exists`,
      foreignKey: `vendorVersionId: no vendor version ${JSON.stringify(facility.vendorVersionId)}`,
      field: 'facilityId',
    });
  }

  async remove(id: string): Promise<void> {
    await this.em.nativeDelete(FacilityEntity, { id });
  }
}
