/**
 * Fault run: no submission is lost or dead-lettered when PostgreSQL and then the report service go
 * away for a while during a flow run.
 *
 *   npm run fault:outage -- [--submissions 36] [--database-outage 180] [--report-outage 180]
 *                           [--max-retry-delay 30] [--report-delay-ms 500] [--concurrency 4]
 *
 * One real validation service process (services/validation/src/main.ts, configured by environment
 * variables only, as scripts/scale-out starts them) with:
 * - PostgreSQL (the machine's, a fresh database of the run) reached through a TCP proxy of the run
 *   (tcp-proxy.ts): the outage destroys every live connection and refuses new ones, as a crash or a
 *   failover does, without touching the shared server;
 * - a report-service stand-in (scripts/scale-out/report-service.ts) answering after
 *   `--report-delay-ms`, so that submissions are in flight when it goes away; its outage closes its
 *   connections and refuses new ones, as a deploy does;
 * - a NATS JetStream server of the run's own (scripts/scale-out/private-nats.ts);
 * - no IG packages (core definitions only: what is validated does not matter here).
 *
 * Timeline: a third of the submissions is published; at the first completion (the rest of that
 * third in flight) the database is cut for `--database-outage` seconds (the second third is published halfway through); once the first
 * third has completed, the last third is published and the report service is stopped for
 * `--report-outage` seconds; then the run waits until everything drained. Checked: every
 * submission has exactly one ValidationComplete, nothing is dead-lettered, the service process
 * stays up and stops cleanly. Printed: completed, dead-lettered, duplicated, time to drain (from the
 * end of the last outage until the last submission completed, the consumer was idle and the outbox
 * empty) and the retries the consumer made in place. Exits non-zero when a check fails.
 *
 * `runOutage()` is the same run for test/fault-outage.int.spec.ts, with outages of a few seconds and a
 * short retry delay.
 */
import { randomBytes } from 'node:crypto';
import { parseArgs } from 'node:util';
import { pathToFileURL } from 'node:url';
import { MikroORM } from '@mikro-orm/postgresql';
import type { JsMsg } from '@nats-io/jetstream';
import { catalogForNamespace, streamLimitsFromEnvironment } from '#contracts/catalog.js';

/** The production subjects, with streams sized for this machine (the services it starts get the same NATS_STREAM_LIMITS). */
const catalog = catalogForNamespace(undefined, streamLimitsFromEnvironment(process.env.NATS_STREAM_LIMITS, 'local'));
import { connectNats, type NatsHandle } from '#adapters/messaging/connection.js';
import { provisionCatalog } from '#adapters/messaging/provisioning.js';
import { silentLogger } from '#adapters/observability/logger.js';
import { OutboxMessageEntity } from '#adapters/persistence/index.js';
import { startPrivateNats } from '../scale-out/private-nats.js';
import { startReportService } from '../scale-out/report-service.js';
import { counterValue, startService, type ServiceProcess } from '../scale-out/service-process.js';
import { startTcpProxy } from './tcp-proxy.js';

export interface OutageOptions {
  /** ReadyForValidation in all (three waves). */
  readonly submissions: number;
  readonly databaseOutageMs: number;
  readonly reportServiceOutageMs: number;
  /** validation.outage-retry-max-delay of the service, seconds. */
  readonly maxRetryDelaySeconds: number;
  /** The report service answers after this (keeps submissions in flight). */
  readonly reportDelayMs: number;
  /** validation.consumer-concurrency. */
  readonly concurrency: number;
  /** Longest wait for any step (first completions, draining). */
  readonly stepTimeoutMs: number;
  readonly log?: (line: string) => void;
}

export interface OutageReport {
  readonly submitted: number;
  /** Submissions with at least one ValidationComplete. */
  readonly completed: number;
  readonly deadLettered: number;
  /** Submissions with more than one ValidationComplete (a second run, or a copy of the same message). */
  readonly duplicated: number;
  /** ValidationComplete messages that repeat a run already announced (same message published twice). */
  readonly repeatedMessages: number;
  /** From the end of the report-service outage until all completed, the consumer was idle and the outbox empty. */
  readonly drainMs: number;
  /** Handler calls the consumer repeated in place (messaging_dependency_retries_total). */
  readonly retriesInPlace: number;
  /** Redeliveries asked for (outcome retry: naks, hand-backs). */
  readonly deliveriesRetried: number;
  /** Most messages held for a dependency at once (sampled every second). */
  readonly heldAtMost: number;
  /** Completed before each outage and at its end. */
  readonly timeline: readonly { readonly event: string; readonly atMs: number; readonly completed: number }[];
  readonly exitCode: number | null;
  readonly failures: readonly string[];
}

const CONSUMER = 'validation-ready-for-validation';
const PG = { host: process.env.PGHOST ?? '127.0.0.1', port: Number(process.env.PGPORT ?? 5432), user: process.env.PGUSER ?? 'postgres' };

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function until(condition: () => boolean | Promise<boolean>, what: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${Math.round(timeoutMs / 1000)} s waiting for ${what}`);
    await sleep(100);
  }
}

async function withDatabase<T>(dbName: string, use: (orm: MikroORM) => Promise<T>): Promise<T> {
  const orm = await MikroORM.init({ ...PG, dbName, entities: [OutboxMessageEntity], ensureDatabase: false, allowGlobalContext: true, pool: { min: 0, max: 1 } });
  try {
    return await use(orm);
  } finally {
    await orm.close(true);
  }
}

/** ValidationComplete messages of the run's stream, read as they are stored. */
async function followCompletions(nats: NatsHandle, onMessage: (payload: { patientId: string; validationRunId: string }) => void): Promise<() => Promise<void>> {
  const completion = catalog.byName('ValidationComplete');
  const reader = await nats.js.consumers.get(completion.stream!, { filter_subjects: completion.subject });
  const messages = await reader.consume();
  void (async () => {
    for await (const m of messages as AsyncIterable<JsMsg>) onMessage(m.json());
  })();
  return async () => { await messages.close(); };
}

export async function runOutage(options: OutageOptions): Promise<OutageReport> {
  const log = options.log ?? (() => undefined);
  const tag = `${Date.now().toString(36)}${randomBytes(3).toString('hex')}`;
  const dbName = `test_fault_${tag}`;
  const failures: string[] = [];
  const timeline: { event: string; atMs: number; completed: number }[] = [];
  const started = Date.now();

  const natsServer = await startPrivateNats();
  const proxy = await startTcpProxy({ host: PG.host, port: PG.port });
  const reportService = await startReportService();
  reportService.delayMs = options.reportDelayMs;
  let nats: NatsHandle | undefined;
  let service: ServiceProcess | undefined;
  let stopFollowing: (() => Promise<void>) | undefined;
  let sampler: NodeJS.Timeout | undefined;
  try {
    nats = await connectNats({ servers: natsServer.url, name: 'fault-outage', logger: silentLogger() });
    await provisionCatalog(nats.jsm, catalog);
    const runs = new Map<string, string[]>();
    stopFollowing = await followCompletions(nats, ({ patientId, validationRunId }) => {
      runs.set(patientId, [...(runs.get(patientId) ?? []), validationRunId]);
    });
    const completed = () => runs.size;
    const mark = (event: string) => {
      timeline.push({ event, atMs: Date.now() - started, completed: completed() });
      log(`${((Date.now() - started) / 1000).toFixed(1).padStart(6)} s  ${event} (completed ${completed()}/${options.submissions})`);
    };

    service = await startService('validation', 'validation', {
      DB_HOST: '127.0.0.1', DB_PORT: String(proxy.port), DB_USER: PG.user, DB_NAME: dbName,
      NATS_SERVERS: natsServer.url, SVC_REPORT_SERVICE_URL: reportService.url, SVC_REPORT_SERVICE_TIMEOUT_MS: '10000',
      ARTIFACT_INIT: 'false', VALIDATION_WORKERS: '1', VALIDATION_CONSUMER_CONCURRENCY: String(options.concurrency),
      VALIDATION_OUTAGE_RETRY_MAX_DELAY: String(options.maxRetryDelaySeconds), CACHE_TYPE: 'memory',
    });
    let exitedEarly = false;
    void service.exited.then(() => { exitedEarly = true; });
    await service.ready(180_000);
    mark('service ready');

    let heldAtMost = 0;
    const sample = async () => {
      const text = await service!.metrics().catch(() => '');
      const held = /^messaging_messages_held_for_dependency\{[^}]*\} (\d+)/m.exec(text);
      if (held) heldAtMost = Math.max(heldAtMost, Number(held[1]));
    };
    sampler = setInterval(() => void sample(), 1_000);

    const ready = catalog.byName('ReadyForValidation');
    const patients: string[] = [];
    const publishWave = async (count: number) => {
      const ids = Array.from({ length: count }, () => reportService.add(`${tag}-${patients.length + 1}-${randomBytes(2).toString('hex')}`).patientId);
      patients.push(...ids);
      await Promise.all(ids.map((patientId) => nats!.js.publish(ready.subject, JSON.stringify({
        schemaVersion: ready.version, facilityId: `fault-${tag}`, reportTrackingId: `report-${tag}`, patientId, reportTypes: ['NHSNdQMAcuteCareHospitalInitialPopulation'],
      }), { msgID: `fault-${patientId}` })));
    };
    const third = Math.max(1, Math.floor(options.submissions / 3));
    const waves = [third, third, options.submissions - 2 * third];

    await publishWave(waves[0]!);
    mark(`published ${waves[0]} submissions`);
    // Cut at the first completion: the rest of the wave is being fetched, validated or committed.
    await until(() => completed() >= 1, 'the first completion', options.stepTimeoutMs);

    await proxy.cut();
    mark(`PostgreSQL cut for ${options.databaseOutageMs / 1000} s`);
    await sleep(options.databaseOutageMs / 2);
    await publishWave(waves[1]!);
    mark(`published ${waves[1]} submissions`);
    await sleep(options.databaseOutageMs / 2);
    await proxy.restore();
    mark('PostgreSQL back');

    await until(() => patients.slice(0, waves[0]).every((id) => runs.has(id)), 'the first wave to complete', options.stepTimeoutMs);
    await publishWave(waves[2]!);
    mark(`published ${waves[2]} submissions`);
    // Let the last wave's report-service calls start (the stand-in answers after reportDelayMs).
    await sleep(Math.min(1_000, options.reportDelayMs / 2));
    await reportService.stop();
    mark(`report service stopped for ${options.reportServiceOutageMs / 1000} s`);
    await sleep(options.reportServiceOutageMs);
    await reportService.restart();
    const restored = Date.now();
    mark('report service back');

    const unpublished = () => withDatabase(dbName, async (orm) => Number((await orm.em.fork().execute<{ n: string }[]>(
      'select count(*) as n from outbox_message where published_at is null'))[0]!.n));
    const consumerIdle = async () => {
      const info = await nats!.jsm.consumers.info(ready.stream!, CONSUMER);
      return info.num_pending === 0 && info.num_ack_pending === 0;
    };
    try {
      await until(async () => patients.every((id) => runs.has(id)) && (await consumerIdle()) && (await unpublished()) === 0,
        'every submission to complete', options.stepTimeoutMs);
    } catch (error) {
      failures.push((error as Error).message);
    }
    const drainMs = Date.now() - restored;
    mark('drained');
    // Late copies (a relay republishing after its lease) would arrive within a few seconds.
    await sleep(2_000);
    clearInterval(sampler);
    await sample();

    const metrics = await service.metrics();
    const retriesInPlace = counterValue(metrics, 'messaging_dependency_retries_total', { consumer: CONSUMER }) ?? 0;
    const deliveriesRetried = counterValue(metrics, 'messaging_deliveries_total', { consumer: CONSUMER, outcome: 'retry' }) ?? 0;
    const deadLettered = (await nats.jsm.streams.info(catalog.deadLetterStream.name)).state.messages;
    const mine = patients.map((id) => runs.get(id) ?? []);
    const report = {
      submitted: patients.length,
      completed: mine.filter((r) => r.length > 0).length,
      deadLettered,
      duplicated: mine.filter((r) => r.length > 1).length,
      repeatedMessages: mine.reduce((n, r) => n + r.length - new Set(r).size, 0),
      drainMs, retriesInPlace, deliveriesRetried, heldAtMost, timeline,
    };
    if (exitedEarly) failures.push(`the service process exited during the run:\n${service.output().slice(-3000)}`);
    const exitCode = await service.stop();
    if (exitCode !== 0) failures.push(`the service exited with ${exitCode} on SIGTERM:\n${service.output().slice(-2000)}`);
    if (report.completed !== report.submitted) failures.push(`${report.submitted - report.completed} of ${report.submitted} submissions never completed`);
    if (report.deadLettered !== 0) failures.push(`${report.deadLettered} message(s) dead-lettered`);
    if (report.duplicated !== 0) failures.push(`${report.duplicated} submission(s) completed more than once`);
    return { ...report, exitCode, failures };
  } finally {
    clearInterval(sampler);
    await service?.stop().catch(() => undefined);
    await stopFollowing?.().catch(() => undefined);
    await nats?.close().catch(() => undefined);
    await reportService.close();
    await proxy.close();
    await natsServer.stop();
    await withDatabase('postgres', (orm) => orm.em.fork().execute(`drop database if exists "${dbName}" with (force)`)).catch(() => undefined);
  }
}

async function main(args: string[]): Promise<void> {
  const { values } = parseArgs({
    args, strict: true, allowPositionals: false, options: {
      submissions: { type: 'string', default: '36' },
      'database-outage': { type: 'string', default: '180' },
      'report-outage': { type: 'string', default: '180' },
      'max-retry-delay': { type: 'string', default: '30' },
      'report-delay-ms': { type: 'string', default: '500' },
      concurrency: { type: 'string', default: '4' },
    },
  });
  const seconds = (name: keyof typeof values) => Number(values[name]) * 1_000;
  const report = await runOutage({
    submissions: Number(values.submissions), databaseOutageMs: seconds('database-outage'), reportServiceOutageMs: seconds('report-outage'),
    maxRetryDelaySeconds: Number(values['max-retry-delay']), reportDelayMs: Number(values['report-delay-ms']), concurrency: Number(values.concurrency),
    stepTimeoutMs: 600_000, log: (line) => process.stdout.write(`${line}\n`),
  });
  process.stdout.write([
    '',
    `submitted          ${report.submitted}`,
    `completed          ${report.completed}`,
    `dead-lettered      ${report.deadLettered}`,
    `duplicated         ${report.duplicated} (repeated messages ${report.repeatedMessages})`,
    `time to drain      ${(report.drainMs / 1000).toFixed(1)} s after the last outage ended`,
    `retries in place   ${report.retriesInPlace} (redeliveries ${report.deliveriesRetried}, held at most ${report.heldAtMost} at once)`,
    `service exit code  ${report.exitCode}`,
    report.failures.length === 0 ? 'all checks passed' : `FAILED:\n- ${report.failures.join('\n- ')}`,
    '',
  ].join('\n'));
  if (report.failures.length > 0) process.exitCode = 1;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main(process.argv.slice(2)).catch((error: unknown) => {
    process.stderr.write(`fault:outage failed: ${error instanceof Error ? error.stack : String(error)}\n`);
    process.exitCode = 1;
  });
}
