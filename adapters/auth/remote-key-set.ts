import { createLocalJWKSet, errors, type JSONWebKeySet, type JWSHeaderParameters, type FlattenedJWSInput, type JWTVerifyGetKey } from 'jose';

/**
 * The identity provider's signing keys, read from its JWKS URL and kept through its outages.
 *
 * jose's own remote key set forgets the keys once they are older than its cache age and then fails
 * every verification while the provider cannot be reached: each caller got 401 `invalid_token`, as if
 * its token were bad. Here the last key set that was read successfully keeps verifying tokens for
 * `staleMaxAgeMs` after it was read (`auth.jwks-stale-max-age`); past that, or when a token names a key
 * the held set does not have while the provider is unreachable, verification throws
 * `KeySetUnavailableError` (the middleware answers 503 with Retry-After: the fault is ours, not the
 * caller's). A failed read is not repeated for `cooldownMs`, so an outage costs the provider one request
 * per cooldown rather than one per incoming request.
 */
export interface RemoteKeySetOptions {
  readonly url: string;
  /** Time one read of the JWKS may take; default 5 s. */
  readonly timeoutMs?: number;
  /** A held set older than this is read again before use (keys rotate); default 10 min. */
  readonly refreshAfterMs?: number;
  /** How long the last good set keeps verifying while the provider cannot be reached; default 1 h. */
  readonly staleMaxAgeMs?: number;
  /** Least time between two reads caused by unknown keys or after a failed read; default 30 s. */
  readonly cooldownMs?: number;
  readonly now?: () => number;
  /** Told about every read (for the log and the metrics); never given key material. */
  readonly onRead?: (event: KeySetReadEvent) => void;
  /** Told when a read brings a key set that differs from the held one (a key rotated or revoked). */
  readonly onKeysChanged?: () => void;
}

export type KeySetReadEvent = { ok: true; keys: number } | { ok: false; reason: string; servingStale: boolean };

export interface KeySetStatus {
  /** Seconds since the held set was read; undefined before the first successful read. */
  readonly ageSeconds?: number;
  /** Why the most recent read failed, while it is the most recent one. */
  readonly lastFailure?: string;
  /** Reads that failed since start (a counter for the metrics). */
  readonly failedReads: number;
}

/** The keys cannot be read and none that may still be used are held: answer 503, not 401. */
export class KeySetUnavailableError extends Error {
  override readonly name = 'KeySetUnavailableError';

  constructor(message: string, readonly retryAfterSeconds: number, options?: { cause?: unknown }) {
    super(message, options);
  }
}

type LocalSet = ReturnType<typeof createLocalJWKSet>;

export class RemoteKeySet {
  private held?: { keys: LocalSet; readAt: number; text: string };
  private lastAttemptAt = -Infinity;
  private lastFailure?: string;
  private failedReads = 0;
  private reading?: Promise<void>;
  private readonly url: URL;
  private readonly timeoutMs: number;
  private readonly refreshAfterMs: number;
  private readonly staleMaxAgeMs: number;
  private readonly cooldownMs: number;
  private readonly now: () => number;

  constructor(private readonly options: RemoteKeySetOptions) {
    this.url = new URL(options.url);
    this.timeoutMs = options.timeoutMs ?? 5_000;
    this.refreshAfterMs = options.refreshAfterMs ?? 600_000;
    this.staleMaxAgeMs = options.staleMaxAgeMs ?? 3_600_000;
    this.cooldownMs = options.cooldownMs ?? 30_000;
    this.now = options.now ?? Date.now;
  }

  /** The key resolver jose's jwtVerify takes. */
  readonly getKey: JWTVerifyGetKey = async (header: JWSHeaderParameters, token: FlattenedJWSInput) => {
    const keys = await this.usableKeys();
    try {
      return await keys(header, token);
    } catch (error) {
      if (!(error instanceof errors.JWKSNoMatchingKey)) throw error;
      // A key we do not hold: the provider may have rotated. Read again unless we just did.
      if (this.reading) await this.reading;
      else if (this.coolingDown()) {
        // Just read: the key is not there (401), unless that read failed (we cannot tell: 503).
        if (this.lastFailure) throw this.unavailable();
        throw error;
      } else await this.read();
      if (this.lastFailure || !this.held) throw this.unavailable();
      return this.held.keys(header, token);
    }
  };

  /**
   * Whether the held set may still verify (read less than staleMaxAgeMs ago). Results verified with it
   * may be reused only while it is; when it is due for a refresh, a read starts in the background, so
   * a rotated or revoked key is noticed (onKeysChanged) although every token came from a cache.
   */
  usable(): boolean {
    if (this.held && this.age() >= this.refreshAfterMs && !this.reading && !this.coolingDown()) void this.read();
    return this.held !== undefined && this.age() < this.staleMaxAgeMs;
  }

  status(): KeySetStatus {
    return {
      ageSeconds: this.held ? Math.max(0, (this.now() - this.held.readAt) / 1000) : undefined,
      lastFailure: this.lastFailure,
      failedReads: this.failedReads,
    };
  }

  private async usableKeys(): Promise<LocalSet> {
    if (!this.held || this.age() >= this.refreshAfterMs) {
      if (this.reading) await this.reading;
      else if (!this.coolingDown()) await this.read();
    }
    if (this.held && this.age() < this.staleMaxAgeMs) return this.held.keys;
    // The provider could not be read (now or within the cooldown) and what we hold is too old, if anything.
    throw this.unavailable();
  }

  private age(): number {
    return this.held ? this.now() - this.held.readAt : Infinity;
  }

  private coolingDown(): boolean {
    return this.now() - this.lastAttemptAt < this.cooldownMs;
  }

  private unavailable(): KeySetUnavailableError {
    const retryAfter = Math.max(1, Math.ceil((this.lastAttemptAt + this.cooldownMs - this.now()) / 1000));
    return new KeySetUnavailableError('The identity provider\'s signing keys cannot be read right now.', retryAfter);
  }

  /** One read at a time; concurrent callers share it. Never rejects: the outcome is in held/lastFailure. */
  private read(): Promise<void> {
    this.reading ??= (async () => {
      this.lastAttemptAt = this.now();
      try {
        const json = await this.fetchJson();
        const keys = createLocalJWKSet(json);
        const text = JSON.stringify(json.keys);
        const changed = this.held !== undefined && this.held.text !== text;
        this.held = { keys, readAt: this.now(), text };
        if (changed) this.options.onKeysChanged?.();
        this.lastFailure = undefined;
        this.options.onRead?.({ ok: true, keys: json.keys.length });
      } catch (error) {
        this.lastFailure = error instanceof Error ? error.message : String(error);
        this.failedReads += 1;
        this.options.onRead?.({ ok: false, reason: this.lastFailure, servingStale: this.held !== undefined && this.age() < this.staleMaxAgeMs });
      } finally {
        this.reading = undefined;
      }
    })();
    return this.reading;
  }

  private async fetchJson(): Promise<JSONWebKeySet> {
    let response: Response;
    try {
      // No redirects: the key set must come from the configured address itself.
      response = await fetch(this.url, {
        redirect: 'manual', signal: AbortSignal.timeout(this.timeoutMs), headers: { accept: 'application/json, application/jwk-set+json' },
      });
    } catch (error) {
      const cause: unknown = error instanceof Error ? error.cause : undefined;
      const code = typeof cause === 'object' && cause !== null && 'code' in cause && typeof cause.code === 'string' ? cause.code : undefined;
      const timedOut = error instanceof Error && error.name === 'TimeoutError';
      throw new Error(timedOut ? `no answer within ${this.timeoutMs} ms` : `unreachable (${code ?? (error instanceof Error ? error.message : String(error))})`, { cause: error });
    }
    if (response.status !== 200) {
      await response.body?.cancel();
      throw new Error(`answered HTTP ${response.status}`);
    }
    let json: unknown;
    try {
      json = await response.json();
    } catch {
      throw new Error('answered something that is not JSON');
    }
    if (!isJwkSet(json)) throw new Error('answered JSON that is not a JWK set');
    return json;
  }
}

/** An object whose `keys` is an array of objects (each key is then checked by jose). */
function isJwkSet(json: unknown): json is JSONWebKeySet {
  return typeof json === 'object' && json !== null && 'keys' in json && Array.isArray(json.keys)
    && json.keys.every((key: unknown) => typeof key === 'object' && key !== null && !Array.isArray(key));
}
