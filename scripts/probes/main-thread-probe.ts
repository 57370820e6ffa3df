/**
 * Probes of issue 28 against the validation service's HTTP frame as production builds it (auth.mode
 * jwt, serviceHttpApp + validationApiHttpFrame, the engine host with one worker and a 2 s resource
 * deadline and, as the service, a request budget of as much from each request's arrival, PostgreSQL
 * for the categories): each hostile request is sent while `/health` is polled every 50 ms, and the
 * figures are printed (answer status and time, slowest /health, main-thread event-loop delay, heap
 * growth, the process's peak RSS while it ran: workers included). A probe, not a test: it asserts nothing.
 *
 *   npx tsx scripts/probes/main-thread-probe.ts
 *
 * 1. $categorize with 40 caller rules like `[\p{L}\d]{900}` over 20 messages of 2 KB (68 s on the main
 *    thread before: 400 now, priced in a worker);
 * 2. $categorize with 10 such rules stored by an administrator over 10 messages (not priced: the
 *    deadline stops it in the worker, 422);
 * 3. an unauthenticated POST of 40 MB to /api/$validate (401 before the body is read);
 * 4. JSON nested 2,000 levels deep to $validate (200, the fatal "nested too deeply" issue);
 * 5. an authenticated $validate of a 43 MB Bundle (the main thread reads and checks it; a worker validates);
 * 6. $validate?categorize=true (and $validate-and-categorize) of a Patient whose 8 dates quote 1 MB of letters and digits each, categorized with
 *    the stored rules of 2 (rules see the first 4,096 characters of a message; priced over 5e6 engine
 *    steps, so matched in a worker under the deadline: 422, where the main thread took 12 s with the
 *    prefix alone and ~15 min before it).
 *
 *   PROBE_ONLY=categorize npx tsx scripts/probes/main-thread-probe.ts   # only the probes whose name has this text
 */
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import net from 'node:net';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { MikroORM } from '@mikro-orm/postgresql';
import { exportSPKI, generateKeyPair, SignJWT } from 'jose';
import { verifierFromConfig } from '#adapters/auth/index.js';
import { loadConfig } from '#adapters/config/index.js';
import { listen, OpenApiBuilder } from '#adapters/http/index.js';
import { silentLogger } from '#adapters/observability/logger.js';
import { createMetrics } from '#adapters/observability/metrics.js';
import { openDatabase } from '#adapters/persistence/database.js';
import { serviceHttpApp } from '#adapters/runtime/service-runtime.js';
import { EngineHost } from '#validation/adapters/engine/engine-host.js';
import { validationApiHttpFrame } from '#validation/adapters/http/validation-api-module.js';
import { createValidationApiModule } from '#validation/composition.js';
import { PgArtifactRepository } from '#validation/adapters/persistence/artifact-repository.js';
import { validationApiEntities } from '#validation/adapters/persistence/entities.js';
import { validationApiMigrations } from '#validation/adapters/persistence/migrations.js';
import { pgValidationApiRepositories } from '#validation/adapters/persistence/validation-api-repositories.js';
import { validationSchema } from '#validation/config.js';

const PG = { host: process.env.PGHOST ?? '127.0.0.1', port: Number(process.env.PGPORT ?? 5432), user: process.env.PGUSER ?? 'postgres' };
const dbName = `probe_main_${Date.now().toString(36)}_${randomBytes(3).toString('hex')}`;

const category = (id: string, regex: string) => ({ id, title: id, severity: 'ERROR', acceptable: false, guidance: 'g', matcher: { field: 'MESSAGE', regex } });
const costly = (leaves: number) => Array.from({ length: leaves }, (_, i) => category(`costly_${i}`, `[\\p{L}\\d]{900}${i}`));
const results = (count: number) => Array.from({ length: count }, (_, i) => ({ id: i, severity: 'error', message: `${i}é`.repeat(2048).slice(0, 2048) }));

const pair = await generateKeyPair('ES256', { extractable: true });
const config = loadConfig(validationSchema, {
  AUTH_MODE: 'jwt', AUTH_ISSUER: 'https://idp.probe', AUTH_AUDIENCE: 'validation', AUTH_PUBLIC_KEY: await exportSPKI(pair.publicKey), AUTH_PUBLIC_KEY_ALGORITHM: 'ES256',
});
const token = (permissions: string[]) => new SignJWT({ permissions }).setProtectedHeader({ alg: 'ES256', typ: 'at+jwt' })
  .setSubject('probe').setIssuer('https://idp.probe').setAudience('validation').setIssuedAt().setExpirationTime('10m').sign(pair.privateKey);
const admin = `Bearer ${await token([config.authAdminPermission])}`;
const reader = `Bearer ${await token(['read'])}`;

const logger = silentLogger();
const db = await openDatabase({ ...PG, dbName, poolMax: 4, entities: validationApiEntities, migrations: validationApiMigrations, logger });
const engine = new EngineHost({ artifacts: new PgArtifactRepository(db.orm), workers: 1, terminology: {}, logger, resourceTimeoutMs: 2_000 });
await engine.start();
const openApi = new OpenApiBuilder({ title: 'probe', version: 'probe' });
// as the service: a request's budget (validation.resource-timeout-ms) counts from its arrival
const module = createValidationApiModule({ repositories: pgValidationApiRepositories(db.orm), openApi, validator: engine, categorization: engine, validateTimeoutMs: 2_000 });
const http = serviceHttpApp({
  serviceName: 'validation-probe', config, logger, metrics: createMetrics('validation-probe', { defaultMetrics: false }), openApi,
  verifier: verifierFromConfig(config, logger), ...validationApiHttpFrame(config.validateBodyLimit),
});
http.app.use(module.router);
const server = await listen(http.finish(), 0, '127.0.0.1');

/** Runs `send` while /health is polled; prints the figures. */
async function probe(name: string, send: () => Promise<string>): Promise<void> {
  if (process.env.PROBE_ONLY && !name.includes(process.env.PROBE_ONLY)) return;
  const delay = monitorEventLoopDelay({ resolution: 10 });
  delay.enable();
  const heapBefore = process.memoryUsage().heapUsed;
  let slowestHealthMs = 0;
  let peakRss = process.memoryUsage.rss();
  let healthAnswers = 0;
  let running = true;
  const polling = (async () => {
    while (running) {
      const started = performance.now();
      const res = await fetch(`${server.url}/health`);
      await res.arrayBuffer();
      slowestHealthMs = Math.max(slowestHealthMs, performance.now() - started);
      peakRss = Math.max(peakRss, process.memoryUsage.rss());
      healthAnswers += 1;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  })();
  const started = performance.now();
  const outcome = await send();
  const ms = performance.now() - started;
  running = false;
  await polling;
  delay.disable();
  const heapMb = (process.memoryUsage().heapUsed - heapBefore) / 1024 ** 2;
  console.log(`${name}: ${outcome} in ${Math.round(ms)} ms; /health answered ${healthAnswers} times, slowest ${Math.round(slowestHealthMs)} ms; `
    + `event-loop delay max ${Math.round(delay.max / 1e6)} ms; heap ${heapMb >= 0 ? '+' : ''}${heapMb.toFixed(1)} MB; peak RSS ${(peakRss / 1024 ** 2).toFixed(0)} MB`);
}

const post = async (path: string, body: unknown, authorization = reader, type = 'application/json') => {
  const payload = body instanceof Uint8Array ? body : typeof body === 'string' ? body : JSON.stringify(body);
  const res = await fetch(`${server.url}${path}`, { method: 'POST', headers: { 'content-type': type, authorization }, body: payload });
  const text = await res.text();
  return `${res.status} ${text.slice(0, 120).replace(/\s+/g, ' ')}`;
};

/** POSTs a file with curl; its status with curl's own time (connect to answer: this process's time also counts starting curl), and the answer. */
const curl = (route: string, file: string) => new Promise<{ status: string; text: string }>((resolve) => {
  const answer = `${file}.answer`;
  execFile('curl', ['-s', '-o', answer, '-w', '%{http_code} (curl: %{time_total} s)', '-X', 'POST', '-H', 'Content-Type: application/fhir+json', '-H', `Authorization: ${reader}`,
    '--data-binary', `@${file}`, `${server.url}${route}`], (_error, stdout) => {
    let text = '';
    try {
      text = readFileSync(answer, 'utf8');
      rmSync(answer);
    } catch { /* no answer */ }
    resolve({ status: `${stdout}`, text });
  });
});

/** Headers announcing 40 MB and 64 KB of the body, then the answer's status line (the rest is never sent). */
const unauthenticatedLargePost = () => new Promise<string>((resolve) => {
  const socket = net.connect(server.port, '127.0.0.1');
  let received = '';
  socket.on('data', (chunk: Buffer) => { received += chunk.toString('latin1'); });
  socket.on('close', () => resolve(`${received.split('\r\n')[0] ?? '(no answer)'} after 64 KB of 40 MB sent`));
  socket.on('error', () => undefined);
  socket.write(`POST /api/$validate HTTP/1.1\r\nHost: probe\r\nContent-Type: application/fhir+json\r\nContent-Length: ${40 * 1024 ** 2}\r\n\r\n`);
  socket.write(Buffer.alloc(64 * 1024, 0x20));
});

try {
  await probe('$categorize, 40 caller rules [\\p{L}\\d]{900} over 20 messages of 2 KB', () => post('/api/$categorize', { results: results(20), categories: costly(40) }));
  await post('/api/category/$import', costly(10), admin);
  await probe('$categorize, 10 such stored rules over 10 messages of 2 KB', () => post('/api/$categorize', results(10)));
  // engine messages quote the bad values whole; the stored rules above see 4,096 characters of each
  // runs of 799 letters and digits: every leaf's engine runs over the whole value and never matches (the worst case)
  const unit = `${'é'.repeat(789)}0123456789 `;
  const quoted = (i: number) => `${String.fromCharCode(97 + i)}${unit.repeat(Math.ceil(1024 ** 2 / unit.length))}`;
  const patient = { resourceType: 'Patient', identifier: Array.from({ length: 8 }, (_, i) => ({ value: `id${i}`, period: { start: quoted(i) } })) };
  // sent by curl, in a process of its own: this process's event loop then measures the service alone
  const patientFile = path.join(os.tmpdir(), `${dbName}-patient.json`);
  writeFileSync(patientFile, JSON.stringify(patient));
  for (const route of ['/api/$validate?categorize=true', '/api/$validate-and-categorize']) {
    await probe(`${route}, 8 dates of 1 MB quoted by the messages, 10 stored rules [\\p{L}\\d]{900} (sent by curl)`, async () => {
      const { status, text } = await curl(route, patientFile);
      const messages = [...text.matchAll(/"(?:diagnostics|message|text)":"((?:[^"\\]|\\.)*)"/g)].map((m) => m[1]!.length);
      if (process.env.PROBE_DEBUG) console.log(text.replace(/é{20,}/g, (run) => `<${run.length} é>`).slice(0, 3000));
      return `${status}, ${messages.filter((length) => length > 1024 ** 2).length} messages of over 1 MB in the answer`;
    });
  }
  rmSync(patientFile);
  await probe('unauthenticated POST /api/$validate announcing 40 MB', unauthenticatedLargePost);
  const deep = `{"resourceType":"Basic","code":{"text":"deep"},"extension":[${'{"url":"http://example.org/x","extension":['.repeat(2_000)}${']}'.repeat(2_000)}]}`;
  await probe('$validate, JSON nested 2,000 levels deep (52 KB)', () => post('/api/$validate', deep, reader, 'application/fhir+json'));
  // the largest body an authenticated caller may send: read and checked (JSON.parse) on the main thread, validated in the worker
  const entry = JSON.stringify({ resource: { resourceType: 'Basic', code: { text: 'x'.repeat(940) } } });
  // sent by curl, in a process of its own: this process's event loop then measures the service alone
  const file = path.join(os.tmpdir(), `${dbName}.json`);
  writeFileSync(file, `{"resourceType":"Bundle","type":"collection","entry":[${Array.from({ length: 45_000 }, () => entry).join(',')}]}`);
  await probe(`$validate, authenticated, a Bundle of ${(statSync(file).size / 1024 ** 2).toFixed(0)} MB (sent by curl)`, async () => (await curl('/api/$validate?summarize=true', file)).status);
  rmSync(file);
} finally {
  await server.close(1_000);
  await engine.close();
  await db.close();
  const maintenance = await MikroORM.init({ ...PG, dbName: 'postgres', entities: validationApiEntities, ensureDatabase: false, allowGlobalContext: true, pool: { min: 0, max: 1 } });
  await maintenance.em.fork().execute(`drop database if exists "${dbName}" with (force)`);
  await maintenance.close(true);
}
