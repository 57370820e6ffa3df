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
import autocannon from 'autocannon';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';
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
import { printRatio } from '#scripts/bench/ratio-line.js';
import { processCpuSeconds } from '#scripts/bench/process-cpu.js';
import { median } from '#scripts/bench/statistics.js';
import { ownChild } from '#scripts/owned-children.js';

const args = process.argv.slice(2);
const option = (name: string, fallback: number): number => {
  const index = args.indexOf(`--${name}`);
  return index >= 0 ? Number(args[index + 1]) : fallback;
};
const FACILITIES = option('facilities', 10_000);
const DURATION = option('duration', 10);
const ROUNDS = option('rounds', 3);
const WARM_UP = option('warm-up', 3);
const ONLY = args.includes('--only') ? args[args.indexOf('--only') + 1]!.split(',') : undefined;
const CONNECTIONS = option('connections', 100);
const PG = { host: process.env.PGHOST ?? '127.0.0.1', port: Number(process.env.PGPORT ?? 5432), user: process.env.PGUSER ?? 'postgres' };
const logger = silentLogger();
const BENCH_ISSUER = 'https://idp.bench';
const BENCH_AUDIENCE = 'nhsn';

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

interface BenchServer {
  readonly base: string;
  /** CPU seconds the server process has used so far (0 where there is no /proc). */
  cpuSeconds(): number;
  stop(): Promise<void>;
}

/** Starts a server script of this folder in its own process; resolves once it printed `listening <port>`. */
async function startServer(script: string, env: Record<string, string>): Promise<BenchServer> {
  const nodeArgs = (process.env.BENCH_SERVER_NODE_ARGS ?? '').split(' ').filter(Boolean); // e.g. --cpu-prof
  const child = ownChild(spawn(process.execPath, [...nodeArgs, '--import', 'tsx', new URL(script, import.meta.url).pathname], {
    env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'inherit'],
  }));
  const port = await new Promise<number>((resolve, reject) => {
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const match = /listening (\d+)/.exec(output);
      if (match) resolve(Number(match[1]));
    });
    child.once('exit', (code) => reject(new Error(`${script} exited with ${code}`)));
  });
  return {
    base: `http://127.0.0.1:${port}`,
    cpuSeconds: () => processCpuSeconds().get(child.pid!)?.seconds ?? 0,
    stop: () => new Promise<void>((resolve) => {
      child.once('exit', () => resolve());
      child.kill('SIGTERM');
    }),
  };
}

interface Run {
  readonly rps: number;
  readonly p50: number;
  readonly p99: number;
  /** The server's CPU milliseconds per request: what it costs, whatever share of the machine it got. */
  readonly cpuMs: number;
}

async function load(server: BenchServer, path: () => string, headers: Record<string, string>, connections: number, duration: number): Promise<Run> {
  const cpuBefore = server.cpuSeconds();
  const result = await autocannon({
    url: server.base, connections, duration, headers,
    requests: [{ method: 'GET', setupRequest: (request) => ({ ...request, path: path() }) }],
  });
  if (result.non2xx > 0 || result.errors > 0 || result.timeouts > 0) {
    throw new Error(`${server.base}: non-2xx ${result.non2xx}, errors ${result.errors}, timeouts ${result.timeouts}`);
  }
  const cpuMs = ((server.cpuSeconds() - cpuBefore) * 1000) / Math.max(1, result.requests.total);
  return { rps: result.requests.average, p50: result.latency.p50, p99: result.latency.p99, cpuMs };
}

/** The bare handler must answer what the service answers, or the ratio compares different work. */
async function assertSameAnswers(service: string, bare: string, paths: readonly string[], headers: Record<string, string>): Promise<void> {
  for (const path of paths) {
    const [a, b] = await Promise.all([fetch(service + path, { headers }), fetch(bare + path)]);
    const [textA, textB] = await Promise.all([a.text(), b.text()]);
    if (a.status !== b.status || textA !== textB) throw new Error(`service and bare handler differ on ${path}: ${a.status} ${textA.slice(0, 200)} / ${b.status} ${textB.slice(0, 200)}`);
  }
}

/**
 * The service (bench-server.ts: the tenant routes on the standard app with the runtime's middleware,
 * JWT auth included) and the bare handler (bare-server.ts: node:http + node-postgres, the same SQL)
 * take turns on the same database: per scenario a warm-up of each, then ROUNDS rounds of service
 * then bare. The ratio of a round is service / bare requests/s; the median over rounds is printed.
 */
async function httpBench(dbName: string): Promise<void> {
  const pair = await generateKeyPair('ES256', { extractable: true });
  const jwk = { ...(await exportJWK(pair.publicKey)), kid: 'bench', alg: 'ES256' };
  const token = await new SignJWT({ permissions: ['IsLinkAdmin'] }).setProtectedHeader({ alg: 'ES256', kid: 'bench', typ: 'at+jwt' })
    .setSubject('bench').setIssuer(BENCH_ISSUER).setAudience(BENCH_AUDIENCE).setExpirationTime('1h').sign(pair.privateKey);
  const headers = { authorization: `Bearer ${token}` };
  const [service, bare] = await Promise.all([
    startServer('./bench-server.ts', { BENCH_DB_NAME: dbName, BENCH_JWK: JSON.stringify(jwk), BENCH_ISSUER, BENCH_AUDIENCE }),
    startServer('./bare-server.ts', { BENCH_DB_NAME: dbName }),
  ]);
  const pages = Math.ceil(FACILITIES / 20);
  const randomFacility = () => `/api/facilities/F-${String(Math.floor(Math.random() * FACILITIES)).padStart(6, '0')}`;
  const scenarios: Array<{ key: string; title: string; path: () => string }> = [
    { key: 'search', title: 'paged search (pageSize 20, random page, sortBy FacilityName)', path: () => `/api/facilities?pageSize=20&pageNumber=${1 + Math.floor(Math.random() * pages)}&sortBy=FacilityName` },
    { key: 'get', title: 'get by facilityId (random facility)', path: randomFacility },
  ];
  try {
    await assertSameAnswers(service.base, bare.base, ['/api/facilities?pageSize=20&pageNumber=1&sortBy=FacilityName', `/api/facilities?pageSize=20&pageNumber=${pages}&sortBy=FacilityName`,
      `/api/facilities?pageSize=20&pageNumber=${pages + 1}&sortBy=FacilityName`, '/api/facilities/F-000000'], headers);
    console.log(`HTTP, ${CONNECTIONS} connections, ${ROUNDS} round(s) of ${DURATION} s per server (loopback; the servers, PostgreSQL and autocannon share the machine)`);
    for (const scenario of scenarios.filter((s) => ONLY === undefined || ONLY.includes(s.key))) {
      for (const server of [service, bare]) await load(server, scenario.path, headers, 10, WARM_UP); // JIT, pools, token cache
      const runs: Array<{ service: Run; bare: Run }> = [];
      for (let round = 0; round < ROUNDS; round++) {
        runs.push({ service: await load(service, scenario.path, headers, CONNECTIONS, DURATION), bare: await load(bare, scenario.path, headers, CONNECTIONS, DURATION) });
      }
      const describe = (run: Run) => `${Math.round(run.rps)} req/s, p50 ${run.p50} ms, p99 ${run.p99} ms, ${run.cpuMs.toFixed(2)} CPU-ms/req`;
      for (const [i, run] of runs.entries()) {
        console.log(`${scenario.title}, round ${i + 1}: service ${describe(run.service)}; bare ${describe(run.bare)}; ratio ${(run.service.rps / run.bare.rps).toFixed(2)}`);
      }
      const med = (pick: (run: { service: Run; bare: Run }) => number) => median(runs.map(pick));
      console.log(`${scenario.title}: service ${Math.round(med((r) => r.service.rps))} req/s, p50 ${med((r) => r.service.p50)} ms, p99 ${med((r) => r.service.p99)} ms, ${med((r) => r.service.cpuMs).toFixed(2)} CPU-ms/req; `
        + `bare ${Math.round(med((r) => r.bare.rps))} req/s, p50 ${med((r) => r.bare.p50)} ms, p99 ${med((r) => r.bare.p99)} ms, ${med((r) => r.bare.cpuMs).toFixed(2)} CPU-ms/req (medians of ${ROUNDS})`);
      // Throughput is the acceptance figure; CPU per request (bare / service) says the same with less of the host's noise.
      printRatio(`tenant.${scenario.key}.service/bare`, med((r) => r.service.rps / r.bare.rps));
      if (runs.every((r) => r.service.cpuMs > 0)) printRatio(`tenant.${scenario.key}.cpu.bare/service`, med((r) => r.bare.cpuMs / r.service.cpuMs));
    }
  } finally {
    await Promise.all([service.stop(), bare.stop()]);
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
