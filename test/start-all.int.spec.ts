// `npm start` stopped by signals, with stand-in services as child processes (start-all.spec.ts has the rest).
import { expect } from 'chai';
import { spawn, type ChildProcess } from 'node:child_process';
import { createRequire } from 'node:module';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { projectRoot } from '#test-support/shared-dir.js';

const FIXTURE = path.join(projectRoot, 'test/support/supervisor-fixture.ts');
const TSX_LOADER = createRequire(path.join(projectRoot, 'package.json')).resolve('tsx');
const SERVICES = ['admin-gateway', 'tenant', 'validation'];

/** The parent pid of a process (Linux /proc). */
function parentOf(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function waitFor(what: string, condition: () => boolean, limitMs = 15_000): Promise<void> {
  const until = Date.now() + limitMs;
  while (!condition()) {
    if (Date.now() > until) throw new Error(`gave up waiting: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Stops what a failed test left running, by pid (never by name). */
function cleanUp(pids: number[], started: ChildProcess[]): void {
  for (const pid of pids) if (alive(pid)) process.kill(pid, 'SIGKILL');
  for (const child of started) if (child.exitCode === null && child.pid && alive(child.pid)) child.kill('SIGKILL');
}

describe('stopping npm start: every service it started stops', function () {
  this.timeout(60_000);
  let dir: string;
  let pidDir: string;
  const started: ChildProcess[] = [];
  let servicePids: number[] = [];

  /** The pids the three stand-in services wrote, once all three are up. */
  async function servicesUp(): Promise<number[]> {
    await waitFor('the three services to start', () => readdirSync(pidDir).length === SERVICES.length);
    await new Promise((resolve) => setTimeout(resolve, 100)); // the pid files are written whole by now
    servicePids = SERVICES.map((name) => Number(readFileSync(path.join(pidDir, name), 'utf8')));
    expect(servicePids.every(alive)).to.equal(true);
    return servicePids;
  }

  /**
   * `npm start` in a scratch package whose start script is this project's, with the supervisor
   * entry replaced by the fixture: the machine's npm and sh in between, as for a user.
   */
  function npmStart(): ChildProcess {
    const script = (JSON.parse(readFileSync(path.join(projectRoot, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts.start!;
    expect(script).to.contain('node dist/scripts/start-all.js');
    writeFileSync(path.join(dir, 'package.json'), JSON.stringify({
      name: 'supervisor-trial', version: '1.0.0', private: true,
      scripts: { start: script.replace('node dist/scripts/start-all.js', `node --import ${JSON.stringify(TSX_LOADER)} ${JSON.stringify(FIXTURE)}`) },
    }));
    const npm = spawn('npm', ['start', '--silent'], { cwd: dir, env: { ...process.env, SUPERVISOR_PID_DIR: pidDir }, stdio: 'ignore' });
    started.push(npm);
    return npm;
  }

  beforeEach(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'supervisor-'));
    pidDir = path.join(dir, 'pids');
    mkdirSync(pidDir);
  });

  afterEach(() => {
    cleanUp(servicePids, started);
    started.length = 0;
    servicePids = [];
    rmSync(dir, { recursive: true, force: true });
  });

  it('SIGTERM to the supervisor stops each service and then the supervisor', async () => {
    const supervisor = spawn(process.execPath, ['--import', TSX_LOADER, FIXTURE], { env: { ...process.env, SUPERVISOR_PID_DIR: pidDir }, stdio: 'ignore' });
    started.push(supervisor);
    const pids = await servicesUp();
    supervisor.kill('SIGTERM');
    await waitFor('every service to stop', () => !pids.some(alive));
    await waitFor('the supervisor to exit', () => supervisor.exitCode !== null || supervisor.signalCode !== null);
  });

  it('SIGTERM to `npm start` reaches the supervisor through npm and its shell, and stops every service', async () => {
    const npm = npmStart();
    const pids = await servicesUp();
    // The start script execs the supervisor: no `sh -c` between npm and it to swallow the signal.
    expect(parentOf(parentOf(pids[0]!))).to.equal(npm.pid);
    npm.kill('SIGTERM');
    await waitFor('every service to stop', () => !pids.some(alive));
  });

  it('npm killed outright (SIGKILL): the orphaned supervisor stops every service', async () => {
    const npm = npmStart();
    const pids = await servicesUp();
    npm.kill('SIGKILL');
    await waitFor('every service to stop', () => !pids.some(alive));
  });
});
