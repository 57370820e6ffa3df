import { expect } from 'chai';
import { spawn, type ChildProcess } from 'node:child_process';
import { createRequire } from 'node:module';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { verifierFromConfig } from '#adapters/auth/index.js';
import { ConfigError, loadConfig } from '#adapters/config/index.js';
import { serviceEnvironment } from '#scripts/start-all.js';
import { LOCAL_DIR, LOCAL_MASTER_KEY_ID, LOCAL_MASTER_KEYS_FILE, localTrialRoot, withLocalMasterKey } from '#scripts/local-master-key.js';
import { keyringFromConfig } from '#tenant/signing-keys/adapters/config.js';
import { tenantServiceSchema } from '#tenant/service-schema.js';
import { gatewaySchema } from '#gateway/config.js';
import { projectRoot } from '#test-support/shared-dir.js';

/** `npm start` is the README's local trial (`AUTH_MODE=none npm start`): its services listen on loopback. */
describe('npm start (scripts/start-all.ts)', () => {
  it('runs the services on 127.0.0.1 unless HTTP_HOST names an interface', () => {
    expect(serviceEnvironment({ AUTH_MODE: 'none' }).HTTP_HOST).to.equal('127.0.0.1');
    expect(serviceEnvironment({ AUTH_MODE: 'none', HTTP_HOST: ' ' }).HTTP_HOST).to.equal('127.0.0.1');
    expect(serviceEnvironment({ HTTP_HOST: '0.0.0.0', LOG_LEVEL: 'debug' })).to.deep.include({ HTTP_HOST: '0.0.0.0', LOG_LEVEL: 'debug' });
    expect(serviceEnvironment({}).NATS_STREAM_LIMITS, 'a local trial provisions laptop-sized streams').to.equal('local');
    expect(serviceEnvironment({ NATS_STREAM_LIMITS: 'production' }).NATS_STREAM_LIMITS).to.equal('production');
  });

  it('so the quick start with AUTH_MODE=none passes the loopback rule that the bare default interface fails', () => {
    expect(verifierFromConfig(loadConfig(gatewaySchema, serviceEnvironment({ AUTH_MODE: 'none' })))).to.equal(undefined);
    expect(() => verifierFromConfig(loadConfig(gatewaySchema, { AUTH_MODE: 'none' }))).to.throw(ConfigError, /loopback/);
  });
});

describe('npm start: the local-only master key for signing keys (scripts/local-master-key.ts)', () => {
  let root: string;
  beforeEach(() => { root = mkdtempSync(path.join(os.tmpdir(), 'local-master-key-')); });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it('generates one on the first start, readable by the owner only, that the tenant service loads as its current master key', () => {
    const { env, note } = withLocalMasterKey({ AUTH_MODE: 'none' }, root);
    const file = path.join(root, LOCAL_DIR, LOCAL_MASTER_KEYS_FILE);
    expect(env.SIGNING_KEYS_MASTER_KEYS_FILE).to.equal(file);
    expect(statSync(file).mode & 0o777).to.equal(0o600);
    expect(readFileSync(file, 'utf8')).to.match(/LOCAL TRIAL ONLY/);
    expect(note).to.match(/generated the local-only master key/);
    const keyring = keyringFromConfig(loadConfig(tenantServiceSchema, env));
    expect(keyring?.toJSON()).to.deep.equal({ currentId: LOCAL_MASTER_KEY_ID, ids: [LOCAL_MASTER_KEY_ID] });
    // What it seals, the next start opens: the same key is read again, not replaced.
    const sealed = keyring!.seal('private key', 'kid-1');
    const again = withLocalMasterKey({ AUTH_MODE: 'none' }, root);
    expect(again.note).to.match(/using the local-only master key/);
    expect(keyringFromConfig(loadConfig(tenantServiceSchema, again.env))!.open(sealed.envelope, 'kid-1')).to.equal('private key');
  });

  it('keeps the key machine-wide, like the local databases, so a new clone reads what an earlier one stored; a working copy with its own key keeps it', () => {
    const clone = path.join(root, 'clone');
    const home = path.join(root, 'home');
    expect(localTrialRoot(clone, { NHSN_LOCAL_TRIAL_HOME: home })).to.equal(home);
    expect(localTrialRoot(clone, {})).to.equal(path.join(os.homedir(), '.nhsn-platform'));
    const first = withLocalMasterKey({}, localTrialRoot(clone, { NHSN_LOCAL_TRIAL_HOME: home }));
    const sealed = keyringFromConfig(loadConfig(tenantServiceSchema, first.env))!.seal('private key', 'kid-1');
    const another = withLocalMasterKey({}, localTrialRoot(path.join(root, 'clone-2'), { NHSN_LOCAL_TRIAL_HOME: home }));
    expect(another.note).to.match(/using the local-only master key/);
    expect(keyringFromConfig(loadConfig(tenantServiceSchema, another.env))!.open(sealed.envelope, 'kid-1')).to.equal('private key');
    withLocalMasterKey({}, clone);
    expect(localTrialRoot(clone, { NHSN_LOCAL_TRIAL_HOME: home })).to.equal(clone);
  });

  it('leaves an operator\'s own master key alone and writes nothing', () => {
    for (const own of [{ SIGNING_KEYS_MASTER_KEYS: 'mine:x' }, { SIGNING_KEYS_MASTER_KEY: 'x' }, { SIGNING_KEYS_MASTER_KEYS_FILE: '/run/secrets/keys' }]) {
      const { env, note } = withLocalMasterKey(own, root);
      expect(env).to.deep.equal(own);
      expect(note).to.equal(undefined);
    }
    expect(readdirSync(root)).to.deep.equal([]);
  });

  it('is kept out of git and out of every manifest under deploy/', () => {
    expect(readFileSync(path.join(projectRoot, '.gitignore'), 'utf8').split('\n')).to.include(`${LOCAL_DIR}/`);
    const files = (readdirSync(path.join(projectRoot, 'deploy'), { recursive: true }) as string[]).map((f) => path.join(projectRoot, 'deploy', f)).filter((f) => statSync(f).isFile());
    expect(files.length).to.be.greaterThan(10);
    for (const file of files) {
      const text = readFileSync(file, 'utf8');
      expect(text, file).not.to.contain(LOCAL_MASTER_KEY_ID);
      expect(text, file).not.to.contain(LOCAL_MASTER_KEYS_FILE);
    }
  });
});

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

describe('stopping npm start: every service it started stops @slow', function () {
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
