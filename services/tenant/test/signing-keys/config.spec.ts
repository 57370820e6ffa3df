import { randomBytes } from 'node:crypto';
import { expect } from 'chai';
import { ConfigError, loadConfig } from '../../../../adapters/config/index.js';
import { signingKeySettings } from '../../src/signing-keys/config.js';

describe('signing keys: settings', () => {
  const schema = signingKeySettings();

  it('defaults: no master key, .cache/jwks/jwks.json, 24 h retention, 60 s expiry interval', () => {
    expect(loadConfig(schema, {})).to.deep.equal({
      signingKeysMasterKey: undefined, signingKeysJwksPath: '.cache/jwks/jwks.json',
      signingKeysDisabledRetentionMs: 24 * 3_600_000, signingKeysExpiryIntervalMs: 60_000,
    });
  });

  it('reads SIGNING_KEYS_* variables, with durations in ms or with a unit', () => {
    const key = randomBytes(32).toString('base64');
    const config = loadConfig(schema, {
      SIGNING_KEYS_MASTER_KEY: key, SIGNING_KEYS_JWKS_PATH: '/srv/jwks/jwks.json', SIGNING_KEYS_DISABLED_RETENTION: '2h', SIGNING_KEYS_EXPIRY_INTERVAL: '30s',
    });
    expect(config).to.deep.equal({
      signingKeysMasterKey: key, signingKeysJwksPath: '/srv/jwks/jwks.json', signingKeysDisabledRetentionMs: 7_200_000, signingKeysExpiryIntervalMs: 30_000,
    });
  });

  it('refuses a master key that is not base64 of exactly 32 bytes, without echoing it', () => {
    for (const bad of [randomBytes(16).toString('base64'), 'not base64!']) {
      let error: unknown;
      try {
        loadConfig(schema, { SIGNING_KEYS_MASTER_KEY: bad });
      } catch (caught) {
        error = caught;
      }
      expect(error).to.be.instanceOf(ConfigError);
      expect((error as Error).message).to.contain('signing-keys.master-key').and.not.contain(bad);
    }
  });
});
