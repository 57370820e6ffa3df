/** The validation deadlines' settings, checked together at start-up (exit code 78 when they do not fit). */
import { expect } from 'chai';
import { ConfigError, loadConfig } from '#adapters/config/index.js';
import { checkValidationSettings, validationSchema } from '#validation/config.js';

describe('validation configuration: deadlines', () => {
  const defaults = loadConfig(validationSchema, {});

  it('the defaults hold together, with and without a terminology server', () => {
    expect(defaults).to.include({ validationResourceTimeoutMs: 20_000, validationSubmissionTimeoutMs: 60_000, validationQueueLimit: 64, validationStallTimeoutMs: 60_000 });
    checkValidationSettings(defaults);
    checkValidationSettings(loadConfig(validationSchema, { SVC_FHIR_TERMINOLOGY_SERVICE_URL: 'https://tx.example.org/fhir' }));
  });

  it('refuses a stall timeout under twice the resource budget, naming the property and its variable', () => {
    const config = loadConfig(validationSchema, { VALIDATION_RESOURCE_TIMEOUT_MS: '40000' });
    expect(() => checkValidationSettings(config)).to.throw(ConfigError, /validation\.stall-timeout-ms \(VALIDATION_STALL_TIMEOUT_MS\) must be at least twice validation\.resource-timeout-ms \(40000\); got 60000/);
  });

  it('with a terminology server, refuses a resource budget its three attempts could outlast', () => {
    const config = loadConfig(validationSchema, { SVC_TERMINOLOGY_SERVICE_URL: 'https://terminology.example.org', VALIDATION_RESOURCE_TIMEOUT_MS: '10000' });
    expect(() => checkValidationSettings(config)).to.throw(ConfigError, /validation\.resource-timeout-ms \(VALIDATION_RESOURCE_TIMEOUT_MS\) must be more than 3 x svc\.terminology-timeout-ms \+ 4000 \(19000\)/);
    // Without one, 10 s is fine; with a faster terminology timeout too.
    checkValidationSettings(loadConfig(validationSchema, { VALIDATION_RESOURCE_TIMEOUT_MS: '10000' }));
    checkValidationSettings(loadConfig(validationSchema, { SVC_TERMINOLOGY_SERVICE_URL: 'https://terminology.example.org', VALIDATION_RESOURCE_TIMEOUT_MS: '10000', SVC_TERMINOLOGY_TIMEOUT_MS: '1500' }));
  });

  it('terminology over NATS counts as a terminology server: the same budget rule, no URL needed', () => {
    expect(defaults.terminologyTransport).to.equal('http');
    const config = loadConfig(validationSchema, { TERMINOLOGY_TRANSPORT: 'nats', VALIDATION_RESOURCE_TIMEOUT_MS: '10000' });
    expect(() => checkValidationSettings(config)).to.throw(ConfigError, /validation\.resource-timeout-ms/);
    expect(() => loadConfig(validationSchema, { TERMINOLOGY_TRANSPORT: 'grpc' })).to.throw(ConfigError, /terminology\.transport/);
  });
});
