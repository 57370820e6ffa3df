import { Counter, type Registry } from 'prom-client';

/**
 * Counters of where terminology answers came from, as plain numbers (for tests, logs and the
 * acceptance counts) and, when a registry is given, as Prometheus counters for /metrics.
 */
export type AnswerSource = 'local' | 'cache' | 'remote' | 'unavailable';

export interface TerminologyCounts {
  /** validate-code calls answered entirely by local terminology. */
  local: number;
  /** Remote tuples answered from the validate-code cache. */
  cacheHits: number;
  /** Remote tuples not in the cache (asked of the server, or shared with a call in flight). */
  cacheMisses: number;
  /** $validate-code requests actually sent. */
  remoteCalls: number;
  /** Of which the server could not answer (down, timeout, 5xx, circuit open). */
  remoteUnavailable: number;
}

export class TerminologyMetrics {
  readonly counts: TerminologyCounts = { local: 0, cacheHits: 0, cacheMisses: 0, remoteCalls: 0, remoteUnavailable: 0 };
  private readonly answers?: Counter<'source'>;
  private readonly cache?: Counter<'result'>;

  constructor(registry?: Registry) {
    if (!registry) return;
    this.answers = existing(registry, 'terminology_validate_code_answers_total') ?? new Counter({
      name: 'terminology_validate_code_answers_total',
      help: 'Terminology validate-code answers by where they came from (local, cache, remote, unavailable)',
      labelNames: ['source'], registers: [registry],
    });
    this.cache = existing(registry, 'terminology_validate_code_cache_total') ?? new Counter({
      name: 'terminology_validate_code_cache_total',
      help: 'Lookups of remote validate-code answers in the cache (hit or miss)',
      labelNames: ['result'], registers: [registry],
    });
  }

  answeredLocally(): void {
    this.counts.local++;
    this.answers?.inc({ source: 'local' });
  }

  cacheHit(): void {
    this.counts.cacheHits++;
    this.cache?.inc({ result: 'hit' });
    this.answers?.inc({ source: 'cache' });
  }

  cacheMiss(): void {
    this.counts.cacheMisses++;
    this.cache?.inc({ result: 'miss' });
  }

  remoteCall(answered: boolean): void {
    this.counts.remoteCalls++;
    if (!answered) this.counts.remoteUnavailable++;
    this.answers?.inc({ source: answered ? 'remote' : 'unavailable' });
  }

  /**
   * Adds counts made elsewhere (a worker thread's terminology, which has no registry) as if they
   * had been made here, series by series; zero counts create no series.
   */
  add(counts: Partial<TerminologyCounts>): void {
    const { local = 0, cacheHits = 0, cacheMisses = 0, remoteCalls = 0, remoteUnavailable = 0 } = counts;
    this.counts.local += local;
    this.counts.cacheHits += cacheHits;
    this.counts.cacheMisses += cacheMisses;
    this.counts.remoteCalls += remoteCalls;
    this.counts.remoteUnavailable += remoteUnavailable;
    // Every unavailable answer is also a remote call (remoteCall counts both at once).
    const answeredRemotely = remoteCalls - remoteUnavailable;
    if (local > 0) this.answers?.inc({ source: 'local' }, local);
    if (cacheHits > 0) {
      this.cache?.inc({ result: 'hit' }, cacheHits);
      this.answers?.inc({ source: 'cache' }, cacheHits);
    }
    if (cacheMisses > 0) this.cache?.inc({ result: 'miss' }, cacheMisses);
    if (answeredRemotely > 0) this.answers?.inc({ source: 'remote' }, answeredRemotely);
    if (remoteUnavailable > 0) this.answers?.inc({ source: 'unavailable' }, remoteUnavailable);
  }
}

function existing<T extends string>(registry: Registry, name: string): Counter<T> | undefined {
  return registry.getSingleMetric(name) as Counter<T> | undefined;
}
