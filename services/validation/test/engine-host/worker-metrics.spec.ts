/**
 * The pieces that carry worker-thread counts to the main registry: a worker reports only what
 * changed since its last report, and the main thread turns a report into exactly the series the
 * counting objects themselves would have produced.
 */
import { expect } from 'chai';
import { Registry } from 'prom-client';
import { createCache, type Cache } from '#adapters/cache/index.js';
import { silentLogger } from '#adapters/observability/logger.js';
import { TerminologyMetrics } from '#validation/adapters/terminology/index.js';
import { WorkerCounters, WorkerMetricsSink } from '#validation/adapters/worker-pool/worker-metrics.js';

/** The counter lines of a registry's exposition, sorted (HELP/TYPE lines and order aside). */
async function series(registry: Registry): Promise<string[]> {
  return (await registry.metrics()).split('\n').filter((line) => line !== '' && !line.startsWith('#')).sort();
}

describe('worker metrics: reports of changes and their replay into the main registry', () => {
  let cache: Cache<string>;
  beforeEach(async () => {
    cache = await createCache<string>({ type: 'memory', namespace: 'validation:validate-code', logger: silentLogger() });
  });
  afterEach(async () => { await cache.close(); });

  it('reports nothing until something is counted, then only the non-zero changes since the last report', async () => {
    const counters = new WorkerCounters();
    counters.addCache('validation:validate-code', cache);
    expect(counters.takeReport()).to.equal(undefined);

    await cache.get('a');
    counters.terminology.cacheMiss();
    counters.terminology.remoteCall(true);
    expect(counters.takeReport()).to.deep.equal({
      terminology: { cacheMisses: 1, remoteCalls: 1 },
      caches: { 'validation:validate-code': { misses: 1 } },
    });
    expect(counters.takeReport()).to.equal(undefined);

    await cache.set('a', 'x');
    await cache.get('a');
    counters.terminology.cacheHit();
    counters.terminology.answeredLocally();
    expect(counters.takeReport()).to.deep.equal({
      terminology: { cacheHits: 1, local: 1 },
      caches: { 'validation:validate-code': { hits: 1 } },
    });
  });

  it('a report replayed in the main thread gives the same series as counting there directly', async () => {
    // Counted directly, as the in-process path does.
    const direct = new Registry();
    const cacheDirect = await createCache<string>({ type: 'memory', namespace: 'validation:validate-code', logger: silentLogger(), registry: direct });
    const metricsDirect = new TerminologyMetrics(direct);
    // Counted in a "worker" without a registry, then reported.
    const counters = new WorkerCounters();
    counters.addCache('validation:validate-code', cache);
    const replayed = new Registry();
    const sink = new WorkerMetricsSink(replayed);

    for (const [c, m] of [[cacheDirect, metricsDirect], [cache, counters.terminology]] as const) {
      await c.get('a');
      await c.set('a', 'x');
      await c.get('a');
      await c.get('a');
      m.answeredLocally();
      m.cacheMiss();
      m.remoteCall(true);
      m.cacheMiss();
      m.remoteCall(false);
      m.cacheHit();
      m.cacheHit();
    }
    sink.add(counters.takeReport()!);
    await cache.get('b');
    sink.add(counters.takeReport()!);
    await cacheDirect.get('b');

    expect(await series(replayed)).to.deep.equal(await series(direct));
    expect(await series(direct)).to.include.members([
      'cache_requests_total{cache="validation:validate-code",result="hit"} 2',
      'cache_requests_total{cache="validation:validate-code",result="miss"} 2',
      'terminology_validate_code_answers_total{source="unavailable"} 1',
      'terminology_validate_code_answers_total{source="remote"} 1',
      'terminology_validate_code_cache_total{result="hit"} 2',
    ]);
    await cacheDirect.close();
  });
});
