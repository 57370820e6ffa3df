// The validate-code cache in memory and in the local Redis (remote-terminology.spec.ts has the rest).
import { expect } from 'chai';
import { Registry } from 'prom-client';
import { createCache, type Cache } from '#adapters/cache/index.js';
import { silentLogger } from '#adapters/observability/logger.js';
import { createTerminology, type CachedValidateCode, type ValidateCodeCacheStore } from '#validation/adapters/terminology/index.js';
import { BP_VALUE_SET, LOINC, serverResources } from './support/remote-fixtures.js';
import { clientSource, GENDER_VS, systolic, wire } from './support/remote-wiring.js';
import { closedPort, TestTerminologyServer } from './support/test-terminology-server.js';

const REDIS = { host: process.env.REDIS_HOST ?? '127.0.0.1', port: Number(process.env.REDIS_PORT ?? 6379) };
const run = `terminology-test-${process.pid}-${Date.now().toString(36)}`;

/** A Map with the cache's get/set shape, for tests that only count calls. */
class MapStore implements ValidateCodeCacheStore<CachedValidateCode> {
  readonly entries = new Map<string, CachedValidateCode>();
  async get(key: string) { return this.entries.get(key); }
  async set(key: string, value: CachedValidateCode) { this.entries.set(key, value); }
}

describe('remote terminology: validate-code cache', () => {
  const server = new TestTerminologyServer(serverResources, '/fhir');
  let baseUrl: string;
  const caches: Array<Cache<CachedValidateCode>> = [];
  const openCache = async (type: 'memory' | 'distributed', namespace: string, extra: { ttlSeconds?: number; port?: number } = {}) => {
    const cache = await createCache<CachedValidateCode>({
      type, namespace: `${run}:${namespace}`, ttlSeconds: extra.ttlSeconds, logger: silentLogger(),
      redis: { ...REDIS, port: extra.port ?? REDIS.port }, operationTimeoutMs: 200,
    });
    caches.push(cache);
    return cache;
  };

  before(async () => {
    baseUrl = `${await server.start()}/fhir`;
  });
  beforeEach(() => {
    server.calls.length = 0;
    server.behaviour = { kind: 'answer' };
  });
  after(async () => {
    for (const cache of caches) {
      await cache.clear();
      await cache.close();
    }
    await server.close();
  });

  it('memory: a repeated tuple makes no second call; a changed display makes a new one', async () => {
    const wiring = wire({ fhirTerminologyServiceUrl: baseUrl }, await openCache('memory', 'memory'));
    expect((await wiring.terminology.validateCode(systolic('Systolic blood pressure'))).source).to.equal('remote');
    const again = wiring.terminology.validateCode(systolic('Systolic blood pressure'));
    // Answered from the in-process near cache: synchronously, like local terminology.
    expect(again).not.to.be.instanceOf(Promise);
    expect(again).to.deep.include({ valid: true, source: 'cache', display: 'Systolic blood pressure' });
    expect(server.calls).to.have.length(1);
    await wiring.terminology.validateCode(systolic('SBP'));
    expect(server.calls).to.have.length(2);
    expect(wiring.metrics.counts).to.deep.include({ cacheHits: 1, cacheMisses: 2, remoteCalls: 2 });
  });

  it('exposes hit/miss counters as numbers and, given a registry, as Prometheus counters', async () => {
    const registry = new Registry();
    const wiring = createTerminology({
      source: clientSource, settings: { fhirTerminologyServiceUrl: baseUrl }, cacheStore: new MapStore(), logger: silentLogger(), registry,
    });
    await wiring.terminology.validateCode(systolic());
    await wiring.terminology.validateCode(systolic());
    await wiring.terminology.validateCode({ valueSet: GENDER_VS, coding: { code: 'male' } });
    expect(wiring.metrics.counts).to.deep.equal({ local: 1, cacheHits: 1, cacheMisses: 1, remoteCalls: 1, remoteUnavailable: 0 });
    expect(wiring.cache!.counters).to.deep.include({ hits: 1, misses: 1 });
    const text = await registry.metrics();
    expect(text).to.contain('terminology_validate_code_cache_total{result="hit"} 1');
    expect(text).to.contain('terminology_validate_code_cache_total{result="miss"} 1');
    expect(text).to.contain('terminology_validate_code_answers_total{source="remote"} 1');
    expect(text).to.contain('terminology_validate_code_answers_total{source="local"} 1');
  });

  it('caches invalid answers too, but never a server failure', async () => {
    const store = new MapStore();
    const wiring = wire({ fhirTerminologyServiceUrl: baseUrl, retries: 0 }, store);
    const wrong = { valueSet: BP_VALUE_SET, codings: [{ system: LOINC, code: '2339-0' }] };
    await wiring.terminology.validateCode(wrong);
    expect((await wiring.terminology.validateCode(wrong)).valid).to.equal(false);
    expect(server.calls).to.have.length(1);
    expect([...store.entries.values()]).to.have.length(1);
    expect([...store.entries.values()][0]!.result).to.equal(false);
    server.behaviour = { kind: 'status', status: 503 };
    await wiring.terminology.validateCode(systolic('failing'));
    await wiring.terminology.validateCode(systolic('failing'));
    expect(server.calls).to.have.length(3);
    expect(store.entries.size).to.equal(1);
    // "The server does not know this value set" is a definite answer: cached, and worded the same from the cache.
    server.behaviour = { kind: 'answer' };
    const unknownToAll = { valueSet: 'http://example.org/fhir/ValueSet/nowhere', coding: { system: LOINC, code: '2339-0' } };
    await wiring.terminology.validateCode(unknownToAll);
    const again = await wiring.terminology.validateCode(unknownToAll);
    expect(again.issues.map((i) => i.text)).to.deep.equal(["Can't find value set http://example.org/fhir/ValueSet/nowhere"]);
    expect(server.calls).to.have.length(4);
  });

  it('distributed: two terminology instances sharing Redis make one call between them', async () => {
    const first = wire({ fhirTerminologyServiceUrl: baseUrl }, await openCache('distributed', 'shared'), false);
    const second = wire({ fhirTerminologyServiceUrl: baseUrl }, await openCache('distributed', 'shared'), false);
    expect((await first.terminology.validateCode(systolic())).source).to.equal('remote');
    const fromRedis = await second.terminology.validateCode(systolic());
    expect(fromRedis).to.deep.include({ valid: true, source: 'cache' });
    expect(server.calls).to.have.length(1);
    await second.terminology.validateCode(systolic('Systolic BP'));
    expect(server.calls).to.have.length(2);
  });

  it('distributed: entries expire after cache.validate-code.ttl', async () => {
    const wiring = wire({ fhirTerminologyServiceUrl: baseUrl, validateCodeTtlSeconds: 1 }, await openCache('distributed', 'ttl'));
    await wiring.terminology.validateCode(systolic());
    await wiring.terminology.validateCode(systolic());
    expect(server.calls).to.have.length(1);
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    await wiring.terminology.validateCode(systolic());
    expect(server.calls).to.have.length(2);
  });

  it('distributed with Redis unreachable: every call goes to the server and validation still succeeds', async () => {
    const store = await openCache('distributed', 'down', { port: await closedPort() });
    const wiring = wire({ fhirTerminologyServiceUrl: baseUrl }, store, false);
    expect((await wiring.terminology.validateCode(systolic())).valid).to.equal(true);
    expect((await wiring.terminology.validateCode(systolic())).valid).to.equal(true);
    expect(server.calls).to.have.length(2);
    // With the (default) near cache, the process still remembers its own answers while Redis is down.
    const withNearCache = wire({ fhirTerminologyServiceUrl: baseUrl }, store);
    await withNearCache.terminology.validateCode(systolic());
    expect(await withNearCache.terminology.validateCode(systolic())).to.deep.include({ valid: true, source: 'cache' });
    expect(server.calls).to.have.length(3);
  });
});
