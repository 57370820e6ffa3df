import { expect } from 'chai';
import { ValidateCodeCache, validateCodeCacheKey, type CachedValidateCode, type ValidateCodeCacheStore } from '#validation/adapters/terminology/validate-code-cache.js';

class CountingStore implements ValidateCodeCacheStore<CachedValidateCode> {
  readonly entries = new Map<string, CachedValidateCode>();
  gets = 0;
  failing = false;
  async get(key: string) {
    this.gets++;
    if (this.failing) throw new Error('store down');
    return this.entries.get(key);
  }
  async set(key: string, value: CachedValidateCode) {
    if (this.failing) throw new Error('store down');
    this.entries.set(key, value);
  }
}

const tuple = { codeSystem: 'http://loinc.org', code: '8480-6', display: 'Systolic', valueSetUrl: 'http://example.org/vs' };

describe('ValidateCodeCache', () => {
  it('stores under the SHA-256 key of the tuple and counts hits and misses', async () => {
    const store = new CountingStore();
    const cache = new ValidateCodeCache(store, 60);
    expect(await cache.get(tuple)).to.equal(undefined);
    await cache.set(tuple, { result: false, message: 'not in set' });
    expect([...store.entries.keys()]).to.deep.equal([validateCodeCacheKey(tuple)]);
    expect(await cache.get(tuple)).to.deep.equal({ result: false, message: 'not in set' });
    expect(await cache.get({ ...tuple, display: 'SBP' })).to.equal(undefined);
    expect(cache.counters).to.deep.equal({ hits: 1, misses: 2, errors: 0 });
  });

  it('treats a failing store as a miss, never as an error', async () => {
    const store = new CountingStore();
    store.failing = true;
    const cache = new ValidateCodeCache(store, 60);
    await cache.set(tuple, { result: true });
    expect(await cache.get(tuple)).to.equal(undefined);
    expect(cache.counters.errors).to.equal(2);
  });

  it('near cache: repeated tuples skip the store until the near TTL ends; bounded in size', async () => {
    let now = 0;
    const store = new CountingStore();
    const cache = new ValidateCodeCache(store, 3600, { maxEntries: 2, ttlSeconds: 10 }, () => now);
    await cache.set(tuple, { result: true });
    for (let i = 0; i < 5; i++) expect(await cache.get(tuple)).to.deep.equal({ result: true });
    expect(store.gets).to.equal(0);
    now = 10_000;
    expect(await cache.get(tuple)).to.deep.equal({ result: true }); // expired near entry: read through
    expect(store.gets).to.equal(1);
    await cache.set({ ...tuple, code: 'a' }, { result: true });
    await cache.set({ ...tuple, code: 'b' }, { result: true });
    await cache.get(tuple); // evicted from the near cache by the two newer entries
    expect(store.gets).to.equal(2);
  });
});
