/**
 * The bare handler of the tenant benchmark: the two benchmarked requests answered with node:http and
 * node-postgres alone, on the same database and with the same queries as the service's store
 * (facility-search.ts, with a cached sort order of its own), as the floor the service's layers
 * (express, middleware, auth, parameter checks, store, serialisation) are measured against. Nothing
 * but what those two requests need: no other route, no logging, no metrics, no trace ids, no
 * validation beyond reading the numbers.
 * Started by tenant-bench.ts with BENCH_DB_NAME; prints `listening <port>`; stops on SIGTERM.
 */
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import pg from 'pg';
import { FacilityOrderCache } from '#tenant/adapters/persistence/facility-order-cache.js';
import { facilityRowColumns, searchFacilityRows, type SqlQuery } from '#tenant/adapters/persistence/facility-search.js';
import { FACILITY_SORT_FIELDS, type FacilitySortField } from '#tenant/domain/paging.js';

const dbName = process.env.BENCH_DB_NAME;
if (!dbName) throw new Error('BENCH_DB_NAME is required');
// The service's pool size (bench-server.ts opens its database with poolMax 20).
const pool = new pg.Pool({
  host: process.env.PGHOST ?? '127.0.0.1', port: Number(process.env.PGPORT ?? 5432), user: process.env.PGUSER ?? 'postgres', database: dbName, max: 20,
});

interface FacilityRow {
  id: string; facilityId: string; facilityName: string | null; timeZone: string; scheduledReports: { daily?: string[]; weekly?: string[]; monthly?: string[] };
  vendorVersionId: string | null; keyId: string | null; ehrConnections: Array<{ name: string; clientId: string; tokenUrl: string }>;
  isDeleted: boolean; createDate: Date; modifyDate: Date | null;
}
const orders = new FacilityOrderCache();

/** The service's representation (representations.ts), field for field. */
function representation(row: FacilityRow) {
  return {
    id: row.id, facilityId: row.facilityId, facilityName: row.facilityName, timeZone: row.timeZone,
    scheduledReports: { daily: row.scheduledReports.daily ?? [], weekly: row.scheduledReports.weekly ?? [], monthly: row.scheduledReports.monthly ?? [] },
    vendorVersionId: row.vendorVersionId, keyId: row.keyId, ehrConnections: row.ehrConnections, isDeleted: row.isDeleted,
    createDate: row.createDate.toISOString(), modifyDate: row.modifyDate?.toISOString() ?? null,
  };
}

async function rows<Row = FacilityRow>(query: SqlQuery): Promise<Row[]> {
  return (await pool.query<Row>(query.sql, [...query.parameters])).rows;
}

function send(res: ServerResponse, status: number, body?: unknown): void {
  if (body === undefined) {
    res.writeHead(status).end();
    return;
  }
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text) }).end(text);
}

async function search(params: URLSearchParams, res: ServerResponse): Promise<void> {
  const pageSize = Number(params.get('pageSize') ?? 10);
  const pageNumber = Number(params.get('pageNumber') ?? 1);
  const sortBy = (FACILITY_SORT_FIELDS.find((field) => field.toLowerCase() === (params.get('sortBy') ?? 'FacilityId').toLowerCase()) ?? 'FacilityId') as FacilitySortField;
  const page = await searchFacilityRows<FacilityRow>(rows, orders, { includeDeleted: false }, { by: sortBy, order: 'Ascending' }, { pageSize, pageNumber });
  if (page.rows.length === 0) {
    send(res, 204);
    return;
  }
  const { totalCount } = page;
  send(res, 200, {
    records: page.rows.map(representation),
    metadata: { pageSize, pageNumber, totalCount, totalPages: Math.ceil(totalCount / pageSize) },
  });
}

async function get(facilityId: string, res: ServerResponse): Promise<void> {
  const [row] = await rows({ sql: `select ${facilityRowColumns()} from facility where facility_id = $1`, parameters: [facilityId] });
  if (row) send(res, 200, representation(row));
  else send(res, 404, { title: 'Not Found', status: 404 });
}

const server = createServer((req, res) => {
  const url = new URL(req.url ?? '/', 'http://bench');
  const answer = url.pathname === '/api/facilities' ? search(url.searchParams, res)
    : url.pathname.startsWith('/api/facilities/') ? get(decodeURIComponent(url.pathname.slice('/api/facilities/'.length)), res)
      : Promise.resolve(send(res, 404));
  answer.catch((error: unknown) => send(res, 500, { title: 'Internal Server Error', status: 500, detail: String(error) }));
});
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
console.log(`listening ${(server.address() as AddressInfo).port}`);
process.once('SIGTERM', () => {
  server.close(() => void pool.end().then(() => process.exit(0)));
});
