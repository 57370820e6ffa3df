/**
 * `npm run demo`: the whole event flow in one command, for a newcomer.
 *
 *  1. Uses the running services (validation service /health/ready, gateway /health), or starts them
 *     (infrastructure check, build, `dist/scripts/start-all.js` with AUTH_MODE=none on 127.0.0.1;
 *     their log goes to .cache/demo/services.log).
 *  2. Starts a report-service stand-in (scripts/demo/report-service-stand-in.ts) where the validation
 *     service looks for the report service (SVC_REPORT_SERVICE_URL, default http://127.0.0.1:5110),
 *     serving synthetic submissions written for this project (synthetic-submissions.ts), valid and
 *     invalid, and the report's measures and period.
 *  3. Publishes ReadyForValidation for each patient (one of them with a payloadUri into the stand-in),
 *     waits for each ValidationComplete, and prints verdict, issue counts and time per patient.
 *  4. Prints the pre-qualification report URL (through the gateway) and leaves everything running so
 *     it can be opened; Ctrl-C stops what the demo started. `--exit` stops at once (CI, scripts) and
 *     then prints no URL or command: the report reads its measures and period from the stand-in, and
 *     a ReadyForValidation published by hand would be fetched from it, and it is gone.
 *
 * SIGINT or SIGTERM at any moment (while the services start, while waiting for the verdicts, or at the
 * end) stops everything the demo started: the stand-in, and the services when it started them. The
 * npm script runs this file in one Node process (`exec node --import tsx`), so npm's signal reaches it
 * with no tsx CLI or shell in between.
 *
 * Options: --gateway-url (default http://127.0.0.1:8080), --validation-url (default http://127.0.0.1:8081),
 * --token <bearer> (services running with AUTH_MODE=jwt), --timeout <seconds> (per run, default 300), --exit.
 * NATS settings as the services read them (NATS_SERVERS, NATS_NAMESPACE ...): they must match the services'.
 * Exit code 0 when every verdict is the expected one, 1 otherwise.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, openSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { loadConfig } from '#adapters/config/index.js';
import { connectNats } from '#adapters/messaging/connection.js';
import { silentLogger } from '#adapters/observability/logger.js';
import { catalogForNamespace } from '#contracts/catalog.js';
import type { ValidationComplete } from '#contracts/types.js';
import { publisherSchema, publishReadyForValidation } from '#validation/cli/publish-ready-for-validation.js';
import { validationSchema } from '#validation/config.js';
import { ReportServiceStandIn } from './report-service-stand-in.js';
import { DEMO_FACILITY, DEMO_MEASURES, DEMO_PERIOD, demoSubmissions } from './synthetic-submissions.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const say = (line = '') => process.stdout.write(`${line}\n`);
const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

const { values: options } = parseArgs({
  args: process.argv.slice(2), allowPositionals: false, strict: true,
  options: {
    'gateway-url': { type: 'string', default: 'http://127.0.0.1:8080' },
    'validation-url': { type: 'string', default: 'http://127.0.0.1:8081' },
    token: { type: 'string' },
    timeout: { type: 'string', default: '300' },
    exit: { type: 'boolean', default: false },
  },
});
const gateway = options['gateway-url'].replace(/\/+$/, '');
const validation = options['validation-url'].replace(/\/+$/, '');
const timeoutMs = Number(options.timeout) * 1000;
const authorization: Record<string, string> = options.token ? { authorization: `Bearer ${options.token}` } : {};

async function answers(url: string): Promise<boolean> {
  try {
    return (await fetch(url, { signal: AbortSignal.timeout(2_000) })).ok;
  } catch {
    return false;
  }
}

async function waitFor(what: string, check: () => Promise<boolean>, limitMs: number, child?: ChildProcess): Promise<void> {
  const until = Date.now() + limitMs;
  while (!(await check())) {
    if (child && child.exitCode !== null) throw new Error(`the services stopped while waiting for ${what} (exit ${child.exitCode}); see .cache/demo/services.log`);
    if (Date.now() > until) throw new Error(`${what} did not come up within ${seconds(limitMs)}`);
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}

/** Starts the three services the way `npm start` does (infrastructure, build, start-all), logging to a file. */
async function startServices(): Promise<ChildProcess> {
  say('No services answer: starting them (infrastructure check, build when the sources changed, then the three services with AUTH_MODE=none on 127.0.0.1).');
  for (const [command, args] of [['bash', ['scripts/ensure-infrastructure.sh']], [process.execPath, ['scripts/build/build-if-changed.ts']]] as const) {
    // Asynchronously, so that a signal meanwhile is handled at once (and stops this step too).
    preparing = spawn(command, [...args], { cwd: root, stdio: ['ignore', 'inherit', 'inherit'] });
    const status = await new Promise<number | null>((resolve) => preparing!.once('exit', (code) => resolve(code)));
    preparing = undefined;
    if (status !== 0) throw new Error(`${command} ${args.join(' ')} failed (exit ${status})`);
  }
  const logDir = path.join(root, '.cache', 'demo');
  mkdirSync(logDir, { recursive: true });
  const log = openSync(path.join(logDir, 'services.log'), 'a');
  say(`Service logs: ${path.relative(process.cwd(), path.join(logDir, 'services.log'))}`);
  return spawn(process.execPath, [path.join(root, 'dist', 'scripts', 'start-all.js')], {
    cwd: root, detached: true, stdio: ['ignore', log, log],
    env: { ...process.env, AUTH_MODE: 'none', HTTP_HOST: '127.0.0.1' },
  });
}

interface Row {
  patientId: string;
  description: string;
  expectValid: boolean;
  publishedAt: number;
  completion?: ValidationComplete;
  completedAt?: number;
}

/** The services this demo started (stopped when it ends), and the stand-in. */
let services: ChildProcess | undefined;
/** The infrastructure check or build running before the services start. */
let preparing: ChildProcess | undefined;
const reportService = new ReportServiceStandIn();

let stopping: Promise<void> | undefined;

/** Stops the stand-in and the services the demo started; once, whoever asks first. */
function stopAll(): Promise<void> {
  stopping ??= stopEverything();
  return stopping;
}

async function stopEverything(): Promise<void> {
  preparing?.kill('SIGTERM');
  await reportService.stop();
  if (services && services.exitCode === null) {
    // To start-all only: it passes SIGTERM on to each service, which then drains.
    services.kill('SIGTERM');
    await new Promise((resolve) => services!.once('exit', resolve));
  }
}

/** Resolves on the first SIGINT or SIGTERM; the demo then stops what it started (see stopAll). */
const interrupted = new Promise<NodeJS.Signals>((resolve) => {
  process.once('SIGINT', () => resolve('SIGINT'));
  process.once('SIGTERM', () => resolve('SIGTERM'));
});
void interrupted.then(async (signal) => {
  say(`\n${signal}: stopping what the demo started.`);
  await stopAll().catch(() => undefined);
  process.exit(signal === 'SIGINT' ? 130 : 143);
});

async function main(): Promise<number> {
  const started = Date.now();

  if (!(await answers(`${validation}/health/ready`)) && !(await answers(`${gateway}/health`))) {
    services = await startServices();
    await waitFor('the validation service', () => answers(`${validation}/health/ready`), timeoutMs, services);
    await waitFor('the gateway', () => answers(`${gateway}/health`), 60_000, services);
    say(`Services ready ${seconds(Date.now() - started)} after the start of the demo.`);
  } else {
    await waitFor('the validation service', () => answers(`${validation}/health/ready`), 60_000);
    say(`Using the running services: gateway ${gateway}, validation service ${validation}.`);
  }

  const artifacts = await fetch(`${gateway}/api/validation/artifact`, { headers: authorization });
  if (artifacts.status === 401) throw new Error('the gateway wants a token: start the services with AUTH_MODE=none, or pass --token');
  const packages = artifacts.status === 200 ? ((await artifacts.json()) as { type: string; name: string; version?: string }[]).filter((a) => a.type === 'PACKAGE') : [];
  say(`IG packages in the validation service: ${packages.length === 0 ? 'NONE (only FHIR core is checked; POST /api/validation/artifact/$initialize loads the embedded ones)' : packages.map((p) => `${p.name}#${p.version ?? '?'}`).join(', ')}`);

  // The stand-in listens where the validation service looks for the report service.
  const serviceConfig = loadConfig({ reportServiceUrl: validationSchema.reportServiceUrl });
  const standInAddress = new URL(serviceConfig.reportServiceUrl);
  try {
    await reportService.start(Number(standInAddress.port || 80), standInAddress.hostname);
  } catch (error) {
    throw new Error(`the report-service stand-in cannot listen on ${standInAddress.host} (${(error as Error).message}); `
      + 'is another demo running? Set SVC_REPORT_SERVICE_URL to a free address for both the services and the demo', { cause: error });
  }
  const reportId = `demo-report-${new Date().toISOString().replace(/[-:]/g, '').replace(/\.\d+Z$/, 'Z')}`;
  reportService.addReport({ facilityId: DEMO_FACILITY, reportId, measures: DEMO_MEASURES, period: DEMO_PERIOD, submittedAt: new Date().toISOString() });
  const submissions = demoSubmissions();
  for (const submission of submissions) reportService.addSubmission(DEMO_FACILITY, reportId, submission.patientId, submission.body);
  say(`Report service stand-in on ${reportService.url}: facility ${DEMO_FACILITY}, report ${reportId}, ${submissions.length} patients.`);

  const config = loadConfig(publisherSchema);
  const catalog = catalogForNamespace(config.natsNamespace, config.natsStreamLimits);
  const nats = await connectNats({
    servers: [...config.natsServers], user: config.natsUser, pass: config.natsPassword, token: config.natsToken, name: 'demo', logger: silentLogger(),
  });
  const rows = new Map<string, Row>();
  const done = new Promise<void>((resolve) => {
    const subscription = nats.nc.subscribe(catalog.byName('ValidationComplete').subject, {
      callback: (_error, message) => {
        const completion = message.json<ValidationComplete>();
        const row = rows.get(completion.patientId);
        if (!row || completion.reportTrackingId !== reportId || completion.facilityId !== DEMO_FACILITY || row.completion) return;
        row.completion = completion;
        row.completedAt = Date.now();
        if ([...rows.values()].every((r) => r.completion)) {
          subscription.unsubscribe();
          resolve();
        }
      },
    });
  });
  await nats.nc.flush();

  say(`Publishing ReadyForValidation on ${catalog.byName('ReadyForValidation').subject} ...`);
  for (const [index, submission] of submissions.entries()) {
    rows.set(submission.patientId, { patientId: submission.patientId, description: submission.description, expectValid: submission.expectValid, publishedAt: Date.now() });
    // The second patient's submission is named by a payloadUri into the report service (read as NDJSON).
    const payloadUri = index === 1 ? reportService.payloadUri(DEMO_FACILITY, reportId, submission.patientId) : undefined;
    await publishReadyForValidation(nats.js, catalog, { facilityId: DEMO_FACILITY, reportId, patientId: submission.patientId, reportTypes: DEMO_MEASURES, ...(payloadUri ? { payloadUri } : {}) });
  }
  const timedOut = await Promise.race([done.then(() => false), new Promise<boolean>((resolve) => setTimeout(() => resolve(true), timeoutMs).unref())]);
  await nats.close();

  say();
  say('patient            expected  verdict   errors warnings info unacceptable  time      what');
  let mismatches = 0;
  for (const row of rows.values()) {
    const c = row.completion;
    const verdict = c ? (c.isValid ? 'valid' : 'invalid') : 'no answer';
    if (!c || c.isValid !== row.expectValid) mismatches++;
    const counts = c?.issueCounts;
    say([
      row.patientId.padEnd(18), (row.expectValid ? 'valid' : 'invalid').padEnd(9), verdict.padEnd(9),
      String(counts?.errors ?? '-').padStart(6), String(counts?.warnings ?? '-').padStart(8), String(counts?.information ?? '-').padStart(4),
      String(counts?.unacceptable ?? '-').padStart(12), (row.completedAt ? seconds(row.completedAt - row.publishedAt) : '-').padStart(8),
      `  ${row.description}${c && c.isValid !== row.expectValid ? '   <-- NOT AS EXPECTED' : ''}`,
    ].join(' '));
  }
  if (timedOut) say(`\nNo ValidationComplete for some patients within ${seconds(timeoutMs)}: see the validation service log.`);
  const prequal = `${gateway}/api/validation/result/${DEMO_FACILITY}/${reportId}/$pre-qualification-report`;
  const summary = await fetch(`${prequal}?format=json`, { headers: authorization });
  const metadata = summary.ok ? ((await summary.json()) as { metadata?: { measures: string[] }; metadataNote?: string; verdict: { preQualified: boolean } }) : undefined;
  say();
  if (options.exit) {
    // Nothing that dies with the demo: the stand-in (measures, period, submissions) stops now.
    if (metadata) say(`Pre-qualified: ${metadata.verdict.preQualified ? 'yes' : 'no'} (run the demo without --exit to open the report).`);
  } else {
    say(`Pre-qualification report: ${prequal}`);
    if (metadata) say(`  pre-qualified: ${metadata.verdict.preQualified ? 'yes' : 'no'}; measures: ${metadata.metadata?.measures.join(', ') ?? metadata.metadataNote}`);
    say(`Results of one patient:   ${gateway}/api/validation/result/${DEMO_FACILITY}/${reportId}/${submissions[2]!.patientId}`);
    say(`Publish more by hand:     npm run publish:ready -- --facility ${DEMO_FACILITY} --report ${reportId} --patient ${submissions[0]!.patientId}`);
  }
  say(`Whole demo: ${seconds(Date.now() - started)}; ${mismatches === 0 ? 'every verdict as expected' : `${mismatches} verdict(s) not as expected`}.`);

  if (options.exit) {
    await stopAll();
    return mismatches === 0 ? 0 : 1;
  }
  say(services ? '\nThe services and the report-service stand-in keep running so the report can be opened; Ctrl-C stops them.'
    : '\nThe report-service stand-in keeps running (the report shows its measures and period); Ctrl-C stops it.');
  // The signal handler above stops everything and exits.
  return new Promise<number>(() => undefined);
}

main().then((code) => process.exit(code), async (error: unknown) => {
  process.stderr.write(`demo failed: ${error instanceof Error ? error.message : String(error)}\n`);
  await stopAll().catch(() => undefined);
  process.exit(1);
});
