import type { EntityManager, FilterQuery } from '@mikro-orm/postgresql';
import type { Facility } from '../../domain/facility.js';
import type { FacilitySortField, Page, PageRequest, Sort } from '../../domain/paging.js';
import type { FacilityRepository, FacilitySearch } from '../../domain/ports.js';
import { translateConstraints, likeContains } from './constraint-errors.js';
import { FacilityEntity, type FacilityRow } from './entities.js';



const SORT_COLUMNS: Record<FacilitySortField, keyof FacilityRow> = {
  Id: 'id', FacilityId: 'facilityId', FacilityName: 'facilityName', TimeZone: 'timeZone', CreateDate: 'createDate', ModifyDate: 'modifyDate',
};

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

export class MikroFacilityRepository implements FacilityRepository {
  constructor(private readonly em: EntityManager) {}

  async findById(id: string): Promise<Facility | null> {
    const row = await this.em.findOne(FacilityEntity, { id }, { disableIdentityMap: true });
    return row ? toFacility(row) : null;
  }

  async findByFacilityId(facilityId: string): Promise<Facility | null> {
    const row = await this.em.findOne(FacilityEntity, { facilityId }, { disableIdentityMap: true });
    return row ? toFacility(row) : null;
  }

  async findByFacilityIds(facilityIds: readonly string[]): Promise<Facility[]> {
    if (facilityIds.length === 0) return [];
    const rows = await this.em.find(FacilityEntity, { facilityId: { $in: [...facilityIds] } }, { disableIdentityMap: true });
    return rows.map(toFacility);
  }

  /**
   * Two cheap queries instead of one expensive one: the page's ids first (an index-only scan for the
   * usual sorts, even at deep offsets), then those rows; the count runs alongside.
   */
  async search(criteria: FacilitySearch, sort: Sort<FacilitySortField>, page: PageRequest): Promise<Page<Facility>> {
    const where: FilterQuery<FacilityRow> = {};
    if (criteria.facilityId !== undefined) where.facilityId = criteria.facilityId;
    if (criteria.facilityName !== undefined) where.facilityName = { $ilike: likeContains(criteria.facilityName) };
    if (criteria.timeZone !== undefined) where.timeZone = criteria.timeZone;
    if (!criteria.includeDeleted) where.isDeleted = false;
    const direction = sort.order === 'Ascending' ? 'asc' : 'desc';
    const [idRows, totalCount] = await Promise.all([
      this.em.find(FacilityEntity, where, {
        fields: ['id'],
        orderBy: { [SORT_COLUMNS[sort.by]]: direction, ...(sort.by === 'Id' ? {} : { id: 'asc' }) },
        limit: page.pageSize,
        offset: (page.pageNumber - 1) * page.pageSize,
        disableIdentityMap: true,
      }),
      this.em.fork().count(FacilityEntity, where),
    ]);
    const ids = idRows.map((row) => row.id);
    if (ids.length === 0) return { records: [], totalCount };
    const rows = await this.em.find(FacilityEntity, { id: { $in: ids } }, { disableIdentityMap: true });
    const byId = new Map(rows.map((row) => [row.id, toFacility(row)]));
    return { records: ids.flatMap((id) => byId.get(id) ?? []), totalCount };
  }

  async list(search: string | undefined, includeDeleted: boolean): Promise<Facility[]> {
    const where: FilterQuery<FacilityRow> = {};
    if (search !== undefined && search !== '') {
      where.$or = [{ facilityName: { $ilike: likeContains(search) } }, { facilityId: { $ilike: likeContains(search) } }];
    }
    if (!includeDeleted) where.isDeleted = false;
    const rows = await this.em.find(FacilityEntity, where, { orderBy: { facilityId: 'asc' }, disableIdentityMap: true });
    return rows.map(toFacility);
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
