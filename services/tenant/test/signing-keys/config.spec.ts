import { randomBytes } from 'node:crypto';
import { expect } from 'chai';
import { ConfigError, loadConfig } from '#adapters/config/index.js';
import { keyringFromConfig, signingKeySettings } from '#tenant/signing-keys/adapters/config.js';
import { masterKeyFingerprint } from '#tenant/signing-keys/domain/master-keyring.js';

function errorOf(fn: () => unknown): Error {
  try {
    fn();
  } catch (error) {
    return error as Error;
  }
  throw new Error('expected an error');
}

describe('signing keys: settings', () => {
  const schema = signingKeySettings();
  const key = () => randomBytes(32).toString('base64');

  it('defaults: no master key, .cache/jwks/jwks.json, 24 h retention, 60 s expiry interval', () => {
    expect(loadConfig(schema, {})).to.deep.equal({
      signingKeysMasterKey: undefined, signingKeysMasterKeys: undefined, signingKeysMasterKeysFile: undefined, signingKeysCurrentMasterKey: undefined,
      signingKeysJwksPath: '.cache/jwks/jwks.json', signingKeysDisabledRetentionMs: 24 * 3_600_000, signingKeysExpiryIntervalMs: 60_000,
    });
  });

  it('reads SIGNING_KEYS_* variables: the keyring as id:base64 items, durations in ms or with a unit', () => {
    const [a, b] = [key(), key()];
    const config = loadConfig(schema, {
      SIGNING_KEYS_MASTER_KEYS: `2026-01:${a}, 2026-07:${b}`, SIGNING_KEYS_CURRENT_MASTER_KEY: '2026-07', SIGNING_KEYS_MASTER_KEYS_FILE: '/etc/nhsn/master-keys',
      SIGNING_KEYS_JWKS_PATH: '/srv/jwks/jwks.json', SIGNING_KEYS_DISABLED_RETENTION: '2h', SIGNING_KEYS_EXPIRY_INTERVAL: '30s',
    });
    expect(config).to.deep.equal({
      signingKeysMasterKey: undefined, signingKeysMasterKeys: [{ id: '2026-01', base64: a }, { id: '2026-07', base64: b }],
      signingKeysMasterKeysFile: '/etc/nhsn/master-keys', signingKeysCurrentMasterKey: '2026-07',
      signingKeysJwksPath: '/srv/jwks/jwks.json', signingKeysDisabledRetentionMs: 7_200_000, signingKeysExpiryIntervalMs: 30_000,
    });
  });

  it('refuses master keys that are not base64 of exactly 32 bytes, ids with a colon or twice, without echoing any key', () => {
    const good = key();
    const short = randomBytes(16).toString('base64');
    for (const [variable, bad, expected] of [
      ['SIGNING_KEYS_MASTER_KEY', short, 'signing-keys.master-key'],
      ['SIGNING_KEYS_MASTER_KEY', 'not base64!', 'signing-keys.master-key'],
      ['SIGNING_KEYS_MASTER_KEYS', `k1:${short}`, 'decodes to 16'],
      ['SIGNING_KEYS_MASTER_KEYS', good, 'must be id:base64key'],
      ['SIGNING_KEYS_MASTER_KEYS', `k1:${good},k1:${good}`, 'used twice'],
      ['SIGNING_KEYS_MASTER_KEYS', `a b:${good}`, 'letters, digits'],
      ['SIGNING_KEYS_CURRENT_MASTER_KEY', 'a:b', 'letters, digits'],
    ] as const) {
      const error = errorOf(() => loadConfig(schema, { [variable]: bad }));
      expect(error, bad).to.be.instanceOf(ConfigError);
      expect(error.message, bad).to.contain(expected).and.not.contain(good).and.not.contain(short);
    }
  });
});

describe('signing keys: the master keyring from its settings', () => {
  const [a, b, c] = [randomBytes(32), randomBytes(32), randomBytes(32)].map((bytes) => bytes.toString('base64')) as [string, string, string];

  it('one key is current by default; several need signing-keys.current-master-key, which must be configured', () => {
    expect(keyringFromConfig({})).to.equal(undefined);
    expect(keyringFromConfig({ signingKeysMasterKeys: [{ id: 'k1', base64: a }] })!.currentId).to.equal('k1');
    const ring = keyringFromConfig({ signingKeysMasterKeys: [{ id: 'k1', base64: a }, { id: 'k2', base64: b }], signingKeysCurrentMasterKey: 'k2' })!;
    expect(ring.ids).to.deep.equal(['k2', 'k1']);
    expect(errorOf(() => keyringFromConfig({ signingKeysMasterKeys: [{ id: 'k1', base64: a }, { id: 'k2', base64: b }] })).message)
      .to.contain('signing-keys.current-master-key (SIGNING_KEYS_CURRENT_MASTER_KEY) must name the master key').and.contain('k1, k2');
    expect(errorOf(() => keyringFromConfig({ signingKeysMasterKeys: [{ id: 'k1', base64: a }], signingKeysCurrentMasterKey: 'k9' })).message).to.contain('"k9", which is not among');
    expect(errorOf(() => keyringFromConfig({ signingKeysCurrentMasterKey: 'k1' })).message).to.contain('no master key is configured');
  });

  it('the legacy single key joins the ring under its fingerprint, which is what its old envelopes record', () => {
    const ring = keyringFromConfig({ signingKeysMasterKey: a, signingKeysMasterKeys: [{ id: 'k2', base64: b }], signingKeysCurrentMasterKey: 'k2' })!;
    const fingerprint = masterKeyFingerprint(Buffer.from(a, 'base64'));
    expect(ring.ids).to.deep.equal(['k2', fingerprint]);
    // A key later given an id keeps opening what it sealed as the legacy key.
    const legacy = keyringFromConfig({ signingKeysMasterKey: a })!;
    const sealed = legacy.seal('secret', 'kid-1');
    expect(sealed.masterKeyId).to.equal(fingerprint);
    const renamed = keyringFromConfig({ signingKeysMasterKeys: [{ id: 'initial', base64: a }] })!;
    expect(renamed.has(fingerprint)).to.equal(true);
    expect(renamed.open(sealed.envelope, 'kid-1')).to.equal('secret');
  });

  it('reads a master-keys file (comments, blank lines), merges it with the list, and names the file and line of a bad item', () => {
    const files: Record<string, string> = {
      '/keys/good': `# rotated 2026-07\n\nk2:${b}\r\nk3:${c}\n`,
      '/keys/bad': `k2:${b}\n\nk3:short\n`,
    };
    const read = (path: string) => {
      if (!(path in files)) throw new Error(`ENOENT: no such file ${path}`);
      return files[path]!;
    };
    const ring = keyringFromConfig({ signingKeysMasterKeys: [{ id: 'k1', base64: a }], signingKeysMasterKeysFile: '/keys/good', signingKeysCurrentMasterKey: 'k3' }, read)!;
    expect(ring.ids).to.deep.equal(['k3', 'k1', 'k2']);
    const bad = errorOf(() => keyringFromConfig({ signingKeysMasterKeysFile: '/keys/bad' }, read));
    expect(bad).to.be.instanceOf(ConfigError);
    expect(bad.message).to.contain('signing-keys.master-keys-file (SIGNING_KEYS_MASTER_KEYS_FILE) /keys/bad line 3').and.not.contain(b);
    expect(errorOf(() => keyringFromConfig({ signingKeysMasterKeysFile: '/keys/none' }, read)).message).to.contain('cannot be read');
    const clash = errorOf(() => keyringFromConfig({ signingKeysMasterKeys: [{ id: 'k2', base64: a }], signingKeysMasterKeysFile: '/keys/good', signingKeysCurrentMasterKey: 'k2' }, read));
    expect(clash.message).to.contain('"k2" is also configured in signing-keys.master-keys with another key').and.not.contain(a);
  });

  it('never prints key material when logged', () => {
    const ring = keyringFromConfig({ signingKeysMasterKeys: [{ id: 'k1', base64: a }] })!;
    expect(JSON.stringify({ ring })).to.equal('{"ring":{"currentId":"k1","ids":["k1"]}}');
  });
});
