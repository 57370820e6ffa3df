/**
 * One real service process (services/<name>/src/main.ts run by tsx, as test/service-processes.int.spec.ts
 * starts them), configured only through environment variables, with its readiness, its /metrics and
 * a graceful stop. The output is kept (bounded) so a failure can show the service's own last words.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer, type AddressInfo } from 'node:net';
import { projectRoot } from '#test-support/shared-dir.js';
import { ownChild } from '../owned-children.js';

const OUTPUT_KEPT = 20_000;

export interface ServiceProcess {
  readonly name: string;
  readonly url: string;
  readonly child: ChildProcess;
  /** The last ~20 kB the process wrote (stdout and stderr). */
  output(): string;
  /** Exit code once it exited (null for a signal). */
  readonly exited: Promise<number | null>;
  /** Resolves when /health/ready answered 200; rejects when the process exits first or on timeout. */
  ready(timeoutMs: number): Promise<void>;
  /** GET /metrics as Prometheus text. */
  metrics(): Promise<string>;
  /** SIGTERM, then the exit code (SIGKILL after `graceMs`). */
  stop(graceMs?: number): Promise<number | null>;
}

/** A TCP port that was free a moment ago (the service binds it itself). */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

export async function startService(name: string, service: 'validation' | 'tenant', env: Record<string, string>): Promise<ServiceProcess> {
  const port = await freePort();
  let output = '';
  // Node with tsx's loader, not the tsx command: on SIGTERM the command gives its child 30 ms to
  // report the signal and otherwise SIGKILLs it and exits 143, which a busy service on a loaded
  // machine missed now and then (seen in fault:cluster: a clean shutdown reported as exit 143).
  const child = ownChild(spawn(process.execPath, ['--import', 'tsx', `services/${service}/src/main.ts`], {
    cwd: projectRoot,
    env: { ...process.env, AUTH_MODE: 'none', HTTP_HOST: '127.0.0.1', HTTP_PORT: String(port), LOG_LEVEL: 'warn', NATS_STREAM_LIMITS: process.env.NATS_STREAM_LIMITS ?? 'local', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  }));
  const keep = (d: Buffer) => { output = (output + d.toString()).slice(-OUTPUT_KEPT); };
  child.stdout!.on('data', keep);
  child.stderr!.on('data', keep);
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const url = `http://127.0.0.1:${port}`;
  let gone = false;
  void exited.then(() => { gone = true; });

  return {
    name, url, child, exited, output: () => output,
    async ready(timeoutMs) {
      const until = Date.now() + timeoutMs;
      while (Date.now() < until) {
        if (gone) throw new Error(`${name} exited before it was ready:\n${output.slice(-3000)}`);
        try {
          const res = await fetch(`${url}/health/ready`, { signal: AbortSignal.timeout(2_000) });
          if (res.status === 200) return;
        } catch { /* not listening yet */ }
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
      throw new Error(`${name} not ready within ${timeoutMs} ms:\n${output.slice(-3000)}`);
    },
    async metrics() {
      const res = await fetch(`${url}/metrics`, { signal: AbortSignal.timeout(5_000) });
      if (res.status !== 200) throw new Error(`${name} /metrics answered ${res.status}`);
      return res.text();
    },
    async stop(graceMs = 15_000) {
      if (!gone) {
        child.kill('SIGTERM');
        const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
        await exited;
        clearTimeout(timer);
      }
      return exited;
    },
  };
}

/**
 * Sum of the samples of a counter whose labels include every given label (Prometheus text format;
 * a label value never contains `",` in our metrics, so a simple parse is enough). 0 when the counter
 * is declared but has no such sample yet (a labelled counter has none before its first increment);
 * undefined when the process does not export it at all.
 */
export function counterValue(metricsText: string, name: string, labels: Record<string, string>): number | undefined {
  let total = metricsText.includes(`# TYPE ${name} counter`) ? 0 : undefined;
  for (const line of metricsText.split('\n')) {
    if (!line.startsWith(`${name}{`) && !line.startsWith(`${name} `)) continue;
    const braces = line.match(/^[^{ ]+(?:\{(.*)\})?\s+(\S+)/);
    if (!braces) continue;
    const have = new Map([...(braces[1] ?? '').matchAll(/(\w+)="([^"]*)"/g)].map((m) => [m[1]!, m[2]!]));
    if (Object.entries(labels).every(([k, v]) => have.get(k) === v)) total = (total ?? 0) + Number(braces[2]);
  }
  return total;
}
