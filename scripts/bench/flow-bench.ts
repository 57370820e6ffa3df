/**
 * Validation flow benchmark:
 *
 *   npx tsx scripts/bench/flow-bench.ts [--submissions 500] [--rounds 9] [--instances 1] [--workers 0] [--concurrency 12 per worker] [--commit-gather-ms 50] [--relay-gather-ms 250] [--warm-up 500 per worker] [--kill]
 *
 * 500 patient submissions per round (the NHSN sample Bundles of ../shared/samples/nhsn-ach repeated, every
 * resource id made unique per copy) served by a real HTTP report service as MeasureReports with
 * contained resources; ReadyForValidation for all of them published at once; N validation service
 * instances (separate processes, composed like main.ts: engine host with the IG packages stored as
 * artifacts in ONE shared database, outbox relay, shared durable consumer) do the flow. Prints
 * patients/s and resources/s, p50/p99 from publish to ValidationComplete (read from the stream),
 * and the ratio of this throughput to engine-only throughput: the same resources validated by as
 * many engine-only processes as there are instances, each composed like an instance's engine (same
 * validation.workers, same number of submissions in flight, each submission's bytes handed to the
 * engine as the flow hands them), with nothing else to do (its throughput is the sum of the processes'
 * own rates, since each validates a fixed share); the ratio is the last line. Before it, a ceiling:
 * the ratio the flow would reach if the instances cost no more CPU than the engine-only processes,
 * with PostgreSQL, NATS and the bench's stand-ins taking what they took in the round. Both are warm
 * and long-lived when timed: every process, instance or engine-only, is started once, handles
 * `--warm-up` submissions (default 500 per worker thread, in the same lanes: ~29,000 resources per
 * worker, which is what V8 needs to finish optimising the engine, see engine-bench.ts) before
 * anything is timed, and is kept for
 * every round. (With a warm-up of 50 and fresh engine-only processes per run, the engine-only
 * figure was taken during its JIT warm-up and the ratio flattered the flow.) `--kill` SIGKILLs the
 * last instance after a third of the submissions completed and checks that every submission still
 * completes exactly once.
 *
 * Isolation: a unique database, and a catalog with a random subject root and stream suffix (so a
 * running service or other tests never see the bench's messages); everything is removed at the end.
 *
 * `--analyze-every-ms 5000` (0 = off): the bench starts from an EMPTY results table that grows by
 * a row per submission within seconds, faster than autovacuum's ANALYZE (naptime 1 min) follows.
 * Running ANALYZE every few seconds gives the statistics a long-running database has; pass 0 to
 * see the cold-table effect.
 *
 * `--relay-gather-ms` (default the relay's, DEFAULT_RELAY_GATHER_MS): the outbox relay's gatherMs in the
 * instances, to compare settings back to back.
 *
 * `--instances` and `--workers` (validation.workers of each instance): by default one instance with
 * one worker per core (0), the shape the manifests deploy (one pod, validation.workers = its whole
 * cores); `--kill` needs two and defaults to two instances of one worker each, which on a 2-core
 * machine also use both cores. `--concurrency` (submissions in flight per instance) defaults to the
 * service's (twelve per worker) and `--commit-gather-ms` to the flow store's (DEFAULT_GATHER_MS).
 * Measured on the 2-core bench machine (outbox relay gathering 100 ms, flow store 50 ms): 1 × 2
 * workers with 24 in flight 0.72–0.74 (ceiling ~0.88; 0.61–0.65 the same day before the flow store
 * gathered), 2 × 1 worker with 8 or 12 in flight each 0.60–0.67 (ceiling 0.81): one main thread,
 * relay and consumer serve both workers, with bigger relay batches and group commits. The service
 * always validates in worker threads (deadlines need a thread that can be terminated); when 1 meant
 * the main thread, a pool of one worker per core cost ~40 % more CPU per submission on 2 cores than
 * that.
 *
 * Rounds: the machine's speed drifts (identical engine-only runs a minute apart differed by up to
 * 25 % here, and by up to 55 % at the same CPU time on a busier day of the host), so the bench
 * alternates engine-only and end-to-end measurements: engine-only, round 1, engine-only, round 2, ...
 * (`--rounds`, default 9; each round publishes `--submissions` new copies, default 500, to the same
 * running instances). A round's ratio is its throughput over the mean of the engine-only runs just
 * before and after it; the bench prints every round and the median. Rounds of ~5 s follow the drift
 * more closely than rounds of ~10 s: with 2 or 3 rounds of 1,000 the median of one run ranged 0.50–0.70
 * over ten runs of one day; with 9 rounds of 500, 0.52–0.60 over four runs (both 2 instances × 1 worker). `--kill` runs one round.
 * Compare changes over several runs. Every round also prints the instances' CPU per submission by
 * thread (MainThread, WorkerThread, V8Worker), beside the engine-only processes' same line: where the
 * flow's extra CPU goes (2026-11-29: the workers' share matched engine-only; the main thread took
 * ~1.2-1.5 ms more per submission). `--profile-dir DIR` writes V8 CPU profiles of the instances
 * and engine-only processes (their sampled times include time preempted under contention).
 * Each instance prints its main thread's heap when it stops (after a full GC when run with
 * NODE_OPTIONS=--expose-gc); BENCH_HEAP_SNAPSHOT=FILE also writes a heap snapshot there.
 * BENCH_UTIL_PROFILE=1 prints each round's machine utilization by tenth of the round (it showed the
 * flow's 4–9 % idle spread over the whole round, not at its start or end).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import v8 from 'node:v8';
import path from 'node:path';
import { constants as perfConstants, PerformanceObserver } from 'node:perf_hooks';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { MikroORM } from '@mikro-orm/postgresql';
import type { JsMsg } from '@nats-io/jetstream';
import { buildCatalog, streamLimitsFromEnvironment, type Catalog } from '#contracts/catalog.js';
import { OpenApiBuilder } from '#adapters/http/index.js';
import { connectNats } from '#adapters/messaging/connection.js';
import { provisionCatalog } from '#adapters/messaging/provisioning.js';
import { JetStreamPublisher } from '#adapters/messaging/publisher.js';
import { createLogger, silentLogger } from '#adapters/observability/logger.js';
import { DEFAULT_RELAY_GATHER_MS, openDatabase, OutboxMessageEntity, outboxMigration, OutboxRelay } from '#adapters/persistence/index.js';
import { sharedDir } from '#test-support/shared-dir.js';
import { cpuMsPer, machineCpuSeconds, processCpuSeconds, threadCpuSeconds } from './process-cpu.js';
import { EngineHost } from '#validation/adapters/engine/index.js';
import { validationApiEntities, validationApiMigrations } from '#validation/adapters/http/validation-api-module.js';
import { createValidationApiModule } from '#validation/composition.js';
import { pgValidationApiRepositories } from '#validation/adapters/persistence/validation-api-repositories.js';
import { defaultConsumerConcurrency, startReadyForValidationConsumer } from '#validation/adapters/messaging/ready-for-validation-consumer.js';
import { PgArtifactRepository } from '#validation/adapters/persistence/artifact-repository.js';
import { HttpReportService } from '#validation/adapters/report-service/http-report-service.js';
import { ValidationFlow } from '#validation/application/validation-flow/index.js';
import { DEFAULT_GATHER_MS, groupLimitFor, PgFlowStore } from '#validation/adapters/persistence/pg-flow-store.js';
import { validationFlowEntities, validationFlowMigrations } from '#validation/adapters/persistence/validation-flow-tables.js';
import { median, percentile } from './statistics.js';
import { ratioLine as namedRatioLine } from './ratio-line.js';
import { ownChild } from '../owned-children.js';

const PG = { host: process.env.PGHOST ?? '127.0.0.1', port: Number(process.env.PGPORT ?? 5432), user: process.env.PGUSER ?? 'postgres' };
const NATS = process.env.NATS_URL ?? '127.0.0.1:4222';

function arg(name: string, fallback: string): string {
  const i = process.argv.indexOf(name);
  return i > 0 && process.argv[i + 1] !== undefined ? process.argv[i + 1]! : fallback;
}
const flag = (name: string) => process.argv.includes(name);

/** `--profile-dir DIR`: the instances and engine-only processes write V8 CPU profiles there (named by role). */
function profileArgs(role: string): string[] {
  const dir = arg('--profile-dir', '');
  return dir ? ['--cpu-prof', `--cpu-prof-dir=${dir}`, `--cpu-prof-name=${role}-\${pid}.cpuprofile`] : [];
}

function openBenchDatabase(dbName: string, poolMax = 8) {
  return openDatabase({
    ...PG, dbName, poolMax, logger: silentLogger(),
    entities: [OutboxMessageEntity, ...validationApiEntities, ...validationFlowEntities],
    migrations: [outboxMigration, ...validationApiMigrations, ...validationFlowMigrations],
  });
}

// ---------------------------------------------------------------------------------------------
// Instance mode: one validation service instance, composed like services/validation/src/main.ts.
// ---------------------------------------------------------------------------------------------
async function runInstance(): Promise<void> {
  const writes = new Map<number, number>();
  if (process.env.BENCH_COUNT_WRITES) {
    const proto = net.Socket.prototype as unknown as { _writeGeneric: (...a: unknown[]) => unknown };
    const original = proto._writeGeneric;
    proto._writeGeneric = function (this: net.Socket, ...a: unknown[]) {
      writes.set(this.remotePort ?? 0, (writes.get(this.remotePort ?? 0) ?? 0) + 1);
      return original.apply(this, a);
    };
  }
  const logger = createLogger('flow-bench-instance', process.env.LOG_LEVEL ?? 'warn');
  const catalog = buildCatalog({ subjectRoot: arg('--root', ''), streamSuffix: arg('--suffix', ''), streamLimits: streamLimitsFromEnvironment(process.env.NATS_STREAM_LIMITS, 'local') });
  const db = await openBenchDatabase(arg('--db', ''));
  const nats = await connectNats({ servers: [NATS], name: 'flow-bench-instance', logger });
  const relay = new OutboxRelay({ orm: db.orm, publisher: new JetStreamPublisher(nats.js, { catalog }), logger, pollIntervalMs: 200, gatherMs: Number(arg('--relay-gather-ms', String(DEFAULT_RELAY_GATHER_MS))) });
  // Rows per relay batch, for the summary (each batch costs two statements, whatever its size).
  const relayBatches = { batches: 0, rows: 0 };
  const relayOnce = relay.relayOnce.bind(relay);
  relay.relayOnce = async () => {
    const batch = await relayOnce();
    if (batch.claimed > 0) {
      relayBatches.batches++;
      relayBatches.rows += batch.claimed;
    }
    return batch;
  };
  relay.start();
  const engine = new EngineHost({ artifacts: new PgArtifactRepository(db.orm), workers: Number(arg('--workers', '1')), terminology: {}, logger });
  await engine.start();
  const api = createValidationApiModule({ repositories: pgValidationApiRepositories(db.orm), openApi: new OpenApiBuilder({ title: 'bench', version: '1' }), validator: engine });
  const completion = catalog.byName('ValidationComplete');
  // Always given by the coordinator (the service's default for these workers unless --concurrency).
  const concurrency = Number(arg('--concurrency', '12'));
  const flowImpl = new ValidationFlow({
    source: new HttpReportService({ baseUrl: arg('--report', ''), logger, retries: 1 }),
    validator: engine, categories: api.categories,
    store: new PgFlowStore(db.orm, { gatherMs: Number(arg('--commit-gather-ms', String(DEFAULT_GATHER_MS))), maxGroup: groupLimitFor(concurrency) }),
    completion: { subject: completion.subject, schemaVersion: completion.version },
    afterCommit: ({ lastInFlight }) => relay.notify({ now: lastInFlight }), progressIntervalMs: 1_000,
  });
  const totals = { n: 0, fetchMs: 0, validateMs: 0, categorizeMs: 0, commitMs: 0, handlerMs: 0 };
  const flow = {
    async handle(...args: Parameters<ValidationFlow['handle']>) {
      const started = performance.now();
      const result = await flowImpl.handle(...args);
      totals.n++;
      totals.handlerMs += performance.now() - started;
      for (const k of ['fetchMs', 'validateMs', 'categorizeMs', 'commitMs'] as const) totals[k] += result.timings[k];
      return result;
    },
  };
  const consumer = await startReadyForValidationConsumer({
    js: nats.js, catalog, flow, logger, maxDeliver: 5, concurrency,
    backoffMs: [500], ackWaitMs: 5_000, fetchExpiresMs: 1_000,
  });
  process.stdout.write('ready\n');
  const threadsAtReady = threadCpuSeconds();
  // The main thread's garbage collections since ready, by kind (count, pause ms).
  const collections = new Map<string, { count: number; ms: number }>();
  const gcKinds: Record<number, string> = {
    [perfConstants.NODE_PERFORMANCE_GC_MINOR]: 'minor', [perfConstants.NODE_PERFORMANCE_GC_MAJOR]: 'major',
    [perfConstants.NODE_PERFORMANCE_GC_INCREMENTAL]: 'incremental', [perfConstants.NODE_PERFORMANCE_GC_WEAKCB]: 'weak callbacks',
  };
  new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      const kind = gcKinds[(entry as unknown as { detail: { kind: number } }).detail.kind] ?? 'other';
      const seen = collections.get(kind) ?? { count: 0, ms: 0 };
      seen.count += 1;
      seen.ms += entry.duration;
      collections.set(kind, seen);
    }
  }).observe({ entryTypes: ['gc'] });
  process.once('SIGTERM', () => {
    void (async () => {
      await consumer.stop(5_000);
      const avg = (ms: number) => (totals.n ? (ms / totals.n).toFixed(1) : '-');
      const cpu = process.cpuUsage();
      process.stderr.write(`instance ${process.pid}: CPU ms per submission since ready, by thread: ${cpuMsPer(threadsAtReady, threadCpuSeconds(), totals.n)}\n`);
      (globalThis as { gc?: () => void }).gc?.();
      const heap = v8.getHeapStatistics();
      process.stderr.write(`instance ${process.pid}: main thread heap ${(heap.used_heap_size / 2 ** 20).toFixed(0)} MiB used of ${(heap.total_heap_size / 2 ** 20).toFixed(0)} MiB\n`);
      process.stderr.write(`instance ${process.pid}: main thread GCs since ready: ${[...collections].map(([kind, { count, ms }]) => `${kind} ${count} (${ms.toFixed(0)} ms)`).join(', ')}\n`);
      if (process.env.BENCH_HEAP_SNAPSHOT) v8.writeHeapSnapshot(process.env.BENCH_HEAP_SNAPSHOT);
      if (writes.size) process.stderr.write(`socket writes per submission by remote port: ${[...writes].map(([port, n]) => `${port}: ${(n / totals.n).toFixed(2)}`).join(', ')}\n`);
      process.stderr.write(`instance ${process.pid}: ${totals.n} submissions; mean ms per submission: handler ${avg(totals.handlerMs)} = fetch ${avg(totals.fetchMs)} + validate ${avg(totals.validateMs)} + categorize ${avg(totals.categorizeMs)} + commit ${avg(totals.commitMs)}; process CPU ${((cpu.user + cpu.system) / 1e6).toFixed(1)} s (system ${(cpu.system / 1e6).toFixed(1)} s); outbox relay ${relayBatches.batches} batches of ${(relayBatches.rows / Math.max(1, relayBatches.batches)).toFixed(1)} rows\n`);
      await relay.stop();
      await engine.close();
      await nats.close();
      await db.close();
      process.exit(0);
    })();
  });
}

// ---------------------------------------------------------------------------------------------
// Coordinator mode.
// ---------------------------------------------------------------------------------------------
interface Submission {
  patientId: string;
  body: string;
  resources: number;
}

/** The sample Bundles repeated: copy n has every resource id suffixed `-n` (references follow, by text replacement). */
function buildSubmissions(count: number): Submission[] {
  const dir = sharedDir('samples', 'nhsn-ach');
  const samples = readdirSync(dir).filter((f) => f.startsWith('patient-') && f.endsWith('.json')).sort().map((f) => {
    const bundle = JSON.parse(readFileSync(path.join(dir, f), 'utf8')) as { resourceType: string; entry: { resource?: Record<string, unknown> }[] };
    if (bundle.resourceType !== 'Bundle') return undefined; // patient-list.json is a List of the patients
    const resources = bundle.entry.map((e) => e.resource).filter((r): r is Record<string, unknown> => !!r);
    const report = resources.find((r) => r.resourceType === 'MeasureReport')!;
    const measureReport = { ...report, contained: resources.filter((r) => r !== report) };
    const ids = [...new Set(resources.map((r) => r.id).filter((id): id is string => typeof id === 'string' && id.length >= 8))];
    const patientId = String(resources.find((r) => r.resourceType === 'Patient')?.id);
    return { text: JSON.stringify(measureReport), ids, patientId, resources: resources.length };
  }).filter((s) => s !== undefined);
  return Array.from({ length: count }, (_, n) => {
    const sample = samples[n % samples.length]!;
    let body = sample.text;
    for (const id of sample.ids) body = body.split(id).join(`${id}-${n}`);
    return { patientId: `${sample.patientId}-${n}`, body, resources: sample.resources };
  });
}

const INSTANCES_GROUP = 'validation instances';

/** CPU seconds used so far, grouped: PostgreSQL, NATS, the given instance pids, this coordinator, other. */
function cpuByGroup(instancePids: readonly number[]): Map<string, number> {
  const groups = new Map<string, number>();
  for (const [pid, { command, seconds }] of processCpuSeconds()) {
    const group = instancePids.includes(pid) ? INSTANCES_GROUP
      : pid === process.pid ? 'coordinator (report service, publisher, reader)'
        : command === 'postgres' ? 'PostgreSQL' : command === 'nats-server' ? 'NATS' : 'other';
    groups.set(group, (groups.get(group) ?? 0) + seconds);
  }
  return groups;
}

// ---------------------------------------------------------------------------------------------
// Engine-only mode: the same validation as an instance (EngineHost, same validation.workers, same
// number of submissions in flight), without report service, messaging, categorization or database
// writes. One such process per instance, each validating its share, so the baseline uses the
// machine exactly as the instances do.
// ---------------------------------------------------------------------------------------------
async function runEngineOnlyChild(): Promise<void> {
  const count = Number(arg('--submissions', '500'));
  const [from, to] = [Number(arg('--from', '0')), Number(arg('--to', String(count)))];
  const db = await openBenchDatabase(arg('--db', ''), 2);
  const engine = new EngineHost({ artifacts: new PgArtifactRepository(db.orm), workers: Number(arg('--workers', '1')), terminology: {}, logger: silentLogger() });
  await engine.start();
  // The engine's input as the flow gives it: each submission's bytes (read in the worker).
  const resources = buildSubmissions(count).slice(from, to).map((s) => Buffer.from(s.body));
  // Warm the plans and the JIT, as the instances are warmed (same number of submissions, same lanes).
  const warmUp = Number(arg('--warm-up', '500'));
  let warmed = 0;
  await Promise.all(Array.from({ length: Number(arg('--concurrency', '4')) }, async () => {
    while (warmed < warmUp) await engine.validateSubmission(resources[warmed++ % resources.length]!);
  }));
  process.stdout.write('ready\n');
  // Long-lived, as the instances are: one timed run per line on stdin, until stdin closes.
  const lines = createInterface({ input: process.stdin });
  for await (const line of lines) {
    if (line !== 'go') continue;
    const started = performance.now();
    const cpuAtStart = process.cpuUsage();
    const threadsAtStart = threadCpuSeconds();
    let next = 0;
    const lanes = Array.from({ length: Number(arg('--concurrency', '4')) }, async () => {
      while (next < resources.length) {
        const mine = resources[next++]!;
        await engine.validateSubmission(mine);
      }
    });
    await Promise.all(lanes);
    const ms = performance.now() - started;
    const cpu = process.cpuUsage(cpuAtStart);
    process.stdout.write(`${JSON.stringify({ ms, submissions: resources.length, cpuMs: (cpu.user + cpu.system) / 1000, threads: cpuMsPer(threadsAtStart, threadCpuSeconds(), resources.length) })}\n`);
  }
  await engine.close();
  await db.close();
  process.exit(0);
}

interface EngineOnlyRun { rate: number; cpuMsPerSubmission: number; machineCpuSeconds: number; seconds: number; threads: string[] }

/**
 * Engine-only throughput: `processes` engine-only children, each validating its share. They are
 * started and warmed once (the constructor, then `ready`) and kept for every run, as the instances are kept for every
 * round: a fresh process per run measured its JIT warm-up too (see engine-bench.ts).
 */
class EngineOnlyProcesses {
  private readonly children: ChildProcess[];
  private readonly nextLine: (() => Promise<string>)[];

  constructor(self: string, dbName: string, count: number, processes: number, workers: number, concurrency: string, warmUpPerProcess: number) {
    this.children = Array.from({ length: processes }, (_, i) => ownChild(spawn(process.execPath, [
      ...profileArgs('engine-only'), ...process.execArgv, self, '--engine-only', '--db', dbName, '--submissions', String(count), '--workers', String(workers), '--concurrency', concurrency, '--warm-up', String(warmUpPerProcess),
      '--from', String(Math.floor((i * count) / processes)), '--to', String(Math.floor(((i + 1) * count) / processes)),
    ], { stdio: ['pipe', 'pipe', 'inherit'] })));
    this.nextLine = this.children.map((child) => {
      let buffer = '';
      const waiting: { resolve: (line: string) => void; reject: (error: Error) => void }[] = [];
      child.stdout!.on('data', (d: Buffer) => {
        buffer += d.toString();
        let nl: number;
        while ((nl = buffer.indexOf('\n')) >= 0) {
          const line = buffer.slice(0, nl);
          buffer = buffer.slice(nl + 1);
          waiting.shift()?.resolve(line);
        }
      });
      child.once('exit', (code) => { for (const w of waiting.splice(0)) w.reject(new Error(`engine-only process exited with ${code}`)); });
      return () => new Promise<string>((resolve, reject) => waiting.push({ resolve, reject }));
    });
  }

  /** Resolves once every process is warm. */
  async ready(): Promise<void> {
    await Promise.all(this.nextLine.map((next) => next()));
  }

  async run(count: number): Promise<EngineOnlyRun> {
    const results = this.nextLine.map((next) => next());
    const machineAtStart = machineCpuSeconds();
    for (const child of this.children) child.stdin!.write('go\n');
    const reports = (await Promise.all(results)).map((line) => JSON.parse(line) as { ms: number; submissions: number; cpuMs: number; threads: string });
    const machine = machineCpuSeconds() - machineAtStart;
    const seconds = Math.max(...reports.map((r) => r.ms)) / 1000;
    // The sum of each process's own rate: each validates a fixed half, so the first to finish idles
    // while the other ends (up to 13 % of the machine in a run); the instances share one queue and
    // never idle that way, so count / slowest would understate the engine and flatter the flow.
    const rate = reports.reduce((sum, r) => sum + r.submissions / (r.ms / 1000), 0);
    return { rate, cpuMsPerSubmission: reports.reduce((n, r) => n + r.cpuMs, 0) / count, machineCpuSeconds: machine, seconds, threads: reports.map((r) => r.threads) };
  }

  async stop(): Promise<void> {
    await Promise.all(this.children.map((child) => (child.exitCode !== null || child.signalCode !== null ? undefined : new Promise((resolve) => {
      child.once('exit', resolve);
      child.stdin!.end();
    }))));
  }
}

/** One end-to-end round: its submissions published at once, until each has its ValidationComplete. */
interface RoundResult {
  rate: number;
  /** Milliseconds from publish to ValidationComplete, one per submission, sorted. */
  latencies: number[];
  /** Machine CPU-ms per submission outside the instances: PostgreSQL, NATS, this process's stand-ins, the rest of the machine. */
  outsideCpuMs: number;
}

async function coordinate(): Promise<void> {
  const count = Number(arg('--submissions', '500'));
  const kill = flag('--kill');
  // As deployed (one instance, one worker per core), or, to kill one, two instances of one worker.
  const instances = Number(arg('--instances', kill ? '2' : '1'));
  const workers = Number(arg('--workers', kill ? '1' : '0'));
  if (kill && instances < 2) throw new Error('--kill needs at least two instances: the survivor completes what the killed one held');
  // As the service: validation.consumer-concurrency 0 = twelve per worker (workers 0 = one per core).
  const concurrency = arg('--concurrency', String(defaultConsumerConcurrency(workers === 0 ? os.availableParallelism() : workers)));
  // The machine's speed drifts by ±10-25 % over tens of seconds, so one engine-only measurement
  // and one end-to-end measurement taken a minute apart compare the drift as much as the service.
  // The bench alternates them: engine-only, end to end, engine-only, ... and each round's ratio is
  // its end-to-end throughput over the mean of the engine-only runs just before and after it.
  const rounds = kill ? 1 : Math.max(1, Number(arg('--rounds', '9')));
  // Every process handles --warm-up submissions before it is timed: the instances get extra copies.
  // 500 per worker thread (~29,000 resources each): a pool warms each worker at its share of the pace.
  const threadsPerProcess = workers === 0 ? os.availableParallelism() : workers;
  const warmUpPerProcess = Number(arg('--warm-up', String(500 * threadsPerProcess)));
  const warmUpCount = warmUpPerProcess * instances;
  const suffix = `${Date.now().toString(36)}${randomBytes(3).toString('hex')}`;
  const dbName = `bench_flow_${suffix}`;
  const root = `benchflow${suffix}`;
  const streamSuffix = `_BF${suffix.toUpperCase()}`;
  const catalog: Catalog = buildCatalog({ subjectRoot: root, streamSuffix, streamLimits: streamLimitsFromEnvironment(process.env.NATS_STREAM_LIMITS, 'local') });
  const log = (line: string) => process.stdout.write(`${line}\n`);
  let ratioLine: string | undefined;

  log(`flow bench: ${count} submissions × ${rounds} round(s), ${instances} instances (validation.workers=${workers}, consumer concurrency ${concurrency}), ${os.availableParallelism()} cores${kill ? ', killing one instance mid-run' : ''}`);
  // Every round validates new copies (new ids), so that every round stores new rows rather than rewriting those of the last.
  const everything = buildSubmissions(count * rounds + warmUpCount);
  const roundSubmissions = Array.from({ length: rounds }, (_, r) => everything.slice(r * count, (r + 1) * count));
  const warmUp = everything.slice(count * rounds);
  const totalResources = roundSubmissions[0]!.reduce((n, s) => n + s.resources, 0);

  // Database with the IG packages stored as artifacts and the default categories.
  const db = await openBenchDatabase(dbName, 4);
  const setupApi = createValidationApiModule({ repositories: pgValidationApiRepositories(db.orm), openApi: new OpenApiBuilder({ title: 'bench', version: '1' }), validator: { validate: () => Promise.reject(new Error('unused')) }, artifactInitDir: sharedDir('fhir-packages') });
  await setupApi.initializeIfEmpty({ artifactInit: true });

  // Bodies encoded once: the stand-in report service should cost as little CPU as a real one on another machine would cost here.
  const byPatient = new Map(everything.map((s) => [s.patientId, Buffer.from(s.body)]));
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://bench');
    const body = byPatient.get(url.searchParams.get('patientId') ?? '');
    if (!body) return void res.writeHead(404).end();
    res.writeHead(200, { 'content-type': 'application/fhir+json', 'content-length': body.length }).end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const reportUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const nats = await connectNats({ servers: [NATS], name: 'flow-bench', logger: silentLogger() });
  await provisionCatalog(nats.jsm, catalog);
  const self = fileURLToPath(import.meta.url);
  const children: ChildProcess[] = [];
  const cleanup = async () => {
    await engineOnlyProcesses.stop();
    for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    await Promise.all(children.map((c) => (c.exitCode !== null || c.signalCode !== null ? undefined : new Promise((r) => c.once('exit', r)))));
    server.closeAllConnections();
    server.close();
    for (const stream of [...catalog.streams, catalog.deadLetterStream]) await nats.jsm.streams.delete(stream.name).catch(() => undefined);
    await nats.close();
    await db.close();
    const orm = await MikroORM.init({ ...PG, dbName: 'postgres', entities: [OutboxMessageEntity], ensureDatabase: false, allowGlobalContext: true, pool: { min: 0, max: 1 } });
    await orm.em.fork().execute(`drop database if exists "${dbName}" with (force)`);
    await orm.close(true);
  };

  const engineOnlyProcesses = new EngineOnlyProcesses(self, dbName, count, instances, workers, concurrency, warmUpPerProcess);
  try {
    await engineOnlyProcesses.ready();
    const engineRates: number[] = [];
    /** Machine CPU-ms per submission of each engine-only run. */
    const engineCpuMs: number[] = [];
    const engineOnlyRound = async () => {
      const engine = await engineOnlyProcesses.run(count);
      engineRates.push(engine.rate);
      engineCpuMs.push((engine.machineCpuSeconds * 1000) / count);
      log(`engine only (${instances} processes like the instances, validation.workers=${workers}, ${concurrency} submissions in flight each, same resources): ${engine.rate.toFixed(1)} patients/s, ${(engine.rate * totalResources / count).toFixed(0)} resources/s, ${engine.cpuMsPerSubmission.toFixed(1)} CPU ms per submission (machine CPU ${engine.machineCpuSeconds.toFixed(1)} s of ${(engine.seconds * os.availableParallelism()).toFixed(1)} s available)`);
      log(`  CPU ms per submission by thread (each engine-only process): ${engine.threads.join(' | ')}`);
    };
    await engineOnlyRound();

    for (let i = 0; i < instances; i++) {
      const child = ownChild(spawn(process.execPath, [...profileArgs('instance'), ...process.execArgv, self, '--instance', '--db', dbName, '--root', root, '--suffix', streamSuffix, '--report', reportUrl, '--workers', String(workers), '--concurrency', concurrency, '--commit-gather-ms', arg('--commit-gather-ms', String(DEFAULT_GATHER_MS)), '--relay-gather-ms', arg('--relay-gather-ms', String(DEFAULT_RELAY_GATHER_MS))], {
        stdio: ['ignore', 'pipe', 'inherit'], env: { ...process.env, LOG_LEVEL: process.env.LOG_LEVEL ?? 'warn' },
      }));
      children.push(child);
      await new Promise<void>((resolve, reject) => {
        child.stdout!.on('data', (d: Buffer) => { if (d.toString().includes('ready')) resolve(); });
        child.once('exit', (code) => reject(new Error(`instance ${i} exited with ${code} before it was ready`)));
      });
    }
    log(`${instances} instances ready`);

    // One reader of ValidationComplete for the whole run: counts every announcement per patient.
    const completion = catalog.byName('ValidationComplete');
    const seen = new Map<string, number>();
    const firstSeenAt = new Map<string, number>();
    let waitingFor: { ids: Set<string>; left: number; resolve: () => void; onProgress?: (done: number) => void } | undefined;
    const reader = await (await nats.js.consumers.get(completion.stream!, { filter_subjects: completion.subject })).consume();
    void (async () => {
      for await (const m of reader as AsyncIterable<JsMsg>) {
        const { patientId } = m.json<{ patientId: string }>();
        seen.set(patientId, (seen.get(patientId) ?? 0) + 1);
        if (firstSeenAt.has(patientId)) continue;
        firstSeenAt.set(patientId, performance.now());
        if (waitingFor?.ids.has(patientId)) {
          waitingFor.left--;
          waitingFor.onProgress?.(waitingFor.ids.size - waitingFor.left);
          if (waitingFor.left === 0) waitingFor.resolve();
        }
      }
    })();
    const ready = catalog.byName('ReadyForValidation');
    const publishReady = (s: Submission) => nats.js.publish(ready.subject, JSON.stringify({
      schemaVersion: ready.version, facilityId: 'bench-facility', reportTrackingId: 'bench-report', patientId: s.patientId, reportTypes: ['ACH'],
    }));
    /** Publishes all at once and resolves when every one of them has completed. */
    const publishAndWait = async (batch: Submission[], onProgress?: (done: number) => void) => {
      const publishedAt = new Map<string, number>();
      const finished = new Promise<void>((resolve) => {
        waitingFor = { ids: new Set(batch.map((s) => s.patientId)), left: batch.length, resolve, onProgress };
        if (batch.length === 0) resolve();
      });
      await Promise.all(batch.map(async (s) => {
        publishedAt.set(s.patientId, performance.now());
        await publishReady(s);
      }));
      await finished;
      waitingFor = undefined;
      return publishedAt;
    };

    const analyzeEvery = Number(arg('--analyze-every-ms', '5000'));
    const analyzer = analyzeEvery > 0
      ? setInterval(() => void db.orm.em.fork().execute('analyze validation_outcome').catch(() => undefined), analyzeEvery)
      : undefined;
    await publishAndWait(warmUp);
    if (warmUp.length > 0) log(`warm-up: ${warmUp.length} submissions completed (not counted)`);

    const results: RoundResult[] = [];
    let killed = false;
    for (const [r, submissions] of roundSubmissions.entries()) {
      const machineCpuAtStart = machineCpuSeconds();
      const instancePids = children.map((c) => c.pid!).filter((pid) => pid !== undefined);
      const groupsAtStart = cpuByGroup(instancePids);
      const threadsAtStart = threadCpuSeconds(instancePids);
      const started = performance.now();
      const profile: [number, number][] = [];
      const sampler = process.env.BENCH_UTIL_PROFILE ? setInterval(() => profile.push([performance.now(), machineCpuSeconds()]), 20) : undefined;
      const publishedAt = await publishAndWait(submissions, (done) => {
        if (kill && !killed && done >= count / 3) {
          killed = true;
          children.at(-1)!.kill('SIGKILL');
          log(`killed instance ${children.length} (SIGKILL) after ${done} completions`);
        }
      });
      const seconds = (performance.now() - started) / 1000;
      if (sampler) {
        clearInterval(sampler);
        const used = new Array<number>(10).fill(0);
        const available = new Array<number>(10).fill(0);
        for (let i = 1; i < profile.length; i++) {
          const [t0, c0] = profile[i - 1]!;
          const [t1, c1] = profile[i]!;
          const tenth = Math.min(9, Math.floor(((t0 - started) / 1000 / seconds) * 10));
          used[tenth] = used[tenth]! + c1 - c0;
          available[tenth] = available[tenth]! + ((t1 - t0) / 1000) * os.availableParallelism();
        }
        log(`  utilization by tenth of the round: ${used.map((c, i) => (available[i] ? c / available[i]! : 0).toFixed(2)).join(' ')}`);
      }
      const groupsAtEnd = cpuByGroup(instancePids);
      const threadsAtEnd = threadCpuSeconds(instancePids);
      const machine = machineCpuSeconds() - machineCpuAtStart;
      const latencies = submissions.map((s) => firstSeenAt.get(s.patientId)! - publishedAt.get(s.patientId)!).sort((a, b) => a - b);
      const instancesSeconds = (groupsAtEnd.get(INSTANCES_GROUP) ?? 0) - (groupsAtStart.get(INSTANCES_GROUP) ?? 0);
      const round = { rate: count / seconds, latencies, outsideCpuMs: ((machine - instancesSeconds) * 1000) / count };
      results.push(round);
      log(`round ${r + 1} end to end: ${count} submissions (${totalResources} resources) in ${seconds.toFixed(1)} s: ${round.rate.toFixed(1)} patients/s, ${(totalResources / seconds).toFixed(0)} resources/s; publish → ValidationComplete p50 ${(percentile(latencies, 50) / 1000).toFixed(2)} s, p99 ${(percentile(latencies, 99) / 1000).toFixed(2)} s`);
      log(`  CPU: ${machine.toFixed(1)} s of ${(seconds * os.availableParallelism()).toFixed(1)} s available; ms per submission by process group: ${cpuMsPer(groupsAtStart, groupsAtEnd, count, 1)}`);
      log(`  CPU ms per submission by thread (instances): ${cpuMsPer(threadsAtStart, threadsAtEnd, count)}`);
      if (!kill) await engineOnlyRound();
    }
    if (analyzer) clearInterval(analyzer);
    await new Promise((resolve) => setTimeout(resolve, 2_000)); // late duplicates, if any, would arrive now
    await reader.close();

    log('');
    const ratios = results.map((round, r) => round.rate / ((engineRates[r]! + (engineRates[r + 1] ?? engineRates[r]!)) / 2));
    const rates = results.map((round) => round.rate);
    const latencies = results.flatMap((round) => round.latencies).sort((a, b) => a - b);
    log(`end to end (median of ${rounds} round(s)): ${median(rates).toFixed(1)} patients/s, ${(median(rates) * totalResources / count).toFixed(0)} resources/s`);
    log(`publish → ValidationComplete (all rounds): p50 ${(percentile(latencies, 50) / 1000).toFixed(2)} s, p99 ${(percentile(latencies, 99) / 1000).toFixed(2)} s`);
    log(`engine only (median of ${engineRates.length} run(s)): ${median(engineRates).toFixed(1)} patients/s`);
    log(`ratio end-to-end / engine-only throughput per round (engine-only runs before and after it): ${ratios.map((x) => x.toFixed(2)).join(', ')}`);
    if (!kill) {
      // What the ratio would be if the instances cost no more CPU than the engine-only processes:
      // the machine is saturated in both, so throughput follows CPU per submission, and PostgreSQL,
      // NATS and the stand-ins share the same cores (in production they run elsewhere).
      const ceilings = results.map((round, r) => {
        const engine = (engineCpuMs[r]! + (engineCpuMs[r + 1] ?? engineCpuMs[r]!)) / 2;
        return engine / (engine + round.outsideCpuMs);
      });
      log(`ceiling per round (instances costing no more CPU than engine-only; ${median(results.map((round) => round.outsideCpuMs)).toFixed(1)} CPU-ms per submission outside them, median): ${ceilings.map((x) => x.toFixed(2)).join(', ')}; median ${median(ceilings).toFixed(2)}`);
    }
    const measured = roundSubmissions.flat().map((s) => s.patientId);
    const completed = measured.filter((id) => firstSeenAt.has(id)).length;
    const twice = [...seen.values()].filter((n) => n > 1).length;
    log(`completed: ${completed}/${measured.length}; ValidationComplete more than once: ${twice}`);
    const stored = await db.orm.em.fork().execute<{ n: string }[]>('select count(*)::text as n from validation_outcome');
    log(`stored outcomes: ${stored[0]!.n} (${measured.length} + ${warmUp.length} warm-up)`);
    ratioLine = `ratio end-to-end / engine-only throughput: ${median(ratios).toFixed(2)} (median; target ≥ 0.7)\n${namedRatioLine('flow.end-to-end/engine-only', median(ratios))}`;
    if (completed !== measured.length || twice > 0 || Number(stored[0]!.n) !== measured.length + warmUp.length) process.exitCode = 1;
  } finally {
    await cleanup();
  }
  // The last line (after the instances' own summaries, printed as they stop), for scripts and the closing note.
  if (ratioLine) log(ratioLine);
}

if (flag('--instance')) {
  await runInstance();
} else if (flag('--engine-only')) {
  await runEngineOnlyChild();
} else {
  await coordinate();
}
