import { expect } from 'chai';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
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
