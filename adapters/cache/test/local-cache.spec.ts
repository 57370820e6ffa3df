import { expect } from 'chai';
import { Registry } from 'prom-client';
import { silentLogger } from '../../observability/logger.js';
import { createCache } from '../cache.js';
import { MemoryLruStore } from '../memory-store.js';

// What every backend promises (round trip, copies, TTL, delete, clear) is in cache-contract.ts.
describe('cache: none and memory', () => {
  it('none stores nothing: every get is a miss', async () => {
    const cache = await createCache<string>({ type: 'none', namespace: 'test', logger: silentLogger() });
    await cache.set('k', 'v');
    expect(await cache.get('k')).to.equal(undefined);
    expect(cache.stats()).to.deep.equal({ hits: 0, misses: 1, errors: 0 });
    await cache.readinessCheck();
  });

  it('memory is bounded: inserting max + 1 evicts the least recently used entry', async () => {
    const cache = await createCache<number>({ type: 'memory', namespace: 'test', memoryMaxEntries: 3, logger: silentLogger() });
    await cache.set('a', 1);
    await cache.set('b', 2);
    await cache.set('c', 3);
    await cache.set('d', 4);
    expect(await cache.get('a')).to.equal(undefined);
    expect(await cache.get('b')).to.equal(2); // b is now the most recent
    await cache.set('e', 5);
    expect(await cache.get('c')).to.equal(undefined);
    expect([await cache.get('b'), await cache.get('d'), await cache.get('e')]).to.deep.equal([2, 4, 5]);
  });

  it('memory store: an entry expires at its TTL by the store\'s clock, one without TTL never', async () => {
    let now = 1_000_000;
    const store = new MemoryLruStore<string>(10, () => now);
    await store.set('short', 'x', 1000);
    await store.set('forever', 'y', undefined);
    now += 999;
    expect(await store.get('short')).to.equal('x');
    now += 1;
    expect(await store.get('short')).to.equal(undefined);
    expect(store.size).to.equal(1);
    now += 10 ** 9;
    expect(await store.get('forever')).to.equal('y');

  });

  it('counts hits, misses and errors into cache_requests_total, sharing one registry between caches', async () => {
    const registry = new Registry();
    const a = await createCache<string>({ type: 'memory', namespace: 'svc:a', registry, logger: silentLogger() });
    const b = await createCache<string>({ type: 'none', namespace: 'svc:b', registry, logger: silentLogger() });
    await a.set('k', 'v');
    await a.get('k');
    await a.get('other');
    await b.get('k');
    const text = await registry.metrics();
    expect(text).to.contain('cache_requests_total{cache="svc:a",result="hit"} 1');
    expect(text).to.contain('cache_requests_total{cache="svc:a",result="miss"} 1');
    expect(text).to.contain('cache_requests_total{cache="svc:b",result="miss"} 1');
  });

  it('rejects bad configuration and undefined values with clear errors', async () => {
    const logger = silentLogger();
    const attempts: [() => Promise<unknown>, RegExp][] = [
      [() => createCache({ type: 'memory', namespace: 'has space', logger }), /namespace/],
      [() => createCache({ type: 'memory', namespace: 'ok', memoryMaxEntries: 0, logger }), /maxEntries/],
      [() => createCache({ type: 'distributed', namespace: 'ok', logger }), /redis connection options/],
      [() => createCache({ type: 'bogus' as never, namespace: 'ok', logger }), /unknown cache type/],
      [async () => (await createCache({ type: 'memory', namespace: 'ok', logger })).set('k', undefined), /undefined cannot be cached/],
    ];
    for (const [attempt, pattern] of attempts) {
      let error: Error | undefined;
      await attempt().catch((e: Error) => { error = e; });
      expect(error?.message).to.match(pattern);
    }
  });
});
