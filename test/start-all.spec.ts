import { expect } from 'chai';
import { verifierFromConfig } from '../adapters/auth/index.js';
import { ConfigError, loadConfig } from '../adapters/config/index.js';
import { serviceEnvironment } from '../scripts/start-all.js';
import { gatewaySchema } from '../services/admin-gateway/src/config.js';

/** `npm start` is the README's local trial (`AUTH_MODE=none npm start`): its services listen on loopback. */
describe('npm start (scripts/start-all.ts)', () => {
  it('runs the services on 127.0.0.1 unless HTTP_HOST names an interface', () => {
    expect(serviceEnvironment({ AUTH_MODE: 'none' }).HTTP_HOST).to.equal('127.0.0.1');
    expect(serviceEnvironment({ AUTH_MODE: 'none', HTTP_HOST: ' ' }).HTTP_HOST).to.equal('127.0.0.1');
    expect(serviceEnvironment({ HTTP_HOST: '0.0.0.0', LOG_LEVEL: 'debug' })).to.deep.include({ HTTP_HOST: '0.0.0.0', LOG_LEVEL: 'debug' });
  });

  it('so the quick start with AUTH_MODE=none passes the loopback rule that the bare default interface fails', () => {
    expect(verifierFromConfig(loadConfig(gatewaySchema, serviceEnvironment({ AUTH_MODE: 'none' })))).to.equal(undefined);
    expect(() => verifierFromConfig(loadConfig(gatewaySchema, { AUTH_MODE: 'none' }))).to.throw(ConfigError, /loopback/);
  });
});
