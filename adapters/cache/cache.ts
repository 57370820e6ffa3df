import { Counter, type Registry } from 'prom-client';
import type { Logger } from '../observability/logger.js';
import { NoCacheStore, type CacheStore } from './cache-store.js';
import { MemoryLruStore } from './memory-store.js';
import { RedisStore, type RedisConnectionOptions } from './redis-store.js';

export type CacheType = 'none' | 'memory' | 'distributed';

/** Values must not be `undefined` (that is what a miss looks like); anything structured-clonable and JSON-serialisable works. */
export interface Cache<V> {
  get(key: string): Promise<V | undefined>;
  /** `ttlSeconds` overrides the cache's default TTL for this entry. */
  set(key: string, value: V, ttlSeconds?: number): Promise<void>;
  delete(key: string): Promise<void>;
  /** Removes this cache's entries only (its namespace), never other services' keys. */
  clear(): Promise<void>;
  close(): Promise<void>;
  /**
   * Rejects when the backend cannot serve requests (Redis unreachable). The cache still works as a
   * miss-only cache then, so a service may treat this as informational rather than as not-ready.
   */
  readinessCheck(): Promise<void>;
  stats(): CacheStats;
}

export interface CacheStats {
  hits: number;
  misses: number;
  errors: number;
}

export interface CacheOptions {
  type: CacheType;
  /** Per service and environment, e.g. `validation:prod:validate-code`; Redis keys become `nhsn:<namespace>:<key>`. */
  namespace: string;
  /** Default entry lifetime; unset = entries do not expire by time. */
  ttlSeconds?: number;
  /** Bound of the `memory` cache; the least recently used entry is evicted beyond it. Default 10,000. */
  memoryMaxEntries?: number;
  /** Required when `type` is `distributed`. */
  redis?: RedisConnectionOptions;
  logger: Logger;
  /** Each Redis operation that takes longer counts as failed (a miss for get). Default 250 ms. */
  operationTimeoutMs?: number;
  /** Failures are logged at warn at most once per this period. Default 60 s. */
  warnIntervalMs?: number;
  /** Registers `cache_requests_total{cache,result}` here when given. */
  registry?: Registry;
  /** The `cache` label; defaults to the namespace. */
  metricName?: string;
}

export const KEY_PREFIX = 'nhsn';
const NAMESPACE = /^[A-Za-z0-9._-]+(:[A-Za-z0-9._-]+)*$/;

/**
 * Creates the cache chosen by configuration (`cache.type`). For `distributed` it waits up to the
 * operation timeout x 4 for the first Redis connection, then returns either way: a cache that cannot
 * reach Redis answers every get with a miss and keeps reconnecting in the background.
 */
export async function createCache<V>(options: CacheOptions): Promise<Cache<V>> {
  if (!NAMESPACE.test(options.namespace)) {
    throw new Error(`createCache: namespace ${JSON.stringify(options.namespace)} must be non-empty segments of letters, digits, . _ - joined by ':'`);
  }
  if (options.ttlSeconds !== undefined && !(options.ttlSeconds > 0)) throw new Error('createCache: ttlSeconds must be positive');
  const operationTimeoutMs = options.operationTimeoutMs ?? 250;
  const warn = throttledWarn(options.logger, options.warnIntervalMs ?? 60_000, options.namespace);

  let store: CacheStore<V>;
  switch (options.type) {
    case 'none':
      store = new NoCacheStore<V>();
      break;
    case 'memory':
      store = new MemoryLruStore<V>(options.memoryMaxEntries ?? 10_000);
      break;
    case 'distributed':
      if (!options.redis) throw new Error('createCache: redis connection options are required for a distributed cache');
      store = await RedisStore.open<V>({
        redis: options.redis,
        prefix: `${KEY_PREFIX}:${options.namespace}`,
        connectTimeoutMs: operationTimeoutMs * 4,
        onConnectionError: (error) => warn('cache backend connection error', error),
      });
      break;
    default:
      throw new Error(`createCache: unknown cache type ${JSON.stringify(options.type)} (none, memory or distributed)`);
  }
  return new ResilientCache<V>(store, {
    defaultTtlMs: options.ttlSeconds === undefined ? undefined : options.ttlSeconds * 1000,
    operationTimeoutMs,
    warn,
    counter: options.registry ? requestCounter(options.registry) : undefined,
    label: options.metricName ?? options.namespace,
  });
}

interface ResilientCacheOptions {
  defaultTtlMs: number | undefined;
  operationTimeoutMs: number;
  warn: (message: string, error: unknown) => void;
  counter: Counter<'cache' | 'result'> | undefined;
  label: string;
}

/** The degrade-to-miss policy, in one place for every backend: time-box each call, count it, never throw. */
class ResilientCache<V> implements Cache<V> {
  private readonly counts: CacheStats = { hits: 0, misses: 0, errors: 0 };

  constructor(private readonly store: CacheStore<V>, private readonly options: ResilientCacheOptions) {}

  async get(key: string): Promise<V | undefined> {
    try {
      const value = await this.timed(this.store.get(key), 'get');
      this.count(value === undefined ? 'misses' : 'hits');
      return value;
    } catch (error) {
      this.fail('cache get failed; treating as a miss', error);
      return undefined;
    }
  }

  async set(key: string, value: V, ttlSeconds?: number): Promise<void> {
    if (value === undefined) throw new Error('cache: undefined cannot be cached (it means "miss")');
    if (ttlSeconds !== undefined && !(ttlSeconds > 0)) throw new Error('cache: ttlSeconds must be positive');
    const ttlMs = ttlSeconds === undefined ? this.options.defaultTtlMs : ttlSeconds * 1000;
    try {
      await this.timed(this.store.set(key, value, ttlMs), 'set');
    } catch (error) {
      this.fail('cache set failed; entry not stored', error);
    }
  }

  async delete(key: string): Promise<void> {
    try {
      await this.timed(this.store.delete(key), 'delete');
    } catch (error) {
      this.fail('cache delete failed', error);
    }
  }

  async clear(): Promise<void> {
    try {
      // A namespace scan can take longer than a point lookup; still bounded.
      await this.timed(this.store.clear(), 'clear', this.options.operationTimeoutMs * 40);
    } catch (error) {
      this.fail('cache clear failed', error);
    }
  }

  async close(): Promise<void> {
    await this.timed(this.store.close(), 'close', 2000).catch(() => undefined);
  }

  readinessCheck(): Promise<void> {
    return this.timed(this.store.ping(), 'ping', Math.max(this.options.operationTimeoutMs, 1000));
  }

  stats(): CacheStats {
    return { ...this.counts };
  }

  private count(result: keyof CacheStats): void {
    this.counts[result]++;
    this.options.counter?.inc({ cache: this.options.label, result: result === 'hits' ? 'hit' : result === 'misses' ? 'miss' : 'error' });
  }

  private fail(message: string, error: unknown): void {
    this.count('errors');
    this.options.warn(message, error);
  }

  private timed<T>(promise: Promise<T>, operation: string, ms = this.options.operationTimeoutMs): Promise<T> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`cache ${operation} timed out after ${ms} ms`)), ms);
    });
    return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
  }
}

/** Logs at warn at most once per interval, with the number of failures swallowed since the last line. */
function throttledWarn(logger: Logger, intervalMs: number, namespace: string): (message: string, error: unknown) => void {
  let lastAt = -Infinity;
  let suppressed = 0;
  return (message, error) => {
    const now = Date.now();
    if (now - lastAt < intervalMs) {
      suppressed++;
      return;
    }
    lastAt = now;
    const err = error instanceof Error ? error.message : String(error);
    logger.warn({ cache: namespace, err, suppressedSinceLastLog: suppressed }, message);
    suppressed = 0;
  };
}

/**
 * Adds lookups counted elsewhere — a cache living in a worker thread, which has no registry of its
 * own — to `cache_requests_total{cache,result}` of this registry, exactly as the cache itself
 * would have counted them. Zero counts create no series (as an untouched cache creates none).
 */
export function countCacheRequests(registry: Registry, cache: string, counts: Partial<CacheStats>): void {
  const counter = requestCounter(registry);
  if (counts.hits) counter.inc({ cache, result: 'hit' }, counts.hits);
  if (counts.misses) counter.inc({ cache, result: 'miss' }, counts.misses);
  if (counts.errors) counter.inc({ cache, result: 'error' }, counts.errors);
}

// Declared next to its Counter: scripts/deploy/dashboard-metrics.ts finds metrics and their labels by reading the code.
const METRIC = 'cache_requests_total';

function requestCounter(registry: Registry): Counter<'cache' | 'result'> {
  // Several caches share one registry; prom-client refuses to register a name twice.
  const existing = registry.getSingleMetric(METRIC);
  if (existing) return existing as Counter<'cache' | 'result'>;
  return new Counter({
    name: METRIC,
    help: 'Cache lookups and failures by cache and result (hit, miss, error)',
    labelNames: ['cache', 'result'],
    registers: [registry],
  });
}
