/**
 * Scale-out proof on this machine:
 *
 *   npm run scale-out -- [--submissions 300] [--warmup 10] [--facilities 30] [--workers 1]
 *                        [--concurrency 4] [--join-report-delay-ms 500] [--spread-ms 2000] [--machine-nats]
 *
 * Real service processes (services/<svc>/src/main.ts, configured by environment variables only,
 * AUTH_MODE=none) sharing one PostgreSQL, Redis and NATS JetStream (the machine's PostgreSQL and
 * Redis; NATS see Isolation):
 * - tenant: two instances, scheduler enabled in both. Facilities with daily and monthly measures and
 *   reporting plans are created through the HTTP API, alternating between the instances, and read
 *   back from the other one. A new facility first fires at its next period start, so the run moves
 *   the job store's entries (table report_schedule) to fire within the next `--spread-ms`, standing in
 *   for period boundaries passing. Checked: one ReportScheduled per (facility, frequency, period) in
 *   the stream AND one ReportScheduled outbox row each (the stream alone would hide a double firing,
 *   since JetStream drops a second message with the same id); each instance's share from
 *   `scheduler_reports_scheduled_total` and the job store's claimed_by.
 * - validation, phase A: N ReadyForValidation to one instance, then N fresh ones to two; patients/s
 *   until the N-th ValidationComplete is read from the stream. Phase B: N to the two, a third
 *   instance started when a third of them completed (the report service answers after
 *   `--join-report-delay-ms` in this phase, see below); every submission must complete exactly once
 *   (ValidationComplete per patient, stored outcome rows) and the third must have done part.
 *   Each instance's share is the delta of `messaging_deliveries_total{outcome="acked"}` of the
 *   ReadyForValidation consumer on its /metrics.
 *
 * Isolation: a fresh database per service per run (dropped at the end), a temporary directory for
 * the tenant instances' JWKS files, and by default a NATS JetStream server of the run's own (the
 * machine's nats-server binary on a free port, removed at the end): the services have no setting
 * for the subject root or stream names, so on the machine's shared server any other validation
 * instance running meanwhile joins the same durable consumer and takes part of the run's messages
 * (seen while developing this script: another engineer's test took 225 of 300). `--machine-nats`
 * uses the machine's server instead: production subjects, run-tagged ids (every facility and patient
 * id contains the run tag), and at the end every message carrying the tag is deleted from the
 * catalog's streams, as are streams/durable consumers that did not exist before; the acked-sum check
 * then catches a foreign consumer. Redis: validation instances use cache.type distributed (the
 * validate-code cache; without a terminology server nothing is written to it).
 *
 * Exits non-zero when a check fails. `runScaleOut()` is the same run for test/scale-out.int.spec.ts.
 */
import { execFile, execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { DeliverPolicy, type JsMsg } from '@nats-io/jetstream';
import { catalogForNamespace, streamLimitsFromEnvironment } from '#contracts/catalog.js';

/** The production subjects, with streams sized for this machine (the services it starts get the same NATS_STREAM_LIMITS). */
const catalog = catalogForNamespace(undefined, streamLimitsFromEnvironment(process.env.NATS_STREAM_LIMITS, 'local'));
import { connectNats, type NatsHandle } from '#adapters/messaging/connection.js';
import { provisionCatalog } from '#adapters/messaging/provisioning.js';
import { silentLogger } from '#adapters/observability/logger.js';
import { sharedDir } from '#test-support/shared-dir.js';
import { machineCpuSeconds } from '../bench/process-cpu.js';
import { infrastructureSampler } from './infrastructure-cpu.js';
import { formatShares, printReport } from './report-format.js';
import { startPrivateNats } from './private-nats.js';
import { startReportService, type ReportService } from './report-service.js';
import { counterValue, startService, type ServiceProcess } from './service-process.js';

export interface ScaleOutOptions {
  /** ReadyForValidation per phase (A with one instance, A with two, B with the third joining). */
  readonly submissions: number;
  /** Unmeasured submissions before each phase-A measurement (first submissions compile plans). */
  readonly warmup: number;
  readonly facilities: number;
  /** validation.workers of each instance (1: one validating thread per instance). */
  readonly workers: number;
  /** validation.consumer-concurrency of each instance. */
  readonly concurrency: number;
  /**
   * Report-service answer delay during phase B. Two instances finish 300 submissions in ~12 s here,
   * while a third instance starting on the two busy cores needs ~20 s to be ready; with a report
   * service answering in 500 ms (a plausible latency for assembling a patient's submission) the
   * phase lasts long enough for the third instance to join while work is left.
   */
  readonly joinReportDelayMs: number;
  /** Window over which the tenant job-store entries become due. */
  readonly spreadMs: number;
  /**
   * Use the machine's NATS server (production subjects, run-tagged messages deleted at the end)
   * instead of a nats-server of the run's own (see private-nats.ts for why that is the default).
   */
  readonly machineNats?: boolean;
  readonly log?: (line: string) => void;
}

export const DEFAULT_OPTIONS: ScaleOutOptions = {
  submissions: 300, warmup: 10, facilities: 30, workers: 1, concurrency: 4, joinReportDelayMs: 500, spreadMs: 2_000,
};

export interface Share { readonly instance: string; readonly count: number }

export interface PhaseResult {
  readonly label: string;
  readonly instances: number;
  readonly submissions: number;
  readonly seconds: number;
  readonly patientsPerSecond: number;
  /** Delta of the acked counter per instance over the phase (undefined when the counter is missing). */
  readonly shares: readonly Share[] | undefined;
  /** Busy CPU of the whole machine during the phase, in cores (all processes, not only this run's). */
  readonly machineBusyCores: number;
  /** CPU the validation instances used during the phase, in cores (process_cpu_seconds_total). */
  readonly instanceCores: number;
  /** CPU of PostgreSQL, NATS and Redis, and of this script (report service, publisher, readers), in cores. */
  readonly infrastructureCores: { readonly postgres: number; readonly nats: number; readonly redis: number; readonly script: number };
}

export interface ScaleOutReport {
  readonly cores: number;
  readonly tenant: {
    readonly facilityPeriods: number;
    readonly distinctInStream: number;
    readonly duplicatesInStream: number;
    readonly outboxRows: number;
    readonly firedShares: readonly Share[] | undefined;
    readonly claimedShares: readonly Share[];
    readonly httpShares: readonly Share[];
    readonly readBack: number;
  };
  readonly phases: readonly PhaseResult[];
  readonly join: { readonly startedAfterCompleted: number; readonly readyAfterSeconds: number };
  readonly submitted: number;
  readonly completed: number;
  readonly duplicates: number;
  readonly lost: number;
  readonly storedOutcomes: { readonly rows: number; readonly patients: number };
  readonly deadLettered: number;
  readonly exitCodes: readonly { readonly instance: string; readonly code: number | null }[];
  readonly warnings: readonly string[];
  readonly failures: readonly string[];
}

const CONSUMER = 'validation-ready-for-validation';
const PG_ARGS = ['-h', process.env.PGHOST ?? '127.0.0.1', '-p', process.env.PGPORT ?? '5432', '-U', process.env.PGUSER ?? 'postgres'];
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function psql(db: string, sql: string): string[][] {
  const out = execFileSync('psql', [...PG_ARGS, '-d', db, '-AtqF', '\t', '-c', sql], { encoding: 'utf8' });
  return out.split('\n').filter((l) => l.length > 0).map((l) => l.split('\t'));
}

/** CPU seconds the processes used so far (their process_cpu_seconds_total, worker threads included). */
async function processCpu(instances: readonly ServiceProcess[]): Promise<number> {
  const values = await Promise.all(instances.map(async (p) => counterValue(await p.metrics(), 'process_cpu_seconds_total', {}) ?? 0));
  return values.reduce((a, b) => a + b, 0);
}

/** The month a zone is in now (reporting plans are per local month). */
function localMonth(timeZone: string): { year: number; month: number } {
  const parts = new Intl.DateTimeFormat('en-US', { timeZone, year: 'numeric', month: 'numeric' }).formatToParts(new Date());
  return { year: Number(parts.find((p) => p.type === 'year')!.value), month: Number(parts.find((p) => p.type === 'month')!.value) };
}

/** Reads one subject of a stream from a sequence on, calling `onMessage` for each (an ordered consumer). */
async function follow(nats: NatsHandle, stream: string, subject: string, fromSeq: number, onMessage: (m: JsMsg) => void): Promise<() => Promise<void>> {
  const consumer = await nats.js.consumers.get(stream, { filter_subjects: subject, deliver_policy: DeliverPolicy.StartSequence, opt_start_seq: fromSeq });
  const messages = await consumer.consume();
  const done = (async () => { for await (const m of messages) onMessage(m); })();
  return async () => {
    const { name } = await consumer.info(true);
    await messages.close();
    await done.catch(() => undefined);
    // An ordered consumer would otherwise linger on the server for its 5-minute inactivity threshold.
    await nats.jsm.consumers.delete(stream, name).catch(() => undefined);
  };
}

export async function runScaleOut(options: ScaleOutOptions = DEFAULT_OPTIONS): Promise<ScaleOutReport> {
  const log = options.log ?? (() => undefined);
  const tag = randomBytes(3).toString('hex');
  const validationDb = `scaleout_validation_${tag}`;
  const tenantDb = `scaleout_tenant_${tag}`;
  const jwksDir = path.join(os.tmpdir(), `scale-out-${tag}`);
  mkdirSync(jwksDir, { recursive: true });
  const failures: string[] = [];
  const warnings: string[] = [];
  const check = (ok: boolean, failure: string) => { if (!ok) failures.push(failure); };
  const processes: ServiceProcess[] = [];
  const exitCodes: { instance: string; code: number | null }[] = [];

  const privateNats = options.machineNats ? undefined : await startPrivateNats();
  const natsUrl = privateNats?.url ?? process.env.NATS_URL ?? 'nats://127.0.0.1:4222';
  const nats = await connectNats({ servers: [natsUrl], name: `scale-out-${tag}`, logger: silentLogger() });
  const streams = [...catalog.streams, catalog.deadLetterStream];
  // What existed before, so the cleanup removes only what the run created.
  const before = new Map<string, { lastSeq: number; consumers: Set<string> } | undefined>();
  for (const stream of streams) {
    const info = await nats.jsm.streams.info(stream.name).catch(() => undefined);
    const consumers = new Set<string>();
    if (info) for await (const c of nats.jsm.consumers.list(stream.name)) consumers.add(c.name);
    before.set(stream.name, info ? { lastSeq: info.state.last_seq, consumers } : undefined);
  }
  const ready = catalog.byName('ReadyForValidation');
  const existing = await nats.jsm.consumers.info(ready.stream!, CONSUMER).catch(() => undefined);
  if (existing && existing.num_waiting > 0) {
    warnings.push(`the durable consumer ${CONSUMER} already has ${existing.num_waiting} pull request(s) waiting: another validation instance on the production subjects will take part of the work`);
  }
  if (existing && existing.num_pending > 0) warnings.push(`${existing.num_pending} ReadyForValidation from before the run are pending; the instances will handle (and dead-letter) them too`);
  const startSeq = (stream: string) => (before.get(stream)?.lastSeq ?? 0) + 1;
  // The readers below need the streams now (the services would create them only when they start).
  await provisionCatalog(nats.jsm, catalog);

  const reportService: ReportService = await startReportService();
  const stopFollowers: Array<() => Promise<void>> = [];

  // ValidationComplete per patient of this run, read from the stream.
  const completions = new Map<string, number>();
  let onCompletion: () => void = () => undefined;
  const completion = catalog.byName('ValidationComplete');
  stopFollowers.push(await follow(nats, completion.stream!, completion.subject, startSeq(completion.stream!), (m) => {
    const { patientId } = m.json<{ patientId: string }>();
    if (!patientId.includes(tag)) return;
    completions.set(patientId, (completions.get(patientId) ?? 0) + 1);
    onCompletion();
  }));
  const scheduled = catalog.byName('ReportScheduled');
  const firings = new Map<string, number>();
  stopFollowers.push(await follow(nats, scheduled.stream!, scheduled.subject, startSeq(scheduled.stream!), (m) => {
    const p = m.json<{ facilityId: string; frequency: string; startDate: string }>();
    if (!p.facilityId.includes(tag)) return;
    const key = `${p.facilityId}|${p.frequency}|${p.startDate}`;
    firings.set(key, (firings.get(key) ?? 0) + 1);
  }));

  const validationEnv = (): Record<string, string> => ({
    DB_NAME: validationDb, ARTIFACT_INIT: 'true', ARTIFACT_INIT_DIR: sharedDir('fhir-packages'), ARTIFACT_INIT_MODE: 'replace',
    SVC_REPORT_SERVICE_URL: reportService.url, VALIDATION_WORKERS: String(options.workers),
    VALIDATION_CONSUMER_CONCURRENCY: String(options.concurrency), CACHE_TYPE: 'distributed', NATS_SERVERS: natsUrl,
  });
  const startValidation = async (n: number) => {
    const p = await startService(`validation-${n}`, 'validation', validationEnv());
    processes.push(p);
    return p;
  };
  const stopProcess = async (p: ServiceProcess) => {
    const code = await p.stop();
    exitCodes.push({ instance: p.name, code });
    check(code === 0, `${p.name} exited with ${code} on SIGTERM:\n${p.output().slice(-2000)}`);
  };
  let submitted = 0;

  /** The acked deliveries of the ReadyForValidation consumer per instance (undefined if not exported). */
  const acked = async (instances: readonly ServiceProcess[]) => Promise.all(instances.map(async (p) =>
    counterValue(await p.metrics(), 'messaging_deliveries_total', { consumer: CONSUMER, outcome: 'acked' })));

  // Each batch is its own report: a phase's cost must not depend on how many patients earlier phases stored.
  const publish = async (batch: { report: string; ids: readonly string[] }) => {
    submitted += batch.ids.length;
    await Promise.all(batch.ids.map((patientId) => nats.js.publish(ready.subject, JSON.stringify({
      schemaVersion: ready.version, facilityId: `so-${tag}-facility`, reportTrackingId: batch.report, patientId, reportTypes: ['NHSNdQMAcuteCareHospitalInitialPopulation'],
    }), { msgID: `scale-out-${patientId}` })));
  };
  const waitCompleted = (ids: readonly string[], onProgress?: (done: number) => void) => new Promise<void>((resolve, reject) => {
    const timeoutMs = 60_000 + ids.length * 2_000;
    const count = () => ids.reduce((n, id) => n + (completions.has(id) ? 1 : 0), 0);
    const timer = setTimeout(() => { onCompletion = () => undefined; reject(new Error(`${count()} of ${ids.length} submissions completed within ${timeoutMs / 1000} s`)); }, timeoutMs);
    onCompletion = () => {
      const done = count();
      onProgress?.(done);
      if (done === ids.length) { clearTimeout(timer); onCompletion = () => undefined; resolve(); }
    };
    onCompletion();
  });
  let batches = 0;
  const newSubmissions = (count: number) => {
    const prefix = `${tag}${String.fromCharCode(97 + batches++)}`; // keeps ids within FHIR's 64 characters
    return { report: `so-report-${prefix}`, ids: Array.from({ length: count }, (_, n) => reportService.add(`${prefix}${n}`).patientId) };
  };
  /**
   * ANALYZE every few seconds while measuring (as scripts/bench/flow-bench.ts does): the run starts
   * from empty tables that grow faster than autovacuum's ANALYZE follows, and with stale statistics
   * PostgreSQL's cost per stored submission grows with the table, which would favour earlier phases.
   */
  const analyzing = () => {
    const analyze = () => new Promise<void>((resolve) => execFile('psql', [...PG_ARGS, '-d', validationDb, '-qc', 'analyze'], () => resolve()));
    let running = analyze();
    const timer = setInterval(() => { running = running.then(analyze); }, 5_000);
    return { first: running, stop: async () => { clearInterval(timer); await running; } };
  };

  const phases: PhaseResult[] = [];
  const measure = async (label: string, instances: ServiceProcess[], join?: { onProgress: (done: number) => void; joined: () => Promise<ServiceProcess[]> }) => {
    if (options.warmup > 0 && !join) {
      const warm = newSubmissions(options.warmup);
      await publish(warm);
      await waitCompleted(warm.ids);
    }
    const analyzer = analyzing();
    await analyzer.first;
    await sleep(500); // acks of the last deliveries are counted after their ValidationComplete
    const ackedBefore = await acked(instances);
    const cpuBefore = { machine: machineCpuSeconds(), instances: await processCpu(instances), infrastructure: infrastructureSampler() };
    const batch = newSubmissions(options.submissions);
    const ids = batch.ids;
    const started = performance.now();
    await publish(batch);
    await waitCompleted(ids, join?.onProgress).finally(() => analyzer.stop());
    const seconds = (performance.now() - started) / 1000;
    const machineBusyCores = (machineCpuSeconds() - cpuBefore.machine) / seconds;
    const instanceCores = ((await processCpu([...instances, ...(join ? await join.joined() : [])])) - cpuBefore.instances) / seconds;
    const infrastructure = cpuBefore.infrastructure.stop();
    const infrastructureCores = {
      postgres: infrastructure.postgres / seconds, nats: infrastructure.nats / seconds, redis: infrastructure.redis / seconds, script: infrastructure.script / seconds,
    };
    await sleep(1_500); // late duplicates and the last acks
    const all = [...instances, ...(join ? await join.joined() : [])];
    const ackedAfter = await acked(all);
    const shares = ackedAfter.every((v) => v !== undefined) && ackedBefore.every((v) => v !== undefined)
      ? all.map((p, i) => ({ instance: p.name, count: ackedAfter[i]! - (ackedBefore[i] ?? 0) }))
      : undefined;
    const result: PhaseResult = { label, instances: all.length, submissions: ids.length, seconds, patientsPerSecond: ids.length / seconds, shares, machineBusyCores, instanceCores, infrastructureCores };
    phases.push(result);
    if (!shares) failures.push(`${label}: messaging_deliveries_total{consumer="${CONSUMER}",outcome="acked"} is not on the instances' /metrics`);
    else check(shares.reduce((n, s) => n + s.count, 0) === ids.length, `${label}: the instances acked ${shares.reduce((n, s) => n + s.count, 0)} deliveries for ${ids.length} submissions`);
    log(`${label}: ${ids.length} submissions in ${seconds.toFixed(1)} s: ${result.patientsPerSecond.toFixed(2)} patients/s; acked per instance: ${formatShares(shares)}; CPU: machine ${machineBusyCores.toFixed(2)} cores busy, validation instances ${instanceCores.toFixed(2)} cores`);
    return result;
  };

  let tenantResult: ScaleOutReport['tenant'] | undefined;
  let join = { startedAfterCompleted: 0, readyAfterSeconds: 0 };
  let storedOutcomes = { rows: 0, patients: 0 };
  try {
    log(`scale-out proof (run ${tag}): ${os.availableParallelism()} cores; ${options.submissions} submissions per phase (+${options.warmup} warm-up), validation.workers=${options.workers}, consumer concurrency ${options.concurrency}; ${options.facilities} facilities; NATS: ${privateNats ? `the run's own nats-server at ${natsUrl}` : `the machine's server at ${natsUrl} (production subjects)`}`);
    const starting = Date.now();
    const v1 = await startValidation(1);
    const tenants = await Promise.all([1, 2].map(async (n) => {
      const p = await startService(`tenant-${n}`, 'tenant', {
        DB_NAME: tenantDb, NATS_SERVERS: natsUrl, SCHEDULER_ENABLED: 'true', SCHEDULER_POLL_INTERVAL_MS: '100', SCHEDULER_BATCH_SIZE: '5',
        SCHEDULER_INSTANCE_ID: `tenant-${n}`, SIGNING_KEYS_JWKS_PATH: path.join(jwksDir, `jwks-${n}.json`),
      });
      processes.push(p);
      return p;
    }));
    // The tenant part runs while the first validation instance starts (stores the IG packages, builds its engine).
    const v1Ready = v1.ready(180_000);
    v1Ready.catch(() => undefined);
    await Promise.all(tenants.map((t) => t.ready(120_000)));
    log(`tenant-1 and tenant-2 ready after ${((Date.now() - starting) / 1000).toFixed(1)} s`);
    tenantResult = await tenantPart(tenants, tag, tenantDb, options, firings, check, log);
    await Promise.all(tenants.map(stopProcess));
    await v1Ready;
    log(`validation-1 ready after ${((Date.now() - starting) / 1000).toFixed(1)} s (IG packages from ${sharedDir('fhir-packages')} stored in its fresh database)`);

    const one = await measure('phase A, 1 instance ', [v1]);
    const v2 = await startValidation(2);
    await v2.ready(120_000);
    const two = await measure('phase A, 2 instances', [v1, v2]);
    log(`throughput 1 → 2 instances: ${one.patientsPerSecond.toFixed(2)} → ${two.patientsPerSecond.toFixed(2)} patients/s (×${(two.patientsPerSecond / one.patientsPerSecond).toFixed(2)})`);

    // Phase B: the third instance joins while the work is under way.
    reportService.delayMs = options.joinReportDelayMs;
    let v3: ServiceProcess | undefined;
    let v3Ready: Promise<void> | undefined;
    const joinAt = Math.ceil(options.submissions / 3);
    let joinStarted = 0;
    const onProgress = (done: number) => {
      if (v3Ready || done < joinAt) return;
      join = { ...join, startedAfterCompleted: done };
      joinStarted = Date.now();
      v3Ready = startValidation(3).then(async (p) => {
        v3 = p;
        await p.ready(120_000);
        join = { ...join, readyAfterSeconds: (Date.now() - joinStarted) / 1000 };
        log(`validation-3 started after ${join.startedAfterCompleted} of ${options.submissions} completed; ready ${join.readyAfterSeconds.toFixed(1)} s later`);
      });
      v3Ready.catch(() => undefined);
    };
    const joined = await measure('phase B, 2 + 1 joining', [v1, v2], {
      onProgress,
      // A third instance that is still starting is waited for: its counter is read once it listens.
      joined: async () => { await v3Ready?.catch(() => undefined); return v3 && !v3.child.exitCode ? [v3] : []; },
    });
    if (!v3Ready) throw new Error('phase B finished before the third instance was started');
    await v3Ready;
    reportService.delayMs = 0;
    const third = joined.shares?.find((s) => s.instance === 'validation-3');
    check(joined.instances === 3, 'phase B: validation-3 was not running when the phase ended');
    check((third?.count ?? 0) > 0, `phase B: validation-3 acked no submission (it started after ${join.startedAfterCompleted} completed and was ready ${join.readyAfterSeconds.toFixed(1)} s later)`);
    for (const phase of [two, joined]) {
      for (const share of phase.shares ?? []) check(share.count > 0, `${phase.label}: ${share.instance} acked nothing`);
    }

    const rows = psql(validationDb, `select count(*), count(distinct patient_id) from validation_outcome where patient_id like '%${tag}%'`)[0]!;
    storedOutcomes = { rows: Number(rows[0]), patients: Number(rows[1]) };
    for (const p of [v1, v2, v3!]) await stopProcess(p);
  } catch (error) {
    failures.push(`run aborted: ${(error as Error).stack ?? String(error)}`);
  } finally {
    for (const p of processes) if (p.child.exitCode === null && p.child.signalCode === null) await p.stop();
    for (const stop of stopFollowers) await stop();
    await reportService.close();
  }

  const duplicates = [...completions.values()].filter((n) => n > 1).length;
  const completed = completions.size;
  const lost = submitted - completed;
  check(lost === 0, `${lost} of ${submitted} submissions never completed`);
  check(duplicates === 0, `${duplicates} submissions completed more than once`);
  check(storedOutcomes.rows === submitted && storedOutcomes.patients === submitted, `stored outcomes: ${storedOutcomes.rows} rows for ${storedOutcomes.patients} patients; ${submitted} submitted`);

  let deadLettered = 0;
  try {
    deadLettered = await cleanUp(nats, streams, before, tag, !privateNats);
  } catch (error) {
    failures.push(`clean-up of the run's NATS messages failed: ${(error as Error).message}`);
  } finally {
    await nats.close().catch(() => undefined);
    await privateNats?.stop();
    for (const db of [validationDb, tenantDb]) psql('postgres', `drop database if exists "${db}" with (force)`);
    rmSync(jwksDir, { recursive: true, force: true });
  }
  check(deadLettered === 0, `${deadLettered} messages of the run were dead-lettered`);

  return {
    cores: os.availableParallelism(),
    tenant: tenantResult ?? { facilityPeriods: 0, distinctInStream: 0, duplicatesInStream: 0, outboxRows: 0, firedShares: undefined, claimedShares: [], httpShares: [], readBack: 0 },
    phases, join, submitted, completed, duplicates, lost, storedOutcomes, deadLettered, exitCodes, warnings, failures,
  };
}

/**
 * Two tenant instances: facilities and plans through both HTTP APIs, the job store's entries made
 * due, and every (facility, frequency, period) fired exactly once between the two schedulers.
 */
async function tenantPart(
  tenants: ServiceProcess[], tag: string, tenantDb: string, options: ScaleOutOptions, firings: Map<string, number>,
  check: (ok: boolean, failure: string) => void, log: (line: string) => void,
): Promise<ScaleOutReport['tenant']> {
  const answered = new Map(tenants.map((t) => [t.name, 0]));
  let turn = 0;
  /** Round robin over the instances, as a load balancer would spread the requests. */
  const call = async (method: string, route: string, body?: unknown, on?: ServiceProcess) => {
    const target = on ?? tenants[turn++ % tenants.length]!;
    const res = await fetch(`${target.url}${route}`, {
      method, headers: body === undefined ? {} : { 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    if (res.status >= 300) throw new Error(`${method} ${route} on ${target.name}: ${res.status} ${text.slice(0, 500)}`);
    answered.set(target.name, answered.get(target.name)! + 1);
    return text ? JSON.parse(text) as Record<string, unknown> : {};
  };
  const measures = { Daily: `SO${tag}DAILY`, Monthly: `SO${tag}MONTHLY` };
  const mappings = {
    Daily: await call('POST', '/api/measure-mappings', { dqm: `NHSNdQM${tag}Daily`, measure: measures.Daily, frequency: 'Daily' }),
    Monthly: await call('POST', '/api/measure-mappings', { dqm: `NHSNdQM${tag}Monthly`, measure: measures.Monthly, frequency: 'Monthly' }),
  };
  const zones = ['UTC', 'America/New_York', 'Europe/Berlin', 'Asia/Kolkata', 'Australia/Sydney', 'America/Los_Angeles'];
  const facilityIds = Array.from({ length: options.facilities }, (_, i) => `so-${tag}-f${i}`);
  let readBack = 0;
  await Promise.all(facilityIds.map(async (facilityId, i) => {
    const timeZone = zones[i % zones.length]!;
    const creator = tenants[i % tenants.length]!;
    await call('POST', '/api/facilities', {
      facilityId, facilityName: `Scale-out facility ${i}`, timeZone, scheduledReports: { daily: [measures.Daily], monthly: [measures.Monthly] },
    }, creator);
    const { year, month } = localMonth(timeZone);
    for (const mapping of [mappings.Daily, mappings.Monthly]) {
      await call('POST', '/api/facility-reporting-plans', { facilityId, measureMappingId: mapping.id, reportingYear: year, reportingMonth: month, isReporting: true });
    }
    // The other instance answers from the shared database.
    const other = tenants[(i + 1) % tenants.length]!;
    const read = await call('GET', `/api/facilities/${encodeURIComponent(facilityId)}`, undefined, other);
    if (read.facilityId === facilityId) readBack++;
  }));
  check(readBack === facilityIds.length, `tenant: ${readBack} of ${facilityIds.length} facilities read back from the other instance`);

  const facilityPeriods = facilityIds.length * 2;
  const spread = Math.max(1, Math.round(options.spreadMs / facilityPeriods));
  const moved = psql(tenantDb, `with x as (select facility_id, frequency, row_number() over (order by random()) as n from report_schedule)
    update report_schedule s set next_fire_at = now() + x.n * interval '${spread} milliseconds' from x
    where s.facility_id = x.facility_id and s.frequency = x.frequency returning s.facility_id`).length;
  check(moved === facilityPeriods, `tenant: ${moved} job-store entries for ${facilityPeriods} facility-periods`);
  const until = Date.now() + options.spreadMs + 30_000;
  while (firings.size < facilityPeriods && Date.now() < until) await sleep(100);
  await sleep(1_500); // many poll intervals: a second firing would show now

  const ids = new Set(facilityIds);
  const distinctInStream = [...firings.keys()].filter((k) => ids.has(k.split('|')[0]!)).length;
  const duplicatesInStream = [...firings.values()].filter((n) => n > 1).length;
  const subject = catalog.byName('ReportScheduled').subject;
  const outboxRows = Number(psql(tenantDb, `select count(*) from outbox_message where subject = '${subject}'`)[0]![0]);
  const claimedShares = psql(tenantDb, 'select coalesce(claimed_by, \'(none)\'), count(*) from report_schedule group by 1 order by 1')
    .map(([instance, count]) => ({ instance: instance!, count: Number(count) }));
  const fired = await Promise.all(tenants.map(async (t) => counterValue(await t.metrics(), 'scheduler_reports_scheduled_total', {})));
  const firedShares = fired.every((v) => v !== undefined) ? tenants.map((t, i) => ({ instance: t.name, count: fired[i]! })) : undefined;
  const httpShares = tenants.map((t) => ({ instance: t.name, count: answered.get(t.name)! }));

  check(distinctInStream === facilityPeriods, `tenant: ReportScheduled for ${distinctInStream} of ${facilityPeriods} facility-periods`);
  check(duplicatesInStream === 0, `tenant: ${duplicatesInStream} facility-periods with more than one ReportScheduled in the stream`);
  check(outboxRows === facilityPeriods, `tenant: ${outboxRows} ReportScheduled outbox rows for ${facilityPeriods} facility-periods (a double firing)`);
  if (firedShares) check(firedShares.reduce((n, s) => n + s.count, 0) === facilityPeriods, `tenant: scheduler_reports_scheduled_total sums to ${firedShares.reduce((n, s) => n + s.count, 0)} for ${facilityPeriods} facility-periods`);
  for (const share of httpShares) check(share.count > 0, `tenant: ${share.instance} answered no request`);

  log(`tenant: ${facilityIds.length} facilities × (daily, monthly) = ${facilityPeriods} facility-periods; ReportScheduled in the stream: ${distinctInStream} distinct, ${duplicatesInStream} duplicated; outbox rows ${outboxRows}`);
  log(`tenant firings per instance (scheduler_reports_scheduled_total): ${formatShares(firedShares)}; job store claimed_by: ${formatShares(claimedShares)}`);
  log(`tenant HTTP answers per instance: ${formatShares(httpShares)}; facilities created on one instance and read back from the other: ${readBack}/${facilityIds.length}`);
  return { facilityPeriods, distinctInStream, duplicatesInStream, outboxRows, firedShares, claimedShares, httpShares, readBack };
}

/**
 * On the machine's NATS, removes what the run created there: every message of the catalog's streams
 * that carries the run tag, and streams/durable consumers that did not exist before. Returns how many
 * of the run's messages are in the dead-letter stream (on either server).
 */
async function cleanUp(
  nats: NatsHandle, streams: readonly { name: string }[], before: Map<string, { lastSeq: number; consumers: Set<string> } | undefined>,
  tag: string, deleteMessages: boolean,
): Promise<number> {
  let deadLettered = 0;
  for (const { name } of streams) {
    const info = await nats.jsm.streams.info(name).catch(() => undefined);
    if (!info) continue;
    const was = before.get(name);
    const mine = await taggedMessages(nats, name, (was?.lastSeq ?? 0) + 1, info.state.last_seq, tag);
    if (name === catalog.deadLetterStream.name) deadLettered = mine.length;
    if (!deleteMessages) continue;
    for (let i = 0; i < mine.length; i += 100) {
      await Promise.all(mine.slice(i, i + 100).map((seq) => nats.jsm.streams.deleteMessage(name, seq, false).catch(() => false)));
    }
    if (!was) {
      const after = await nats.jsm.streams.info(name);
      if (after.state.messages === 0) await nats.jsm.streams.delete(name);
      continue;
    }
    for await (const c of nats.jsm.consumers.list(name)) {
      if (c.config.durable_name && !was.consumers.has(c.name)) await nats.jsm.consumers.delete(name, c.name).catch(() => undefined);
    }
  }
  return deadLettered;
}

/**
 * Sequences of the messages from `from` to `last` whose body contains the tag. Fetches in batches
 * until a fetch comes back empty or reaches `last`, so messages removed meanwhile (another process
 * purging the stream) end the scan instead of blocking it.
 */
async function taggedMessages(nats: NatsHandle, stream: string, from: number, last: number, tag: string): Promise<number[]> {
  const mine: number[] = [];
  if (last < from) return mine;
  const consumer = await nats.js.consumers.get(stream, { deliver_policy: DeliverPolicy.StartSequence, opt_start_seq: from });
  const decoder = new TextDecoder();
  for (let done = false; !done;) {
    let got = 0;
    for await (const m of await consumer.fetch({ max_messages: 500, expires: 1_000 })) {
      got++;
      if (decoder.decode(m.data).includes(tag)) mine.push(m.seq);
      if (m.seq >= last) done = true;
    }
    if (got === 0) done = true;
  }
  const { name } = await consumer.info(true);
  await nats.jsm.consumers.delete(stream, name).catch(() => undefined);
  return mine;
}

function parseArgs(argv: readonly string[]): ScaleOutOptions {
  const number = (flag: string, fallback: number) => {
    const i = argv.indexOf(flag);
    if (i < 0) return fallback;
    const value = Number(argv[i + 1]);
    if (!Number.isFinite(value) || value < 0) throw new Error(`${flag} needs a non-negative number`);
    return value;
  };
  return {
    submissions: number('--submissions', DEFAULT_OPTIONS.submissions),
    warmup: number('--warmup', DEFAULT_OPTIONS.warmup),
    facilities: number('--facilities', DEFAULT_OPTIONS.facilities),
    workers: number('--workers', DEFAULT_OPTIONS.workers),
    concurrency: number('--concurrency', DEFAULT_OPTIONS.concurrency),
    joinReportDelayMs: number('--join-report-delay-ms', DEFAULT_OPTIONS.joinReportDelayMs),
    spreadMs: number('--spread-ms', DEFAULT_OPTIONS.spreadMs),
    machineNats: argv.includes('--machine-nats'),
  };
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const options = parseArgs(process.argv.slice(2));
  const log = (line: string) => process.stdout.write(`${line}\n`);
  const report = await runScaleOut({ ...options, log });
  printReport(report, options, log);
  process.exitCode = report.failures.length === 0 ? 0 : 1;
}
