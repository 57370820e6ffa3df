import { expect } from 'chai';
import { connect, type NatsConnection, type Subscription } from '@nats-io/transport-node';
import { catalogForNamespace } from '#contracts/catalog.js';
import type { ValidateCodeSystemCode, ValidateValueSetCode } from '#contracts/types.js';
import { QueryError, serveQuery, type QueryServer } from '#adapters/messaging/request-reply.js';
import { loadConfig } from '#adapters/config/index.js';
import { silentLogger } from '#adapters/observability/logger.js';
import { terminologySettings } from '#validation/composition.js';
import { validationSchema } from '#validation/config.js';
import {
  closeNatsTerminologyConnections, createTerminology, resolveTerminologyEndpoint, type CachedValidateCode, type TerminologySettings,
  type TerminologyWiring, type ValidateCodeCacheStore,
} from '#validation/adapters/terminology/index.js';
import type { ValidateCodeRequest } from '#validation/domain/ports/terminology.js';
import { BP_VALUE_SET, LOINC, bloodPressureValueSet } from './support/remote-fixtures.js';
import { InMemoryConformanceSource, r4TerminologyResources } from './support/terminology-sources.js';

/**
 * `terminology.transport` nats against a stand-in for the platform terminology service: real
 * subscriptions on the machine's NATS, in a namespace of this run only, answering the commands
 * ValidateValueSetCode and ValidateCodeSystemCode through serveQuery (which checks every request
 * against its contract, as the real responder must).
 */
const NATS_SERVERS = (process.env.NATS_SERVERS ?? 'nats://127.0.0.1:4222').split(',');
const namespace = `tx-${process.pid}-${Date.now().toString(36)}`.slice(0, 31);
const catalog = catalogForNamespace(namespace);
const source = new InMemoryConformanceSource(r4TerminologyResources()).add(bloodPressureValueSet);
const BP_CODES = new Map([['8480-6', 'Systolic blood pressure'], ['8462-4', 'Diastolic blood pressure']]);

const systolic = (display?: string): ValidateCodeRequest => ({
  valueSet: BP_VALUE_SET, codings: [{ system: LOINC, code: '8480-6', display }], strength: 'required', elementKind: 'CodeableConcept',
});

class MapStore implements ValidateCodeCacheStore<CachedValidateCode> {
  readonly entries = new Map<string, CachedValidateCode>();
  async get(key: string) { return this.entries.get(key); }
  async set(key: string, value: CachedValidateCode) { this.entries.set(key, value); }
}

interface Received { name: string; request: ValidateValueSetCode | ValidateCodeSystemCode; headers: Record<string, string> }

describe('remote terminology over NATS: the terminology commands (terminology.transport nats)', function () {
  this.timeout(20_000);
  let responderConnection: NatsConnection;
  const servers: QueryServer[] = [];
  const received: Received[] = [];
  /** Requests the stand-in leaves unanswered before it answers again (a responder that stalls). */
  let stallNext = 0;

  const settings = (extra: Partial<TerminologySettings> = {}): TerminologySettings => ({
    transport: 'nats', timeoutMs: 300, retryBaseDelayMs: 5, nats: { servers: NATS_SERVERS, namespace }, ...extra,
  });
  const wire = (extra: Partial<TerminologySettings> = {}, cacheStore?: ValidateCodeCacheStore<CachedValidateCode>): TerminologyWiring =>
    createTerminology({ source, settings: settings(extra), cacheStore, logger: silentLogger(), nearCache: false });

  before(async () => {
    responderConnection = await connect({ servers: NATS_SERVERS, name: 'terminology-stand-in' });
    servers.push(serveQuery(responderConnection, 'ValidateValueSetCode', async (request, ctx) => {
      received.push({ name: 'ValidateValueSetCode', request, headers: ctx.headers });
      if (stallNext > 0) {
        stallNext--;
        await new Promise((resolve) => setTimeout(resolve, 1_000)); // past the requester's timeout: its reply goes nowhere
      }
      if (request.url !== BP_VALUE_SET) throw new QueryError('NOT_FOUND', `Value set ${request.url} is not known here`);
      const display = BP_CODES.get(request.code ?? '');
      if (request.system !== LOINC || !display) return { result: false, message: `Code ${request.code} is not in the value set` };
      return { result: true, display };
    }, { logger: silentLogger(), catalog }));
    servers.push(serveQuery(responderConnection, 'ValidateCodeSystemCode', (request, ctx) => {
      received.push({ name: 'ValidateCodeSystemCode', request, headers: ctx.headers });
      if (request.url !== LOINC) throw new QueryError('NOT_FOUND', `Code system ${request.url} is not known here`);
      return request.code === '8480-6' ? { result: true, display: 'Systolic blood pressure' } : { result: false, message: `Unknown code ${request.code}` };
    }, { logger: silentLogger(), catalog }));
    await responderConnection.flush();
  });

  after(async () => {
    for (const server of servers) await server.stop();
    await responderConnection.drain();
    await closeNatsTerminologyConnections();
  });

  beforeEach(() => {
    received.length = 0;
    stallNext = 0;
  });

  it('is chosen by transport nats; an external FHIR server still comes first', () => {
    expect(resolveTerminologyEndpoint({ transport: 'nats' })).to.deep.equal({ mode: 'platform-terminology-nats' });
    expect(resolveTerminologyEndpoint({ transport: 'nats', terminologyServiceUrl: 'http://platform' })).to.deep.equal({ mode: 'platform-terminology-nats' });
    expect(resolveTerminologyEndpoint({ transport: 'nats', fhirTerminologyServiceUrl: 'http://tx.example/fhir' }).mode).to.equal('fhir-terminology-server');
    expect(resolveTerminologyEndpoint({ transport: 'http', terminologyServiceUrl: 'http://platform' }).mode).to.equal('platform-terminology-service');
  });

  it('is wired from the service\'s settings: terminology.transport nats with its own NATS connection settings, no caller token', async () => {
    const config = loadConfig(validationSchema, { TERMINOLOGY_TRANSPORT: 'nats', NATS_SERVERS: NATS_SERVERS.join(','), NATS_NAMESPACE: namespace, SVC_TERMINOLOGY_TIMEOUT_MS: '2000' });
    const wired = terminologySettings(config);
    expect(wired).to.deep.include({ transport: 'nats', timeoutMs: 2000, nats: { servers: NATS_SERVERS, user: undefined, pass: undefined, token: undefined, namespace } });
    const wiring = createTerminology({ source, settings: wired, logger: silentLogger(), nearCache: false });
    expect(wiring.endpoint).to.deep.equal({ mode: 'platform-terminology-nats' });
    expect((await wiring.terminology.validateCode(systolic())).valid).to.equal(true);
    expect(received).to.have.length(1);
  });

  it('a code found: sends ValidateValueSetCode on the namespace\'s subject and takes the answer, without the caller\'s token', async () => {
    const wiring = wire();
    const result = await wiring.terminology.validateCode({ ...systolic('Systolic blood pressure'), authorization: 'Bearer caller-secret' });
    expect(result).to.deep.include({ valid: true, source: 'remote', display: 'Systolic blood pressure' });
    expect(result.issues).to.deep.equal([]);
    expect(received).to.have.length(1);
    expect(received[0]!.request).to.deep.equal({ url: BP_VALUE_SET, code: '8480-6', system: LOINC, display: 'Systolic blood pressure' });
    // No caller credentials on NATS: neither in the command nor in its headers.
    expect(JSON.stringify(received[0])).not.to.contain('caller-secret');
    expect(Object.keys(received[0]!.headers).map((name) => name.toLowerCase())).not.to.include('authorization');
    expect(catalog.byName('ValidateValueSetCode').subject.startsWith(`${namespace}.nhsn.`)).to.equal(true);
  });

  it('a code not in the value set: an error worded as for HTTP; a value set the service does not know: "Can\'t find value set"', async () => {
    const wiring = wire();
    const invalid = await wiring.terminology.validateCode({ valueSet: BP_VALUE_SET, codings: [{ system: LOINC, code: '2339-0' }], strength: 'required' });
    expect(invalid.valid).to.equal(false);
    expect(invalid.issues[0]).to.deep.include({ severity: 'error', messageId: 'Terminology_TX_NoValid_1_CC' });
    const unknown = 'http://example.org/fhir/ValueSet/nowhere';
    const missing = await wiring.terminology.validateCode({ valueSet: unknown, coding: { system: LOINC, code: '2339-0' } });
    expect(missing.valid).to.equal(undefined);
    expect(missing.issues.map((issue) => [issue.severity, issue.text])).to.deep.equal([['warning', `Can't find value set ${unknown}`]]);
  });

  it('a code-system check goes as ValidateCodeSystemCode', async () => {
    const wiring = wire();
    expect((await wiring.terminology.validateCode({ coding: { system: LOINC, code: '8480-6' } })).valid).to.equal(true);
    expect((await wiring.terminology.validateCode({ coding: { system: LOINC, code: '99999-9' } })).valid).to.equal(false);
    expect(received.map((r) => [r.name, r.request])).to.deep.equal([
      ['ValidateCodeSystemCode', { url: LOINC, code: '8480-6' }], ['ValidateCodeSystemCode', { url: LOINC, code: '99999-9' }],
    ]);
  });

  it('a timeout, then a retry that is answered', async () => {
    stallNext = 1;
    const wiring = wire({ retries: 2 });
    const result = await wiring.terminology.validateCode(systolic());
    expect(result).to.deep.include({ valid: true, source: 'remote' });
    expect(received).to.have.length(2);
    expect(received[1]!.request).to.deep.equal(received[0]!.request);
  });

  it('every attempt timing out: terminology unavailable, a warning and no verdict, never a failure', async () => {
    stallNext = 3;
    const wiring = wire({ retries: 1 });
    const result = await wiring.terminology.validateCode(systolic());
    expect(result.valid).to.equal(undefined);
    expect(result.issues.map((issue) => issue.severity)).to.deep.equal(['warning']);
    expect(received).to.have.length(2);
  });

  it('the cache: the same tuple twice asks the responder once', async () => {
    const store = new MapStore();
    const wiring = wire({}, store);
    expect((await wiring.terminology.validateCode(systolic('Systolic blood pressure'))).source).to.equal('remote');
    expect(await wiring.terminology.validateCode(systolic('Systolic blood pressure'))).to.deep.include({ valid: true, source: 'cache' });
    expect(received).to.have.length(1);
    expect(store.entries.size).to.equal(1);
    expect(wiring.metrics.counts).to.deep.include({ cacheHits: 1, remoteCalls: 1 });
  });

  it('a reply off its contract is not believed: unavailable, no verdict', async () => {
    const rogue = catalogForNamespace(`${namespace.slice(0, 24)}-rogue`);
    const sub: Subscription = responderConnection.subscribe(rogue.byName('ValidateValueSetCode').subject, {
      callback: (_error, msg) => { msg.respond(JSON.stringify({ result: 'yes' })); },
    });
    await responderConnection.flush();
    try {
      const wiring = createTerminology({
        source, settings: settings({ retries: 0, nats: { servers: NATS_SERVERS, namespace: `${namespace.slice(0, 24)}-rogue` } }), logger: silentLogger(), nearCache: false,
      });
      const result = await wiring.terminology.validateCode(systolic());
      expect(result.valid).to.equal(undefined);
      expect(result.issues[0]!.severity).to.equal('warning');
    } finally {
      sub.unsubscribe();
    }
  });
});
