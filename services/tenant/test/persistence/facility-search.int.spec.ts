import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { CompiledQuery } from 'kysely';
import { insertMany } from '#adapters/persistence/index.js';
import { SYSTEM_ACTOR } from '#tenant/domain/audit.js';
import { FACILITY_SORT_FIELDS, type FacilitySortField, type SortOrder } from '#tenant/domain/paging.js';
import type { FacilitySearch } from '#tenant/domain/ports/facility-repository.js';
import { FacilityService } from '#tenant/application/facility-service.js';
import { FacilityOrderCache } from '#tenant/adapters/persistence/facility-order-cache.js';
import { facilitySearchQuery, searchFacilityRows, type RunQuery, type SqlQuery } from '#tenant/adapters/persistence/facility-search.js';
import { MikroTenantStore } from '#tenant/adapters/persistence/tenant-store.js';
import { openTenantTestDatabase, type TenantTestDatabase } from '../support/tenant-database.js';

const COLUMNS: Record<FacilitySortField, string> = {
  Id: 'id', FacilityId: 'facility_id', FacilityName: 'facility_name', TimeZone: 'time_zone', CreateDate: 'create_date', ModifyDate: 'modify_date',
};
const ZONES = ['America/Chicago', 'UTC', 'Europe/London', 'Asia/Tokyo'];
const FACILITIES = 240;
const PAGE_SIZE = 25;

describe('tenant: paged facility search, cached orders and stored counts (real PostgreSQL)', function () {
  this.timeout(120_000);
  let db: TenantTestDatabase;
  /** The service's store: unfiltered searches by cached order. */
  let cached: MikroTenantStore;
  /** A store that keeps no order, so every search runs the statement. */
  let statement: MikroTenantStore;

  const sql = async <Row>(text: string, params: unknown[] = []): Promise<Row[]> => db.orm.em.fork().execute(text, params);
  const storeOf = (store: MikroTenantStore) => new FacilityService({ ...db.context, store });

  /** Ties (shared names, zones and dates), nulls (names, modify dates) and soft-deleted rows in every sort. */
  async function seed(count: number, prefix = 'F'): Promise<void> {
    const base = Date.parse('2026-01-01T00:00:00Z');
    await insertMany(db.orm.em.fork(), 'facility',
      ['id', 'facility_id', 'facility_name', 'time_zone', 'scheduled_reports', 'is_deleted', 'create_date', 'modify_date'],
      Array.from({ length: count }, (_, i) => [
        randomUUID(), `${prefix}-${String(i).padStart(4, '0')}`, i % 7 === 0 ? null : `Name ${String(i % 40).padStart(3, '0')}`, ZONES[i % ZONES.length]!,
        { daily: [], weekly: [], monthly: [] }, i % 5 === 0, new Date(base + (i % 30) * 86_400_000), i % 3 === 0 ? null : new Date(base + i * 60_000),
      ]));
    await sql('analyze facility');
  }

  /** The order as PostgreSQL sorts the whole table, id as tie-breaker in the sort's direction. */
  async function reference(by: FacilitySortField, order: SortOrder, includeDeleted: boolean): Promise<string[]> {
    const direction = order === 'Ascending' ? 'asc' : 'desc';
    const rows = await sql<{ id: string }>(`select id from facility ${includeDeleted ? '' : 'where not is_deleted'} order by ${COLUMNS[by]} ${direction}, id ${direction}`);
    return rows.map((row) => row.id);
  }

  /** Every page in turn, and the one past the end (no record, the same total). */
  async function allPages(service: FacilityService, criteria: FacilitySearch, by: FacilitySortField, order: SortOrder): Promise<{ ids: string[]; totals: Set<number> }> {
    const ids: string[] = [];
    const totals = new Set<number>();
    for (let pageNumber = 1; ; pageNumber++) {
      const page = await service.search(criteria, { by, order }, { pageSize: PAGE_SIZE, pageNumber });
      totals.add(page.totalCount);
      if (page.records.length === 0) break;
      ids.push(...page.records.map((facility) => facility.id));
    }
    return { ids, totals };
  }

  async function expectSearchesMatchTable(service: FacilityService, sorts: readonly FacilitySortField[] = FACILITY_SORT_FIELDS): Promise<void> {
    for (const includeDeleted of [false, true]) {
      for (const by of sorts) {
        for (const order of ['Ascending', 'Descending'] as const) {
          const expected = await reference(by, order, includeDeleted);
          const found = await allPages(service, { includeDeleted }, by, order);
          expect(found.ids, `${by} ${order}${includeDeleted ? ' with deleted' : ''}`).to.deep.equal(expected);
          expect([...found.totals], `${by} ${order} totals`).to.deep.equal([expected.length]);
        }
      }
    }
  }

  async function expectStoredCountsExact(): Promise<void> {
    const [stored] = await sql<{ active: string; deleted: string }>('select active, deleted from facility_count');
    const [counted] = await sql<{ active: string; deleted: string }>(
      'select count(*) filter (where not is_deleted) as active, count(*) filter (where is_deleted) as deleted from facility');
    expect({ active: Number(stored!.active), deleted: Number(stored!.deleted) }).to.deep.equal({ active: Number(counted!.active), deleted: Number(counted!.deleted) });
  }

  before(async () => {
    db = await openTenantTestDatabase('fac_search');
  });

  after(async () => {
    await db?.close();
  });

  beforeEach(async () => {
    await db.truncate();
    cached = new MikroTenantStore({ orm: db.orm, catalog: db.catalog });
    statement = new MikroTenantStore({ orm: db.orm, catalog: db.catalog, facilityOrders: { maxRows: 0 } });
    await seed(FACILITIES);
  });

  it('pages of every sortBy in both orders, active only and with deleted, are the table\'s order with its total: by cached order and by statement', async () => {
    await expectSearchesMatchTable(storeOf(cached));
    await expectSearchesMatchTable(storeOf(statement));
  });

  it('a write by this instance or another is in the next search of a cached order', async () => {
    const reader = storeOf(cached);
    const otherInstance = storeOf(new MikroTenantStore({ orm: db.orm, catalog: db.catalog }));
    const sorts: FacilitySortField[] = ['FacilityName', 'ModifyDate'];
    await expectSearchesMatchTable(reader, sorts); // every order cached
    const writes = (suffix: string, existing: string, other: string): Array<(service: FacilityService) => Promise<unknown>> => [
      (service) => service.create({ facilityId: `F-new-${suffix}`, facilityName: 'Name 000', timeZone: 'UTC' }, SYSTEM_ACTOR),
      (service) => service.update(`F-new-${suffix}`, { facilityId: `F-new-${suffix}`, facilityName: 'Name 999', timeZone: 'UTC' }, SYSTEM_ACTOR),
      (service) => service.softDelete(existing, SYSTEM_ACTOR),
      (service) => service.restore(existing, SYSTEM_ACTOR),
      (service) => service.remove(other, SYSTEM_ACTOR),
    ];
    for (const [writer, targets] of [[reader, writes('a', 'F-0001', 'F-0002')], [otherInstance, writes('b', 'F-0003', 'F-0004')]] as const) {
      for (const write of targets) {
        await write(writer);
        await expectSearchesMatchTable(reader, sorts);
      }
    }
    await expectStoredCountsExact();
  });

  it('answers a page of a cached order with one statement naming the page\'s ids, and reads the order again after a write', async () => {
    const statements: string[] = [];
    const run: RunQuery = async <Row>(query: SqlQuery) => {
      statements.push(query.sql);
      const { rows } = await db.orm.em.fork().getKysely().executeQuery<Row>(CompiledQuery.raw(query.sql, [...query.parameters]));
      return [...rows];
    };
    const orders = new FacilityOrderCache();
    const search = (pageNumber: number) => searchFacilityRows<{ id: string | null }>(run, orders, { includeDeleted: false }, { by: 'FacilityName', order: 'Descending' }, { pageSize: 10, pageNumber });
    const expected = await reference('FacilityName', 'Descending', false);
    expect((await search(3)).rows.map((row) => row.id)).to.deep.equal(expected.slice(20, 30));
    expect(statements).to.have.length(2); // the order, then the page
    statements.length = 0;
    const deep = await search(Math.ceil(expected.length / 10));
    expect(deep.rows.map((row) => row.id)).to.deep.equal(expected.slice(10 * (Math.ceil(expected.length / 10) - 1)));
    expect(deep.totalCount).to.equal(expected.length);
    expect(statements).to.have.length(1);
    expect(statements[0]).to.include('any($1').and.not.include('offset');
    statements.length = 0;
    await sql('update facility set facility_name = ? where facility_id = ?', ['Name 999', 'F-0001']);
    const after = await search(1);
    expect(after.rows.map((row) => row.id)).to.deep.equal((await reference('FacilityName', 'Descending', false)).slice(0, 10));
    expect(statements).to.have.length(3); // the stale page, the order read again, the page
  });

  it('keeps facility_count exact through single and multi-row inserts, deletes, soft deletes, restores and TRUNCATE', async () => {
    await expectStoredCountsExact();
    await sql('update facility set is_deleted = not is_deleted where facility_id < ?', ['F-0050']);
    await expectStoredCountsExact();
    await sql('update facility set facility_name = facility_name where facility_id < ?', ['F-0010']);
    await expectStoredCountsExact();
    await sql('delete from facility where time_zone = ?', ['UTC']);
    await expectStoredCountsExact();
    await seed(3, 'G');
    await expectStoredCountsExact();
    await sql('truncate facility cascade');
    await expectStoredCountsExact();
    await seed(10);
    await expectStoredCountsExact();
  });

  it('reads the page ids of every sortBy in either direction from an index, without sorting the table', async () => {
    await seed(4_000, 'H'); // enough rows that a sort would cost more than the index
    await sql('vacuum analyze facility'); // the visibility map an index-only scan needs (autovacuum's job in production)
    for (const by of FACILITY_SORT_FIELDS) {
      for (const order of ['Ascending', 'Descending'] as const) {
        const query = facilitySearchQuery({ includeDeleted: false }, { by, order }, { pageSize: 20, pageNumber: 50 });
        const { rows: [plan] } = await db.orm.em.fork().getKysely()
          .executeQuery<{ 'QUERY PLAN': unknown }>(CompiledQuery.raw(`explain (format json) ${query.sql}`, [...query.parameters]));
        const limit = findNode(plan!['QUERY PLAN'], (node) => node['Node Type'] === 'Limit');
        const scan = limit?.Plans?.[0];
        expect(scan?.['Node Type'], `${by} ${order}: ${JSON.stringify(limit)}`).to.equal('Index Only Scan');
        expect(scan?.['Scan Direction']).to.equal(order === 'Ascending' ? 'Forward' : 'Backward');
      }
    }
  });
});

interface PlanNode {
  'Node Type'?: string;
  Plans?: PlanNode[];
  [key: string]: unknown;
}

function findNode(plan: unknown, match: (node: PlanNode) => boolean): PlanNode | undefined {
  const roots: PlanNode[] = Array.isArray(plan) ? plan.map((entry: { Plan?: PlanNode }) => entry.Plan ?? (entry as PlanNode)) : [plan as PlanNode];
  const queue = [...roots];
  while (queue.length > 0) {
    const node = queue.shift()!;
    if (match(node)) return node;
    queue.push(...(node.Plans ?? []));
  }
  return undefined;
}
