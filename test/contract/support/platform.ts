/**
 * The platform as an operator runs it, for the contract suite: the tenant service, the validation
 * service and the admin gateway as processes (node with the tsx loader, as test/service-processes.int.spec.ts
 * starts them), each on a free loopback port, with authentication off (loopback only), against the
 * real PostgreSQL (a database of their own each, dropped after) and NATS JetStream (a namespace of
 * their own: subjects `<namespace>.nhsn.…`, streams `…_<NAMESPACE>`, deleted after), and a stand-in
 * report service the validation flow fetches submissions from.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { catalogForNamespace, type Catalog } from '#contracts/catalog.js';
import { connectNats, type NatsHandle } from '#adapters/messaging/connection.js';
import { silentLogger } from '#adapters/observability/logger.js';
import { projectRoot } from '#test-support/shared-dir.js';
import { ReportServiceStub } from '../../../services/validation/test/flow/support/report-service-stub.js';

export interface Platform {
  /** The gateway's base URL (`http://127.0.0.1:<port>`). */
  readonly gateway: string;
  /** Base URLs of the services themselves (for what the gateway does not route: their /health). */
  readonly services: { readonly validation: string; readonly tenant: string };
  readonly catalog: Catalog;
  readonly nats: NatsHandle;
  readonly reportService: ReportServiceStub;
  /** What a process wrote, for failure messages. */
  output(name: string): string;
  stop(): Promise<void>;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

async function waitReady(url: string, timeoutMs: number, output: () => string): Promise<void> {
  const until = Date.now() + timeoutMs;
  let last: unknown;
  while (Date.now() < until) {
    try {
      const res = await fetch(url, { signal: AbortSignal.timeout(2000) });
      if (res.status === 200) return;
      last = res.status;
    } catch (error) {
      last = error;
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`${url} not ready (${String(last)}):\n${output().slice(-3000)}`);
}

interface Started { readonly child: ChildProcess; readonly exited: Promise<number | null>; output: string }

function start(entry: string, env: Record<string, string>): Started {
  const child = spawn(process.execPath, ['--import', 'tsx', entry], {
    cwd: projectRoot, env: { ...process.env, LOG_LEVEL: 'warn', ...env }, stdio: ['ignore', 'pipe', 'pipe'],
  });
  const started: Started = { child, exited: new Promise((resolve) => child.on('exit', (code) => resolve(code))), output: '' };
  child.stdout!.on('data', (d: Buffer) => { started.output += d.toString(); });
  child.stderr!.on('data', (d: Buffer) => { started.output += d.toString(); });
  return started;
}

const dropDatabase = (name: string) => execFileSync('psql', ['-h', '127.0.0.1', '-U', 'postgres', '-d', 'postgres', '-qc', `drop database if exists "${name}" with (force)`]);

/** Settings a suite gives a process on top of the platform's (the contract suite gives none). */
export interface PlatformOverrides { readonly tenant?: Record<string, string> }

export async function startPlatform(overrides: PlatformOverrides = {}): Promise<Platform> {
  const suffix = `${Date.now().toString(36)}${randomBytes(3).toString('hex')}`;
  const namespace = `contract${suffix}`;
  const databases = { tenant: `contract_tenant_${suffix}`, validation: `contract_validation_${suffix}` };
  const jwks = path.join(os.tmpdir(), `contract-jwks-${suffix}.json`);
  const [tenantPort, validationPort, gatewayPort] = [await freePort(), await freePort(), await freePort()];
  const reportService = new ReportServiceStub();
  await reportService.start();
  const common = { AUTH_MODE: 'none', HTTP_HOST: '127.0.0.1', NATS_NAMESPACE: namespace, NATS_STREAM_LIMITS: 'test' };
  const processes: Record<string, Started> = {};
  const nats = await connectNats({ servers: [process.env.NATS_URL ?? '127.0.0.1:4222'], name: 'contract-suite', logger: silentLogger() });
  const catalog = catalogForNamespace(namespace, 'test');
  const stop = async () => {
    await Promise.all(Object.values(processes).map(async (p) => {
      p.child.kill('SIGTERM');
      await p.exited;
    }));
    await reportService.stop();
    for (const stream of [...catalog.streams, catalog.deadLetterStream]) await nats.jsm.streams.delete(stream.name).catch(() => undefined);
    await nats.close();
    for (const name of Object.values(databases)) dropDatabase(name);
    rmSync(jwks, { force: true });
  };
  try {
    processes.tenant = start('services/tenant/src/main.ts', {
      ...common, HTTP_PORT: String(tenantPort), DB_URL: `postgres://postgres@127.0.0.1:5432/${databases.tenant}`,
      SCHEDULER_ENABLED: 'false', SIGNING_KEYS_JWKS_PATH: jwks, MEASURECONFIG__CHECKIFMEASUREEXISTS: 'false',
      ...overrides.tenant,
    });
    processes.validation = start('services/validation/src/main.ts', {
      ...common, HTTP_PORT: String(validationPort), DB_URL: `postgres://postgres@127.0.0.1:5432/${databases.validation}`,
      ARTIFACT_INIT: 'false', CACHE_TYPE: 'memory', VALIDATION_WORKERS: '1',
      SVC_REPORT_SERVICE_URL: reportService.url, SVC_REPORT_SERVICE_TOKEN: 'contract-suite',
    });
    processes.gateway = start('services/admin-gateway/src/main.ts', {
      ...common, HTTP_PORT: String(gatewayPort),
      GATEWAY_VALIDATION_URL: `http://127.0.0.1:${validationPort}`, GATEWAY_TENANT_URL: `http://127.0.0.1:${tenantPort}`,
    });
    const services = { validation: `http://127.0.0.1:${validationPort}`, tenant: `http://127.0.0.1:${tenantPort}` };
    const gateway = `http://127.0.0.1:${gatewayPort}`;
    for (const [name, base] of [['tenant', services.tenant], ['validation', services.validation], ['gateway', gateway]] as const) {
      await waitReady(`${base}/health/ready`, 120_000, () => processes[name]!.output);
    }
    return { gateway, services, catalog, nats, reportService, output: (name) => processes[name]?.output ?? '', stop };
  } catch (error) {
    await stop().catch(() => undefined);
    throw error;
  }
}
