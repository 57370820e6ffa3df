import { expect } from 'chai';
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { projectRoot } from '#test-support/shared-dir.js';

/**
 * The services as processes, as an operator runs them: a bad configuration value stops a service at
 * start-up with exit code 78 and a message naming the property, and so does authentication off on an
 * interface other than loopback; a good one brings it up with /health/ready 200 (and /metrics on its
 * metrics port only); SIGTERM stops it well within the 10 s drain time.
 */
// The service runs in one Node process with tsx as a loader, not under the tsx CLI: the CLI relays
// signals to a child and, on a loaded machine, may give up waiting for it and exit with 143 itself,
// which would hide whether the service's own SIGTERM handling works.
const nodeWithTsx = (entry: string) => ({ command: process.execPath, args: ['--import', 'tsx', entry] });

interface Started { child: ChildProcess; output: () => string; exited: Promise<number | null> }

function start(entry: string, env: Record<string, string>): Started {
  let output = '';
  const { command, args } = nodeWithTsx(entry);
  const child = spawn(command, args, { cwd: projectRoot, env: { ...process.env, LOG_LEVEL: 'info', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  child.stdout!.on('data', (d: Buffer) => { output += d.toString(); });
  child.stderr!.on('data', (d: Buffer) => { output += d.toString(); });
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, output: () => output, exited };
}

/** A health answer: overall status and, for readiness, each check. */
interface Health { status: string; checks?: Record<string, unknown> }

async function waitReady(url: string, timeoutMs: number): Promise<{ status: number; body: Health }> {
  const until = Date.now() + timeoutMs;
  let last: unknown;
  while (Date.now() < until) {
    try {
      const res = await fetch(url, { signal: AbortSignal.timeout(2000) });
      if (res.status === 200) return { status: res.status, body: await res.json() as Health };
      last = res.status;
    } catch (error) {
      last = error;
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`not ready: ${String(last)}`);
}

const services = [
  { name: 'tenant', entry: 'services/tenant/src/main.ts', port: 18182, db: true },
  { name: 'validation', entry: 'services/validation/src/main.ts', port: 18181, db: true },
  { name: 'admin-gateway', entry: 'services/admin-gateway/src/main.ts', port: 18180, db: false },
].filter((s) => existsSync(path.join(projectRoot, s.entry)));

describe('service processes', function () {
  this.timeout(90_000);
  const dbNames: string[] = [];

  after(() => {
    for (const name of dbNames) {
      execFileSync('psql', ['-h', '127.0.0.1', '-U', 'postgres', '-d', 'postgres', '-qc', `drop database if exists "${name}" with (force)`]);
    }
  });

  for (const service of services) {
    it(`${service.name}: a bad configuration value stops it with exit code 78 naming the property`, async () => {
      const run = start(service.entry, {
        AUTH_MODE: 'none', HTTP_PORT: 'eighty', LOG_LEVEL: 'loud', ...(service.db ? { DB_URL: 'postgres://svc:hunter2@127.0.0.1/x' } : {}),
      });
      const code = await run.exited;
      expect(code).to.equal(78);
      expect(run.output()).to.contain('http.port (HTTP_PORT)').and.to.contain('log.level (LOG_LEVEL)');
      if (service.db) expect(run.output()).to.contain('db.url (DB_URL) must not contain a password').and.not.to.contain('hunter2');
    });

    it(`${service.name}: refuses to start with auth.mode none on a public interface (exit code 78)`, async () => {
      const run = start(service.entry, {
        AUTH_MODE: 'none', HTTP_HOST: '0.0.0.0', HTTP_PORT: String(service.port), ...(service.db ? { DB_URL: 'postgres://postgres@127.0.0.1:5432/never_created' } : {}),
      });
      const code = await run.exited;
      expect(code, run.output().slice(-2000)).to.equal(78);
      expect(run.output()).to.contain('auth.mode (AUTH_MODE) is none').and.to.contain('loopback');
    });

    it(`${service.name}: comes up ready and stops on SIGTERM within the drain time`, async () => {
      const dbName = `svc_proc_${service.name.replace(/-/g, '_')}_${process.pid}`;
      if (service.db) dbNames.push(dbName);
      // The databases and the validation service's Redis cache are addressed by URL, as in deploy/.
      const run = start(service.entry, {
        AUTH_MODE: 'none', HTTP_PORT: String(service.port), HTTP_HOST: '127.0.0.1', METRICS_PORT: String(service.port + 100), DB_URL: `postgres://postgres@127.0.0.1:5432/${dbName}`,
        ...(service.name === 'validation' ? { CACHE_TYPE: 'distributed', DATA_CACHE_SERVER_URL: 'redis://127.0.0.1:6379/0' } : {}),
        ARTIFACT_INIT: 'false', SCHEDULER_ENABLED: 'false', SIGNING_KEYS_JWKS_PATH: path.join(projectRoot, '.cache', `jwks-test-${process.pid}.json`),
      });
      try {
        const ready = await waitReady(`http://127.0.0.1:${service.port}/health/ready`, 60_000);
        expect(ready.body.status).to.equal('UP');
        if (service.db) expect(ready.body.checks).to.have.keys(service.name === 'validation' ? ['database', 'nats', 'cache', 'validation-workers'] : ['database', 'nats']);
        // Liveness: the validation workers' progress (a wedged pool is restarted); the others have no check.
        const live = await (await fetch(`http://127.0.0.1:${service.port}/health`)).json() as { status: string; checks?: Record<string, unknown> };
        expect(live.status).to.equal('UP');
        expect(Object.keys(live.checks ?? {})).to.deep.equal(service.name === 'validation' ? ['validation-workers'] : []);
        // The gateway's /api-docs merges the services' documents; none of them runs beside it here.
        const docs = await fetch(`http://127.0.0.1:${service.port}/api-docs`);
        expect(docs.status).to.equal(service.name === 'admin-gateway' ? 502 : 200);
        // The scraper's port serves the metrics; the API port no longer does.
        expect((await fetch(`http://127.0.0.1:${service.port}/metrics`)).status).to.equal(404);
        const scraped = await fetch(`http://127.0.0.1:${service.port + 100}/metrics`);
        expect(scraped.status).to.equal(200);
        expect(await scraped.text()).to.contain(`service="${service.name}"`);
      } finally {
        const stoppedAt = Date.now();
        run.child.kill('SIGTERM');
        const code = await run.exited;
        expect(code, run.output().slice(-2000)).to.equal(0);
        expect(Date.now() - stoppedAt).to.be.lessThan(10_000);
      }
    });
  }
});
