import { silentLogger } from '../../observability/logger.js';
import { createCache, type Cache } from '../cache.js';
import { cacheContract } from './cache-contract.js';

cacheContract('memory', () => {
  const opened: Cache<unknown>[] = [];
  return {
    async open<V>(namespace: string, ttlSeconds?: number) {
      const cache = await createCache<V>({ type: 'memory', namespace, logger: silentLogger(), ...(ttlSeconds ? { ttlSeconds } : {}) });
      opened.push(cache as Cache<unknown>);
      return cache;
    },
    async closeAll() { for (const cache of opened) await cache.close(); },
  };
});
