/**
 * The validate-code cache and terminology counters of the main registry count the lookups made in
 * worker threads exactly as they count in-process ones: the same work gives the same series and
 * values in the engine host's workers (1 and 2 of them) as a Validator in this thread wired to the
 * registry directly, for a memory and for a distributed (Redis) cache, against a real HTTP
 * terminology server.
 */
import { readFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import type { Counter } from 'prom-client';
import { silentLogger } from '#adapters/observability/logger.js';
import { createMetrics, type ServiceMetrics } from '#adapters/observability/metrics.js';
import type { CacheType } from '#adapters/cache/index.js';
import { EngineHost } from '#validation/adapters/engine/index.js';
import { conformanceSource } from '#validation/adapters/engine/scoped-source.js';
import { loadDefinitions } from '#validation/adapters/fhir-definitions/definition-cache.js';
import { createTerminology, createValidateCodeCacheStore, type TerminologySettings } from '#validation/adapters/terminology/index.js';
import { Validator } from '#validation/domain/engine/validator.js';
import { folderArtifacts } from '../flow/support/flow-harness.js';
import { sharedDir } from '#test-support/shared-dir.js';

const REDIS = { host: process.env.REDIS_HOST ?? '127.0.0.1', port: Number(process.env.REDIS_PORT ?? 6379) };
const COUNTERS = ['cache_requests_total', 'terminology_validate_code_answers_total', 'terminology_validate_code_cache_total'];

/** A sample ServiceRequest whose NHSN profile binds its LOINC code: local terminology cannot check LOINC. */
function sampleServiceRequest(): Record<string, unknown> {
  const bundle = JSON.parse(readFileSync(sharedDir('samples', 'nhsn-ach', 'patient-0VmZaB90pc5yRSefoK6sW9C9WVOvPARAgquBFNtGr6LXk.json'), 'utf8')) as { entry: { resource: Record<string, unknown> }[] };
  return bundle.entry.map((e) => e.resource).find((r) => JSON.stringify(r).includes('24325-3'))!;
}
const coded = sampleServiceRequest();

type Snapshot = Record<string, number>;

/** Every series of the cache and terminology counters, as `name{label=value,...}` → value. */
async function snapshot(metrics: ServiceMetrics): Promise<Snapshot> {
  const out: Snapshot = {};
  for (const name of COUNTERS) {
    const metric = metrics.registry.getSingleMetric(name) as Counter<string> | undefined;
    if (!metric) continue;
    for (const v of (await metric.get()).values) {
      const labels = Object.entries(v.labels).sort(([a], [b]) => a.localeCompare(b)).map(([k, l]) => `${k}=${String(l)}`).join(',');
      out[`${name}{${labels}}`] = v.value;
    }
  }
  return out;
}

function change(after: Snapshot, before: Snapshot): Snapshot {
  const out: Snapshot = {};
  for (const [key, value] of Object.entries(after)) if (value !== (before[key] ?? 0)) out[key] = value - (before[key] ?? 0);
  return out;
}

describe('engine host: worker threads\' validate-code cache and terminology lookups in the main registry', function () {
  this.timeout(180_000);
  let server: http.Server;
  let url: string;
  let serverCalls = 0;

  before(async () => {
    server = http.createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        serverCalls++;
        res.writeHead(200, { 'content-type': 'application/fhir+json' })
          .end(JSON.stringify({ resourceType: 'Parameters', parameter: [{ name: 'result', valueBoolean: true }] }));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  type Runs = { first: Snapshot; second: Snapshot; calls: number };
  const settings = (): TerminologySettings => ({ fhirTerminologyServiceUrl: url, timeoutMs: 5_000, retries: 0 });

  /** The coded resource validated twice by `validate`; the counter changes of each validation, and the server calls. */
  async function twice(metrics: ServiceMetrics, validate: () => Promise<unknown>): Promise<Runs> {
    const callsBefore = serverCalls;
    const start = await snapshot(metrics);
    await validate();
    const afterFirst = await snapshot(metrics);
    await validate();
    const afterSecond = await snapshot(metrics);
    return { first: change(afterFirst, start), second: change(afterSecond, afterFirst), calls: serverCalls - callsBefore };
  }

  /** In this thread: a Validator whose terminology counts straight into the registry, its cache labelled by the namespace. */
  async function runInProcess(type: CacheType, namespace: string): Promise<Runs> {
    const metrics = createMetrics('validation-test', { defaultMetrics: false });
    const logger = silentLogger();
    const cache = await createValidateCodeCacheStore({ type, namespace, redis: type === 'distributed' ? REDIS : undefined, logger, registry: metrics.registry });
    await cache.clear();
    try {
      const { index } = await loadDefinitions({ packages: [sharedDir('fhir-packages')] });
      const source = conformanceSource(index, []);
      const validator = new Validator(source, createTerminology({ source, settings: settings(), cacheStore: cache, logger, registry: metrics.registry }).terminology);
      return await twice(metrics, () => validator.validateAsync(coded));
    } finally {
      await cache.clear();
      await cache.close();
    }
  }

  /** In the engine host's worker threads, which report their counts to the registry with their results. */
  async function runInWorkers(workers: number, type: CacheType, namespace: string): Promise<Runs> {
    const metrics = createMetrics('validation-test', { defaultMetrics: false });
    const redis = type === 'distributed' ? REDIS : undefined;
    const host = new EngineHost({
      artifacts: folderArtifacts(sharedDir('fhir-packages')), workers, logger: silentLogger(), metrics, registry: metrics.registry,
      terminology: settings(), workerCache: { type, namespace, redis },
    });
    const cache = await createValidateCodeCacheStore({ type, namespace, redis, logger: silentLogger() });
    await cache.clear();
    try {
      await host.start();
      return await twice(metrics, () => host.validate(coded));
    } finally {
      await host.close();
      await cache.clear();
      await cache.close();
    }
  }

  for (const type of ['memory', 'distributed'] as const) {
    it(`${type} cache: 1 and 2 workers count the same misses, then hits, as validating in-process`, async () => {
      const namespace = `validation:test-${randomUUID().slice(0, 8)}:validate-code`;
      const inProcess = await runInProcess(type, namespace);
      // Sequential validations go to the same (first idle) worker under piscina's least-busy
      // balancer, so the second one finds the answers in that worker's near cache, as in-process.
      const oneWorker = await runInWorkers(1, type, namespace);
      const pooled = await runInWorkers(2, type, namespace);

      // What in-process validation counts: the LOINC tuple missed and asked of the server, then found.
      const miss = inProcess.first[`cache_requests_total{cache=${namespace},result=miss}`];
      expect(miss, JSON.stringify(inProcess)).to.be.greaterThan(0);
      expect(inProcess.first[`cache_requests_total{cache=${namespace},result=hit}`]).to.equal(undefined);
      expect(inProcess.first['terminology_validate_code_cache_total{result=miss}']).to.be.greaterThan(0);
      expect(inProcess.first['terminology_validate_code_answers_total{source=remote}']).to.be.greaterThan(0);
      expect(inProcess.second['terminology_validate_code_cache_total{result=hit}']).to.equal(inProcess.first['terminology_validate_code_cache_total{result=miss}']);
      expect(inProcess.second['terminology_validate_code_cache_total{result=miss}']).to.equal(undefined);
      expect(inProcess.second['terminology_validate_code_answers_total{source=cache}']).to.be.greaterThan(0);
      expect(inProcess.calls).to.be.greaterThan(0);

      // The same series and values with the lookups made in worker threads.
      expect(oneWorker.first).to.deep.equal(inProcess.first);
      expect(oneWorker.second).to.deep.equal(inProcess.second);
      expect(oneWorker.calls).to.equal(inProcess.calls);
      expect(pooled.first).to.deep.equal(inProcess.first);
      expect(pooled.second).to.deep.equal(inProcess.second);
      expect(pooled.calls).to.equal(inProcess.calls);
    });
  }

  it('local terminology only: workers report nothing, so no cache or terminology series appears', async () => {
    const metrics = createMetrics('validation-test', { defaultMetrics: false });
    const host = new EngineHost({
      artifacts: folderArtifacts(sharedDir('fhir-packages')), workers: 2, logger: silentLogger(), metrics, registry: metrics.registry, terminology: {},
    });
    try {
      await host.start();
      await host.validate(coded);
      expect(await snapshot(metrics)).to.deep.equal({});
    } finally {
      await host.close();
    }
  });
});
