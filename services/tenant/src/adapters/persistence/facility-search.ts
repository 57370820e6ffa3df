import type { FacilitySortField, PageRequest, Sort } from '../../domain/paging.js';
import type { FacilitySearch } from '../../domain/ports/facility-repository.js';
import { likeContains } from './constraint-errors.js';
import type { FacilityOrder, FacilityOrderCache } from './facility-order-cache.js';

/**
 * The paged facility search, in SQL any node-postgres caller can run (the repository, and the bare
 * handler of bench:tenant, which answers the same requests without the service's layers).
 *
 * - Unfiltered (only is_deleted, the usual search), outside write transactions: the page's ids by
 *   position in a cached sort order (facility-order-cache.ts), then those rows and the table's
 *   version in one statement; the total is the order's length. O(pageSize) in PostgreSQL wherever
 *   the page is.
 * - Otherwise one statement: the page's ids from the sort column's index alone
 *   (`(column, id) include (is_deleted)`, AddFacilitySearchIndexesAndCount) skipping `offset` index
 *   entries, those rows, and the total beside every row: from `facility_count` when unfiltered, else
 *   counted (facilityId: at most one; timeZone: that zone's index range; facilityName: a substring,
 *   so every name). A page past the end has no row and so no total: a second statement counts.
 *
 * Sort columns come from the whitelist below, never from the request; values are bound parameters.
 */

export interface SqlQuery {
  readonly sql: string;
  readonly parameters: readonly unknown[];
}

/** Runs a statement and answers its rows (on whatever connection or transaction the caller holds). */
export type RunQuery = <Row>(query: SqlQuery) => Promise<Row[]>;

/** A page of rows of `facilityRowColumns()` (possibly with extra columns) and the total of the search. */
export interface FacilityRowPage<Row> {
  readonly rows: Row[];
  readonly totalCount: number;
}

const SORT_COLUMNS: Readonly<Record<FacilitySortField, string>> = {
  Id: 'id', FacilityId: 'facility_id', FacilityName: 'facility_name', TimeZone: 'time_zone', CreateDate: 'create_date', ModifyDate: 'modify_date',
};

/** Column of the facility table → field of FacilityRow. */
const ROW_FIELDS: ReadonlyArray<readonly [string, string]> = [
  ['id', 'id'], ['facility_id', 'facilityId'], ['facility_name', 'facilityName'], ['time_zone', 'timeZone'], ['scheduled_reports', 'scheduledReports'],
  ['vendor_version_id', 'vendorVersionId'], ['key_id', 'keyId'], ['ehr_connections', 'ehrConnections'], ['is_deleted', 'isDeleted'],
  ['create_date', 'createDate'], ['modify_date', 'modifyDate'],
];

const selectLists = new Map<string, string>();

/** A select list giving a facility row the names of FacilityRow, so search and look-up rows map alike. */
export function facilityRowColumns(table = 'facility'): string {
  let list = selectLists.get(table);
  if (list === undefined) {
    list = ROW_FIELDS.map(([column, field]) => `${table}.${column} as "${field}"`).join(', ');
    selectLists.set(table, list);
  }
  return list;
}

/** Only is_deleted filters: the stored counts answer the total and a cached order the page. */
function isUnfiltered(criteria: FacilitySearch): boolean {
  return criteria.facilityId === undefined && criteria.facilityName === undefined && criteria.timeZone === undefined;
}

function conditions(criteria: FacilitySearch): { where: string; parameters: unknown[] } {
  const clauses: string[] = [];
  const parameters: unknown[] = [];
  const bind = (value: unknown) => `$${parameters.push(value)}`;
  if (criteria.facilityId !== undefined) clauses.push(`facility_id = ${bind(criteria.facilityId)}`);
  if (criteria.facilityName !== undefined) clauses.push(`facility_name ilike ${bind(likeContains(criteria.facilityName))}`);
  if (criteria.timeZone !== undefined) clauses.push(`time_zone = ${bind(criteria.timeZone)}`);
  if (!criteria.includeDeleted) clauses.push('not is_deleted');
  return { where: clauses.length === 0 ? 'true' : clauses.join(' and '), parameters };
}

function storedCount(criteria: FacilitySearch): string {
  return criteria.includeDeleted ? 'active + deleted' : 'active';
}

function totalExpression(criteria: FacilitySearch, where: string): string {
  return isUnfiltered(criteria) ? `(select ${storedCount(criteria)} from facility_count)` : `(select count(*) from facility where ${where})`;
}

/**
 * `order by` of a sort. Id and FacilityId are unique; any other column needs id as tie-breaker, in
 * the same direction, so one index scan (forwards or backwards) yields the order and a descending
 * order is exactly an ascending one reversed (nulls included: last ascending, first descending).
 */
function orderBy(by: FacilitySortField, direction: 'asc' | 'desc', table = ''): string {
  const column = SORT_COLUMNS[by];
  return column === 'id' || column === 'facility_id'
    ? `${table}${column} ${direction}`
    : `${table}${column} ${direction}, ${table}id ${direction}`;
}

/** One page of the search with its total on every row (`"totalCount"`, a bigint as text). */
export function facilitySearchQuery(criteria: FacilitySearch, sort: Sort<FacilitySortField>, page: PageRequest): SqlQuery {
  const { where, parameters } = conditions(criteria);
  const direction = sort.order === 'Ascending' ? 'asc' : 'desc';
  const limit = `$${parameters.push(page.pageSize)}`;
  const offset = `$${parameters.push((page.pageNumber - 1) * page.pageSize)}`;
  // The unique facility_id index holds facility_id, not id: the page is keyed by what its index holds.
  const key = sort.by === 'FacilityId' ? 'facility_id' : 'id';
  const sql = `with page as (
      select ${key} from facility where ${where} order by ${orderBy(sort.by, direction)} limit ${limit} offset ${offset}
    )
    select ${facilityRowColumns('f')}, ${totalExpression(criteria, where)} as "totalCount"
    from page join facility f on f.${key} = page.${key}
    order by ${orderBy(sort.by, direction, 'f.')}`;
  return { sql, parameters };
}

/** The total alone, for a page past the end. */
export function facilityCountQuery(criteria: FacilitySearch): SqlQuery {
  const { where, parameters } = conditions(criteria);
  return { sql: `select ${totalExpression(criteria, where)} as "totalCount"`, parameters };
}

/** An unfiltered search's ascending order with the version, or no ids when it has more than `maxRows`. */
function orderQuery(criteria: FacilitySearch, by: FacilitySortField, maxRows: number): SqlQuery {
  const { where } = conditions(criteria);
  return {
    sql: `select version::text as "version", case when ${storedCount(criteria)} <= $1
        then (select coalesce(array_agg(id order by ${orderBy(by, 'asc')}), '{}') from facility where ${where}) end as "ids"
      from facility_count`,
    parameters: [maxRows],
  };
}

/** The rows of `ids` beside the current version (one row with null columns when none is found). */
function rowsByIdQuery(ids: readonly string[]): SqlQuery {
  return {
    sql: `select c.version::text as "version", ${facilityRowColumns('f')} from facility_count c left join facility f on f.id = any($1::varchar[])`,
    parameters: [ids],
  };
}

/** The ids of a page, in the sort's direction, from an ascending order. */
function pageIds(order: FacilityOrder, direction: Sort<FacilitySortField>['order'], page: PageRequest): string[] {
  const offset = (page.pageNumber - 1) * page.pageSize;
  if (direction === 'Ascending') return order.ids.slice(offset, offset + page.pageSize);
  const end = order.ids.length - offset;
  return end <= 0 ? [] : order.ids.slice(Math.max(0, end - page.pageSize), end).reverse();
}

async function searchByOrder<Row extends { id: string | null }>(
  run: RunQuery, orders: FacilityOrderCache, criteria: FacilitySearch, sort: Sort<FacilitySortField>, page: PageRequest,
): Promise<FacilityRowPage<Row> | undefined> {
  const key = `${sort.by} ${criteria.includeDeleted ? 'all' : 'active'}`;
  // A second try when a write came in between; writes faster than that fall back to the statement.
  for (let attempt = 0; attempt < 2; attempt++) {
    const order = await orders.get(key, async () => {
      const [read] = await run<{ version: string; ids: string[] | null }>(orderQuery(criteria, sort.by, orders.maxRows));
      return read?.ids ? { version: read.version, ids: read.ids } : null;
    });
    if (order === null) return undefined;
    const ids = pageIds(order, sort.order, page);
    const rows = await run<Row & { version: string }>(rowsByIdQuery(ids));
    if (rows[0]?.version === order.version) {
      const byId = new Map(rows.flatMap((row) => (row.id === null ? [] : [[row.id, row] as const])));
      const found = ids.flatMap((id) => byId.get(id) ?? []);
      if (found.length === ids.length) return { rows: found, totalCount: order.ids.length };
    }
    orders.drop(key, order);
  }
  return undefined;
}

/**
 * The search, by cached order where it can (give `orders` only outside write transactions), else by
 * statement. Rows are in the sort's order; `Row` is what `run` makes of `facilityRowColumns()`.
 */
export async function searchFacilityRows<Row extends { id: string | null }>(
  run: RunQuery, orders: FacilityOrderCache | undefined, criteria: FacilitySearch, sort: Sort<FacilitySortField>, page: PageRequest,
): Promise<FacilityRowPage<Row>> {
  if (orders && isUnfiltered(criteria)) {
    const found = await searchByOrder<Row>(run, orders, criteria, sort, page);
    if (found) return found;
  }
  const rows = await run<Row & { totalCount: string }>(facilitySearchQuery(criteria, sort, page));
  const [first] = rows;
  if (first) return { rows, totalCount: Number(first.totalCount) };
  const [count] = await run<{ totalCount: string }>(facilityCountQuery(criteria));
  return { rows: [], totalCount: Number(count?.totalCount ?? 0) };
}
