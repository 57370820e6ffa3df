/**
 * What every cache backend promises its callers, as one suite run against each backend
 * (memory-cache.contract.spec.ts, redis-cache.contract.int.spec.ts). A backend that passes here can
 * replace another: what the validate-code cache and the service rely on is checked once, the same
 * way, for all of them. Backend-specific behaviour (LRU bound, Redis outages, key prefix) stays in
 * the backend's own spec.
 */
import { randomBytes } from 'node:crypto';
import { expect } from 'chai';
import { cacheKey } from '../cache-key.js';
import type { Cache } from '../cache.js';

export interface CacheUnderTest {
  /** A fresh cache in its own namespace; `ttlSeconds` is the default entry lifetime. */
  open<V>(namespace: string, ttlSeconds?: number): Promise<Cache<V>>;
  /** Closes everything opened (after the suite). */
  closeAll(): Promise<void>;
}

export function cacheContract(backend: string, setUp: () => CacheUnderTest): void {
  describe(`cache contract: ${backend}`, () => {
    let caches: CacheUnderTest;
    const run = `contract-${randomBytes(4).toString('hex')}`;
    const open = <V>(name: string, ttlSeconds?: number) => caches.open<V>(`${run}:${name}`, ttlSeconds);

    before(() => { caches = setUp(); });
    after(async () => caches.closeAll());

    it('round-trips a structured value; an absent key is a miss; hits and misses are counted', async () => {
      const cache = await open<{ result: boolean; issues: { code: string; text?: string }[] }>('roundtrip');
      const key = cacheKey(['http://loinc.org', '8867-4', undefined, 'http://vs']);
      await cache.set(key, { result: true, issues: [{ code: 'ok', text: 'é ✓' }] });
      expect(await cache.get(key)).to.deep.equal({ result: true, issues: [{ code: 'ok', text: 'é ✓' }] });
      expect(await cache.get(cacheKey(['absent']))).to.equal(undefined);
      expect(cache.stats()).to.deep.equal({ hits: 1, misses: 1, errors: 0 });
      await cache.readinessCheck();
    });

    it('hands out a copy: a caller mutating what it got does not change the cache', async () => {
      const cache = await open<{ issues: string[] }>('copies');
      await cache.set('k', { issues: ['a'] });
      (await cache.get('k'))!.issues.push('mutated by the caller');
      expect(await cache.get('k')).to.deep.equal({ issues: ['a'] });
    });

    it('overwrites a key, deletes a key, and clears only its own namespace', async () => {
      const a = await open<string>('ns-a');
      const b = await open<string>('ns-b');
      await a.set('k', 'first');
      await a.set('k', 'second');
      await a.set('other', 'x');
      await b.set('k', 'from b');
      expect(await a.get('k')).to.equal('second');
      await a.delete('k');
      expect(await a.get('k')).to.equal(undefined);
      await a.clear();
      expect(await a.get('other')).to.equal(undefined);
      expect(await b.get('k')).to.equal('from b');
    });

    it('expires an entry after its own TTL, and after the default TTL when it has none', async () => {
      const cache = await open<string>('ttl', 1);
      await cache.set('per-entry', 'v', 1);
      await cache.set('default', 'v');
      await cache.set('long', 'v', 60);
      expect(await cache.get('per-entry')).to.equal('v');
      expect(await cache.get('default')).to.equal('v');
      await new Promise((resolve) => setTimeout(resolve, 1_200));
      expect(await cache.get('per-entry')).to.equal(undefined);
      expect(await cache.get('default')).to.equal(undefined);
      expect(await cache.get('long')).to.equal('v');
    });
  });
}
