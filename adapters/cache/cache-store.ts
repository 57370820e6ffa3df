/**
 * What a cache backend implements. Backends may throw or hang on failure; `ResilientCache` turns that
 * into misses and no-ops, so the callers of `Cache` never see a cache error.
 */
export interface CacheStore<V> {
  get(key: string): Promise<V | undefined>;
  /** `ttlMs` undefined = no expiry by time. */
  set(key: string, value: V, ttlMs: number | undefined): Promise<void>;
  delete(key: string): Promise<void>;
  clear(): Promise<void>;
  close(): Promise<void>;
  /** Rejects when the backend cannot serve requests. */
  ping(): Promise<void>;
}

/** `cache.type = none`: stores nothing, every get is a miss. */
export class NoCacheStore<V> implements CacheStore<V> {
  async get(): Promise<V | undefined> { return undefined; }
  async set(): Promise<void> {}
  async delete(): Promise<void> {}
  async clear(): Promise<void> {}
  async close(): Promise<void> {}
  async ping(): Promise<void> {}
}
