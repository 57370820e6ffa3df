/**
 * `npm run demo` stops everything it started: SIGTERM or SIGINT to npm while the demo waits for its
 * verdicts ends the demo's processes and closes the report-service stand-in's port; `--exit` prints
 * no URL or command that dies with it. The demo runs as a user runs it (npm, the machine's shell),
 * against stand-in services (a small HTTP server answering the demo's readiness checks) and the real
 * NATS JetStream under a namespace of its own.
 */
import { expect } from 'chai';
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import { connectNats, type NatsHandle } from '#adapters/messaging/connection.js';
import { provisionCatalog } from '#adapters/messaging/provisioning.js';
import { silentLogger } from '#adapters/observability/logger.js';
import { catalogForNamespace } from '#contracts/catalog.js';
import { projectRoot } from '#test-support/shared-dir.js';

/** Every live process below `pid` (Linux /proc). */
function descendants(pid: number): number[] {
  const children = new Map<number, number[]>();
  for (const entry of readdirSync('/proc').filter((name) => /^\d+$/.test(name))) {
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const parent = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      children.set(parent, [...(children.get(parent) ?? []), Number(entry)]);
    } catch { /* gone meanwhile */ }
  }
  const found: number[] = [];
  const visit = (p: number) => { for (const child of children.get(p) ?? []) { found.push(child); visit(child); } };
  visit(pid);
  return found;
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return !readFileSync(`/proc/${pid}/stat`, 'utf8').includes(') Z ');
  } catch {
    return false;
  }
};

async function waitFor(what: string, condition: () => boolean | Promise<boolean>, limitMs = 30_000): Promise<void> {
  const until = Date.now() + limitMs;
  while (!(await condition())) {
    if (Date.now() > until) throw new Error(`gave up waiting: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

const listening = (port: number) => new Promise<boolean>((resolve) => {
  const socket = net.connect(port, '127.0.0.1');
  socket.once('connect', () => { socket.destroy(); resolve(true); });
  socket.once('error', () => resolve(false));
});

describe('npm run demo: signals and --exit', function () {
  this.timeout(120_000);
  const namespace = `demosig${randomBytes(3).toString('hex')}`;
  const catalog = catalogForNamespace(namespace, 'test');
  let nats: NatsHandle;
  let services: http.Server;
  let servicesUrl: string;
  const started: ChildProcess[] = [];

  before(async () => {
    nats = await connectNats({ servers: [process.env.NATS_URL ?? '127.0.0.1:4222'], name: 'demo-signals-test', logger: silentLogger() });
    await provisionCatalog(nats.jsm, catalog);
    // Stand-in services: ready, no packages, no report; no ValidationComplete ever comes.
    services = http.createServer((req, res) => {
      if (req.url === '/api/validation/artifact') res.writeHead(200, { 'content-type': 'application/json' }).end('[]');
      else if (req.url?.startsWith('/health')) res.writeHead(200).end('{"status":"UP"}');
      else res.writeHead(404).end();
    });
    await new Promise<void>((resolve) => services.listen(0, '127.0.0.1', resolve));
    servicesUrl = `http://127.0.0.1:${(services.address() as net.AddressInfo).port}`;
  });
  after(async () => {
    for (const child of started) if (child.pid && alive(child.pid)) child.kill('SIGKILL');
    services?.closeAllConnections();
    await new Promise((resolve) => services?.close(resolve));
    for (const stream of [...catalog.streams, catalog.deadLetterStream]) await nats.jsm.streams.delete(stream.name).catch(() => undefined);
    await nats?.close();
  });

  async function demo(standInPort: number, ...args: string[]): Promise<{ npm: ChildProcess; output: () => string; exited: Promise<number | null> }> {
    let output = '';
    const npm = spawn('npm', ['run', '--silent', 'demo', '--', '--gateway-url', servicesUrl, '--validation-url', servicesUrl, ...args], {
      cwd: projectRoot, stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, NATS_NAMESPACE: namespace, NATS_STREAM_LIMITS: 'test', SVC_REPORT_SERVICE_URL: `http://127.0.0.1:${standInPort}` },
    });
    started.push(npm);
    npm.stdout!.on('data', (d: Buffer) => { output += d.toString(); });
    npm.stderr!.on('data', (d: Buffer) => { output += d.toString(); });
    const exited = new Promise<number | null>((resolve) => npm.once('exit', (code) => resolve(code)));
    return { npm, output: () => output, exited };
  }

  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    it(`${signal} to npm run demo stops the demo's processes and its report-service stand-in`, async () => {
      const port = await freePort();
      const run = await demo(port, '--timeout', '300');
      await waitFor('the demo to publish and wait for verdicts', () => run.output().includes('Publishing ReadyForValidation'), 60_000)
        .catch((error: Error) => { throw new Error(`${error.message}\n${run.output()}`); });
      expect(await listening(port), 'the stand-in listens').to.equal(true);
      const tree = descendants(run.npm.pid!);
      expect(tree.length, 'npm runs the demo').to.be.greaterThan(0);
      run.npm.kill(signal);
      await waitFor('every process of the demo to end', () => !tree.some(alive), 20_000);
      await run.exited;
      expect(await listening(port), 'the stand-in port is closed').to.equal(false);
      expect(run.output()).to.contain(`${signal}: stopping what the demo started`);
    });
  }

  it('--exit prints the verdicts and no URL or command that would die with it', async () => {
    const port = await freePort();
    const run = await demo(port, '--timeout', '2', '--exit');
    const code = await run.exited;
    const output = run.output();
    expect(output).to.contain('patient').and.to.contain('no answer');
    expect(code, 'no verdict came, so none was as expected').to.equal(1);
    expect(output).not.to.contain('publish:ready');
    expect(output).not.to.contain('Pre-qualification report:');
    expect(output).not.to.contain(`/api/validation/result/`);
    expect(await listening(port)).to.equal(false);
  });
});
