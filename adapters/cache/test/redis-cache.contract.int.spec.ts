import { silentLogger } from '../../observability/logger.js';
import { createCache, type Cache } from '../cache.js';
import { cacheContract } from './cache-contract.js';

const REDIS = { host: process.env.REDIS_HOST ?? '127.0.0.1', port: Number(process.env.REDIS_PORT ?? 6379), database: 0 };

// The machine's real Redis.
cacheContract('distributed (Redis)', () => {
  const opened: Cache<unknown>[] = [];
  return {
    async open<V>(namespace: string, ttlSeconds?: number) {
      const cache = await createCache<V>({ type: 'distributed', namespace, redis: REDIS, logger: silentLogger(), ...(ttlSeconds ? { ttlSeconds } : {}) });
      opened.push(cache as Cache<unknown>);
      return cache;
    },
    async closeAll() {
      for (const cache of opened) {
        await cache.clear();
        await cache.close();
      }
    },
  };
});
