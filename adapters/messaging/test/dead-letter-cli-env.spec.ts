import { expect } from 'chai';
import { ConfigError } from '../../config/index.js';
import { deadLetterCliNatsConfig } from '../dead-letter-cli.js';

describe('messaging: the dead-letter CLI reads the services\' NATS variables', () => {
  it('NATS_SERVERS (a list), NATS_USER, NATS_PASSWORD, NATS_TOKEN, as the services read them', () => {
    const config = deadLetterCliNatsConfig({ NATS_SERVERS: 'nats://a:4222, tls://b:4222', NATS_USER: 'ops', NATS_PASSWORD: 'pw', NATS_TOKEN: 't' });
    expect(config).to.deep.include({ natsServers: ['nats://a:4222', 'tls://b:4222'], natsUser: 'ops', natsPassword: 'pw', natsToken: 't' });
    expect(deadLetterCliNatsConfig({}).natsServers).to.deep.equal(['nats://127.0.0.1:4222']);
  });

  it('the earlier NATS_URL and NATS_PASS still work, and lose to the services\' names when both are set', () => {
    expect(deadLetterCliNatsConfig({ NATS_URL: 'nats://old:4222', NATS_PASS: 'old' })).to.deep.include({ natsServers: ['nats://old:4222'], natsPassword: 'old' });
    expect(deadLetterCliNatsConfig({ NATS_URL: 'nats://old:4222', NATS_SERVERS: 'nats://new:4222', NATS_PASS: 'old', NATS_PASSWORD: 'new' }))
      .to.deep.include({ natsServers: ['nats://new:4222'], natsPassword: 'new' });
    expect(deadLetterCliNatsConfig({ NATS_URL: 'nats://old:4222', NATS_SERVERS: ' ' }).natsServers).to.deep.equal(['nats://old:4222']);
  });

  it('a bad value is a configuration error naming the property', () => {
    expect(() => deadLetterCliNatsConfig({ NATS_SERVERS: 'http://nats:4222' })).to.throw(ConfigError, /nats\.servers \(NATS_SERVERS\)/);
  });
});
