/**
 * Tenant benchmark: `npx tsx services/tenant/bench/tenant-bench.ts [--facilities 10000] [--duration 30] [--connections 100] [--skip-http] [--skip-scheduler]`
 * (intended as `npm run bench:tenant`).
 *
 * 1. HTTP: a fresh database with N facilities, each with two reporting plans; the tenant routes on the
 *    standard app of adapters/http in a separate process (bench-server.ts); autocannon (100 connections, 30 s each) on the paged search
 *    (`GET /api/facilities?pageSize=20&pageNumber=<random>&sortBy=FacilityName`) and on
 *    get-by-facilityId (`GET /api/facilities/<random id>`): requests/s and p99 latency.
 * 2. Scheduler at scale: N facilities whose daily boundary falls at the same instant (UTC midnight),
 *    three scheduler instances (each with its own connection pool and outbox relay, as three processes
 *    would have) polling every second on a clock that reaches the boundary 2 s after start. Measured:
 *    time from the boundary to the last ReportScheduled stored in JetStream, and duplicates
 *    (msg ids published more than once, and messages in the stream beyond N; both must be 0).
 * Everything it creates (database, streams) is removed at the end.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { spawn } from 'node:child_process';
import { MikroORM } from '@mikro-orm/postgresql';
import { connectNats } from '#adapters/messaging/connection.js';
import { provisionCatalog } from '#adapters/messaging/provisioning.js';
import { JetStreamPublisher } from '#adapters/messaging/publisher.js';
import { silentLogger } from '#adapters/observability/logger.js';
import { insertMany, openDatabase, OutboxRelay, type Database } from '#adapters/persistence/index.js';
import { buildCatalog } from '#contracts/catalog.js';
import { ReportScheduler } from '#tenant/application/report-scheduler.js';
import { tenantEntities } from '#tenant/adapters/persistence/entities.js';
import { tenantMigrations } from '#tenant/adapters/persistence/migrations.js';
import { MikroTenantStore } from '#tenant/adapters/persistence/tenant-store.js';
import type { Clock } from '#tenant/domain/clock.js';

const args = process.argv.slice(2);
const option = (name: string, fallback: number): number => {
  const index = args.indexOf(`--${name}`);
  return index >= 0 ? Number(args[index + 1]) : fallback;
};
const FACILITIES = option('facilities', 10_000);
const DURATION = option('duration', 30);
const CONNECTIONS = option('connections', 100);
const PG = { host: process.env.PGHOST ?? '127.0.0.1', port: Number(process.env.PGPORT ?? 5432), user: process.env.PGUSER ?? 'postgres' };
const logger = silentLogger();

async function seed(database: Database): Promise<void> {
  const em = database.orm.em.fork();
  const now = new Date('2026-01-01T00:00:00Z');
  const mappings = [['mm-ach', 'NHSNdQMAcuteCareHospitalInitialPopulation', 'ACH'], ['mm-hypo', 'NHSNGlycemicControlHypoglycemicInitialPopulation', 'HYPO']];
  await insertMany(em, 'measure_mapping', ['id', 'dqm', 'measure', 'frequency', 'create_date'], mappings.map(([id, dqm, measure]) => [id!, dqm!, measure!, 'Daily', now]));
  const facilities = Array.from({ length: FACILITIES }, (_, i) => [
    randomUUID(), `F-${String(i).padStart(6, '0')}`, `Facility ${i} ${randomBytes(3).toString('hex')}`, 'UTC',
    JSON.stringify({ daily: ['ACH', 'HYPO'], weekly: [], monthly: [] }), false, now,
  ] as const);
  await insertMany(em, 'facility', ['id', 'facility_id', 'facility_name', 'time_zone', 'scheduled_reports', 'is_deleted', 'create_date'], facilities);
  const plans = facilities.flatMap(([, facilityId]) => [
    [randomUUID(), facilityId, 'mm-ach', 1, 2026, true, now],
    [randomUUID(), facilityId, 'mm-hypo', 1, 2026, false, now],
  ] as const);
  await insertMany(em, 'facility_reporting_plan', ['id', 'facility_id', 'measure_mapping_id', 'reporting_month', 'reporting_year', 'is_reporting', 'create_date'], plans);
  // Steady state: autovacuum would have run on a table this size; index-only scans need its visibility map.
  await em.execute('vacuum analyze facility');
  await em.execute('vacuum analyze facility_reporting_plan');
}

/** Starts bench-server.ts in its own process and resolves with its base URL and a stop function. */
async function startServer(dbName: string): Promise<{ base: string; stop: () => Promise<void> }> {
  const child = spawn(process.execPath, ['--import', 'tsx', new URL('./bench-server.ts', import.meta.url).pathname], {
    env: { ...process.env, BENCH_DB_NAME: dbName }, stdio: ['ignore', 'pipe', 'inherit'],
  });
  const port = await new Promise<number>((resolve, reject) => {
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const match = /listening (\d+)/.exec(output);
      if (match) resolve(Number(match[1]));
    });
    child.once('exit', (code) => reject(new Error(`bench server exited with ${code}`)));
  });
  return {
    base: `http://127.0.0.1:${port}`,
    stop: () => new Promise<void>((resolve) => {
      child.once('exit', () => resolve());
      child.kill('SIGTERM');
    }),
  };
}

async function httpBench(dbName: string): Promise<void> {
  const server = await startServer(dbName);
  const base = server.base;
  const { default: autocannon } = await import('autocannon' as string);
  const pages = Math.ceil(FACILITIES / 20);
  const scenarios: Array<[string, () => string]> = [
    ['paged search (pageSize 20, random page, sortBy FacilityName)', () => `/api/facilities?pageSize=20&pageNumber=${1 + Math.floor(Math.random() * pages)}&sortBy=FacilityName`],
    ['get by facilityId (random facility)', () => `/api/facilities/F-${String(Math.floor(Math.random() * FACILITIES)).padStart(6, '0')}`],
  ];
  try {
    for (const [name, path] of scenarios) {
      const result = await autocannon({
        url: base, connections: CONNECTIONS, duration: DURATION,
        requests: [{ method: 'GET', setupRequest: (request: Record<string, unknown>) => ({ ...request, path: path() }) }],
      });
      console.log(`${name}: ${Math.round(result.requests.average)} req/s, p99 ${result.latency.p99} ms, p50 ${result.latency.p50} ms, `
        + `non-2xx ${result.non2xx}, errors ${result.errors}, timeouts ${result.timeouts} (${CONNECTIONS} connections, ${DURATION} s)`);
    }
  } finally {
    await server.stop();
  }
}

async function schedulerBench(database: Database, dbName: string): Promise<void> {
  const catalog = buildCatalog({ subjectRoot: `bench${randomBytes(3).toString('hex')}`, streamSuffix: `_B${randomBytes(3).toString('hex').toUpperCase()}` });
  const nats = await connectNats({ servers: process.env.NATS_URL ?? 'nats://127.0.0.1:4222', name: 'tenant-bench', logger });
  await provisionCatalog(nats.jsm, catalog);
  const subject = catalog.byName('ReportScheduled').subject;
  const stream = catalog.byName('ReportScheduled').stream!;
  // The boundary (a UTC midnight) is reached 2 s after the instances start; the clock runs in real time.
  const boundary = new Date('2026-01-02T00:00:00Z');
  const offset = boundary.getTime() - (Date.now() + 2_000);
  const clock: Clock = { now: () => new Date(Date.now() + offset) };
  const em = database.orm.em.fork();
  await em.execute('delete from report_schedule');
  await em.execute(`insert into report_schedule (facility_id, frequency, time_zone, next_fire_at)
                    select facility_id, 'Daily', time_zone, ? from facility`, [boundary]);

  let duplicates = 0;
  let published = 0;
  let lastPublishedAt = 0;
  const instances = await Promise.all([1, 2, 3].map(async (n) => {
    const orm = await MikroORM.init({ ...PG, dbName, entities: tenantEntities, allowGlobalContext: false, pool: { min: 0, max: 5 } });
    const store = new MikroTenantStore({ orm, catalog });
    const relay = new OutboxRelay({
      orm, publisher: new JetStreamPublisher(nats.js, { catalog }), logger, batchSize: 200, pollIntervalMs: 200,
      onEvent: (event) => {
        if (event.kind !== 'published' || event.subject !== subject) return;
        if (event.duplicate) duplicates++;
        else published++;
        lastPublishedAt = Date.now();
      },
    });
    const scheduler = new ReportScheduler({ store, clock, logger, instanceId: `bench-${n}`, batchSize: 500, pollIntervalMs: 1_000 });
    return { orm, relay, scheduler };
  }));
  for (const instance of instances) {
    instance.scheduler.start();
    instance.relay.start();
  }
  const boundaryRealTime = boundary.getTime() - offset;
  const deadline = Date.now() + 300_000;
  let allCommittedAt = 0;
  while (published < FACILITIES && Date.now() < deadline) {
    if (allCommittedAt === 0) {
      const committed = await em.execute('select count(*)::int as n from outbox_message where subject = ?', [subject]);
      if (committed[0]!.n >= FACILITIES) allCommittedAt = Date.now();
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  await new Promise((resolve) => setTimeout(resolve, 1_500)); // let any stray double fire show up
  for (const instance of instances) {
    await instance.scheduler.stop();
    await instance.relay.stop();
    await instance.orm.close(true);
  }
  const info = await nats.jsm.streams.info(stream, { subjects_filter: subject });
  const inStream = info.state.subjects?.[subject] ?? 0;
  const outboxRows = await em.execute(`select count(*)::int as n, count(distinct msg_id)::int as ids from outbox_message where subject = ?`, [subject]);
  console.log(`scheduler: ${FACILITIES} facilities with the same daily boundary, 3 instances (poll 1 s + jitter): `
    + `boundary → last ReportScheduled in JetStream ${((lastPublishedAt - boundaryRealTime) / 1000).toFixed(2)} s `
    + `(all firings committed to the outbox after ${allCommittedAt ? ((allCommittedAt - boundaryRealTime) / 1000).toFixed(2) : '?'} s); `
    + `published ${published}, in stream ${inStream}, outbox rows ${outboxRows[0]!.n} (distinct msg ids ${outboxRows[0]!.ids}), `
    + `duplicates: ${duplicates} dropped by JetStream, ${Math.max(0, inStream - FACILITIES)} extra in the stream`);
  for (const definition of [...catalog.streams, catalog.deadLetterStream]) await nats.jsm.streams.delete(definition.name).catch(() => undefined);
  await nats.close();
}

async function main(): Promise<void> {
  const dbName = `bench_tenant_${Date.now().toString(36)}_${randomBytes(3).toString('hex')}`;
  const database = await openDatabase({ ...PG, dbName, poolMax: 20, entities: tenantEntities, migrations: tenantMigrations, logger });
  try {
    const started = Date.now();
    await seed(database);
    console.log(`seeded ${FACILITIES} facilities and ${2 * FACILITIES} reporting plans in ${((Date.now() - started) / 1000).toFixed(1)} s`);
    if (!args.includes('--skip-http')) await httpBench(dbName);
    if (!args.includes('--skip-scheduler')) await schedulerBench(database, dbName);
  } finally {
    await database.close();
    const maintenance = await MikroORM.init({ ...PG, dbName: 'postgres', entities: tenantEntities, ensureDatabase: false, allowGlobalContext: true, pool: { min: 0, max: 1 } });
    await maintenance.em.fork().execute(`drop database if exists "${dbName}" with (force)`);
    await maintenance.close(true);
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
