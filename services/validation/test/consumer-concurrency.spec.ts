/** validation.consumer-concurrency: 0 (the default) means twelve submissions in flight per validation worker. */
import { expect } from 'chai';
import { ConfigError, loadConfig } from '#adapters/config/index.js';
import { validationSchema } from '#validation/config.js';
import { consumerConcurrency, defaultConsumerConcurrency } from '#validation/adapters/messaging/ready-for-validation-consumer.js';

describe('validation configuration: consumer concurrency', () => {
  it('defaults to 0, which the service turns into twelve per worker (one worker at least, at most 256)', () => {
    expect(loadConfig(validationSchema, {}).validationConsumerConcurrency).to.equal(0);
    expect(defaultConsumerConcurrency(1)).to.equal(12);
    expect(defaultConsumerConcurrency(2)).to.equal(24);
    expect(defaultConsumerConcurrency(4)).to.equal(48);
    expect(defaultConsumerConcurrency(0)).to.equal(12);
    expect(defaultConsumerConcurrency(21)).to.equal(252);
    expect(defaultConsumerConcurrency(22)).to.equal(256);
    expect(defaultConsumerConcurrency(64)).to.equal(256);
    expect(consumerConcurrency(0, 2), 'the setting 0').to.equal(24);
    expect(consumerConcurrency(6, 2), 'a setting').to.equal(6);
  });

  it('an explicit value is kept, and one out of range is refused naming the variable', () => {
    expect(loadConfig(validationSchema, { VALIDATION_CONSUMER_CONCURRENCY: '6' }).validationConsumerConcurrency).to.equal(6);
    expect(() => loadConfig(validationSchema, { VALIDATION_CONSUMER_CONCURRENCY: '-1' })).to.throw(ConfigError, /VALIDATION_CONSUMER_CONCURRENCY/);
    expect(() => loadConfig(validationSchema, { VALIDATION_CONSUMER_CONCURRENCY: '257' })).to.throw(ConfigError, /VALIDATION_CONSUMER_CONCURRENCY/);
  });
});
