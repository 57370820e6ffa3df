import type { CacheStore } from './cache-store.js';

interface Entry<V> {
  value: V;
  expiresAt: number;
}

/**
 * In-process LRU cache with TTL, bounded to `maxEntries` (keyv's default Map store is unbounded).
 * A Map keeps insertion order, so re-inserting on every read makes its first key the least recently used.
 * Values are structured-cloned in and out, so a caller mutating a result cannot alter the cached copy
 * (the same isolation the distributed cache gets from serialisation).
 */
export class MemoryLruStore<V> implements CacheStore<V> {
  private readonly entries = new Map<string, Entry<V>>();

  constructor(private readonly maxEntries: number, private readonly now: () => number = Date.now) {
    if (!Number.isInteger(maxEntries) || maxEntries < 1) throw new Error('memory cache: maxEntries must be a positive integer');
  }

  get size(): number {
    return this.entries.size;
  }

  async get(key: string): Promise<V | undefined> {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    this.entries.delete(key);
    if (entry.expiresAt <= this.now()) return undefined;
    this.entries.set(key, entry);
    return structuredClone(entry.value);
  }

  async set(key: string, value: V, ttlMs: number | undefined): Promise<void> {
    this.entries.delete(key);
    this.entries.set(key, { value: structuredClone(value), expiresAt: ttlMs === undefined ? Infinity : this.now() + ttlMs });
    while (this.entries.size > this.maxEntries) {
      const oldest = this.entries.keys().next();
      if (oldest.done) break;
      this.entries.delete(oldest.value);
    }
  }

  async delete(key: string): Promise<void> {
    this.entries.delete(key);
  }

  async clear(): Promise<void> {
    this.entries.clear();
  }

  async close(): Promise<void> {
    this.entries.clear();
  }

  async ping(): Promise<void> {}
}
