/**
 * Cache for remote lookups (validate-code results), chosen by configuration: `none` (stores nothing),
 * `memory` (bounded LRU with TTL, local to the process) or `distributed` (Redis via keyv, shared by all
 * instances, keys `nhsn:<namespace>:<key>`).
 *
 * A cache failure never becomes a request failure: a Redis that is down or slow turns gets into misses
 * and sets into no-ops within `operationTimeoutMs` (250 ms by default), counts an error and logs a
 * throttled warning. Build keys for tuples with `cacheKey([...parts])` (SHA-256 of a length-prefixed encoding).
 *
 *   const cache = await createCache<Result>({ type: config.cacheType, namespace: 'validation:prod:validate-code', ... });
 *   const hit = await cache.get(cacheKey([system, code, display, valueSetUrl]));
 */
export { countCacheRequests, createCache, KEY_PREFIX, type Cache, type CacheOptions, type CacheStats, type CacheType } from './cache.js';
export { cacheKey } from './cache-key.js';
export { redisConnection, type RedisConnectionOptions } from './redis-store.js';
