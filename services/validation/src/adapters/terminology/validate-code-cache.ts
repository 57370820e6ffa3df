import { cacheKey } from '#adapters/cache/index.js';

/**
 * Cache of remote $validate-code answers (specification: "Caching of remote validate-code calls").
 * Key = the tuple (codeSystem, code, display, valueSetUrl), hashed with SHA-256 over a
 * length-prefixed encoding, so distinct tuples never share an entry (the original system used a
 * 32-bit Objects.hash and could return another code's answer). Only definite answers are stored
 * (valid, invalid, and "the server does not know this value set / code system", which the
 * original cached as an error result too); "server unavailable" is asked again next time.
 *
 * The store is anything with get/set: the platform cache (`createCache` of adapters/cache: none,
 * memory or distributed/Redis, degrading to a miss on failure) or a test double.
 */
export interface ValidateCodeCacheStore<V> {
  get(key: string): Promise<V | undefined>;
  set(key: string, value: V, ttlSeconds?: number): Promise<void>;
}

export interface CachedValidateCode {
  result: boolean;
  message?: string;
  display?: string;
  /** The server does not know the value set or code system (a definite answer too; `result` is then false). */
  notFound?: boolean;
}

export interface ValidateCodeTuple {
  /** `system`, or `system|version` when the coding names a version. */
  codeSystem?: string;
  code: string;
  display?: string;
  /** As requested (`url` or `url|version`); absent for a code-system check. */
  valueSetUrl?: string;
}

export function validateCodeCacheKey(tuple: ValidateCodeTuple): string {
  return cacheKey([tuple.codeSystem, tuple.code, tuple.display, tuple.valueSetUrl]);
}

export interface ValidateCodeCacheCounters {
  hits: number;
  misses: number;
  /** Lookups or writes that threw (a store without its own degrade-to-miss policy). */
  errors: number;
}

/**
 * Optional near cache in front of a distributed store: the same answers kept in-process for a
 * short while, so a tuple asked hundreds of times per bundle (the same LOINC code in every
 * Observation) costs one Redis round trip per `ttlSeconds` instead of one per check. Bounded
 * (least recently stored evicted first) and never longer-lived than the store's own TTL.
 */
export interface NearCacheOptions {
  maxEntries: number;
  ttlSeconds: number;
}

// In-process keys need no hash: the canonical JSON of the tuple is exact (and cheaper).
function nearKey(tuple: ValidateCodeTuple): string {
  return JSON.stringify([tuple.codeSystem ?? null, tuple.code, tuple.display ?? null, tuple.valueSetUrl ?? null]);
}

export class ValidateCodeCache {
  readonly counters: ValidateCodeCacheCounters = { hits: 0, misses: 0, errors: 0 };
  private readonly near?: Map<string, { value: CachedValidateCode; expiresAt: number }>;
  private readonly nearTtlMs: number;
  private readonly nearMaxEntries: number;

  constructor(
    private readonly store: ValidateCodeCacheStore<CachedValidateCode>,
    private readonly ttlSeconds?: number,
    nearCache?: NearCacheOptions,
    private readonly now: () => number = Date.now,
  ) {
    this.nearMaxEntries = Math.max(0, nearCache?.maxEntries ?? 0);
    this.nearTtlMs = Math.min(nearCache?.ttlSeconds ?? 0, ttlSeconds ?? Infinity) * 1000;
    if (this.nearMaxEntries > 0 && this.nearTtlMs > 0) this.near = new Map();
  }

  async get(tuple: ValidateCodeTuple): Promise<CachedValidateCode | undefined> {
    const near = this.peek(tuple);
    if (near) return near;
    const key = validateCodeCacheKey(tuple);
    let value: CachedValidateCode | undefined;
    try {
      value = await this.store.get(key);
    } catch {
      // A broken cache is a miss: the terminology server is asked instead.
      this.counters.errors++;
      value = undefined;
    }
    if (value && typeof value.result === 'boolean') {
      this.counters.hits++;
      this.remember(tuple, value);
      return value;
    }
    this.counters.misses++;
    return undefined;
  }

  /**
   * The near cache alone, synchronously: lets a warm run answer without a Promise at all, exactly
   * like local terminology. Undefined on a near miss (then `get` asks the store).
   */
  peek(tuple: ValidateCodeTuple): CachedValidateCode | undefined {
    if (!this.near) return undefined;
    const key = nearKey(tuple);
    const near = this.near.get(key);
    if (!near) return undefined;
    if (near.expiresAt <= this.now()) {
      this.near.delete(key);
      return undefined;
    }
    this.counters.hits++;
    return near.value;
  }

  get hasNearCache(): boolean {
    return this.near !== undefined;
  }

  private remember(tuple: ValidateCodeTuple, value: CachedValidateCode): void {
    if (!this.near) return;
    const oldest = this.near.size >= this.nearMaxEntries ? this.near.keys().next() : undefined;
    if (oldest && !oldest.done) this.near.delete(oldest.value);
    this.near.set(nearKey(tuple), { value, expiresAt: this.now() + this.nearTtlMs });
  }

  async set(tuple: ValidateCodeTuple, answer: CachedValidateCode): Promise<void> {
    const value: CachedValidateCode = { result: answer.result };
    if (answer.message !== undefined) value.message = answer.message;
    if (answer.display !== undefined) value.display = answer.display;
    if (answer.notFound) value.notFound = true;
    this.remember(tuple, value);
    const key = validateCodeCacheKey(tuple);
    try {
      await this.store.set(key, value, this.ttlSeconds);
    } catch {
      this.counters.errors++;
    }
  }
}
