/**
 * The engine host times every validation into validation_resource_duration_seconds{resource_type},
 * in-process and through the worker pool alike, with a bounded label set.
 */
import { expect } from 'chai';
import type { Histogram } from 'prom-client';
import { silentLogger } from '../../../../adapters/observability/logger.js';
import { createMetrics, type ServiceMetrics } from '../../../../adapters/observability/metrics.js';
import { EngineHost } from '../../src/adapters/engine/index.js';
import { folderArtifacts } from '../flow/support/flow-harness.js';
import { sharedDir } from '../../../../test/support/shared-dir.js';

const NAME = 'validation_resource_duration_seconds';

async function observations(metrics: ServiceMetrics): Promise<Map<string, { count: number; sum: number }>> {
  const values = (await (metrics.registry.getSingleMetric(NAME) as Histogram<string>).get()).values;
  const out = new Map<string, { count: number; sum: number }>();
  for (const v of values) {
    const type = String(v.labels.resource_type);
    const entry = out.get(type) ?? { count: 0, sum: 0 };
    if (v.metricName === `${NAME}_count`) entry.count = v.value;
    if (v.metricName === `${NAME}_sum`) entry.sum = v.value;
    out.set(type, entry);
  }
  return out;
}

const patient = { resourceType: 'Patient', id: 'p1', gender: 'female' };
const observation = { resourceType: 'Observation', id: 'o1', status: 'final', code: { text: 'x' } };

for (const workers of [1, 2]) {
  describe(`engine host: validation duration metric (workers: ${workers})`, function () {
    this.timeout(120_000);
    let host: EngineHost;
    let metrics: ServiceMetrics;

    before(async () => {
      metrics = createMetrics('validation-test', { defaultMetrics: false });
      host = new EngineHost({ artifacts: folderArtifacts(sharedDir('fhir-packages')), workers, terminology: {}, logger: silentLogger(), metrics });
      await host.start();
    });
    after(async () => { await host?.close(); });

    it('observes each validation under its resource type; unknown or missing types share one label', async () => {
      await host.validate(patient);
      await host.validate(patient);
      await host.validate(observation);
      await host.validate({ resourceType: 'NoSuchResourceType', id: 'x' });
      await host.validate({ resourceType: 'AlsoNotAType' });
      await host.validate({ id: 'no type at all' });

      const seen = await observations(metrics);
      expect([...seen.keys()].sort()).to.deep.equal(['Observation', 'Patient', 'unknown']);
      expect(seen.get('Patient')!.count).to.equal(2);
      expect(seen.get('Observation')!.count).to.equal(1);
      expect(seen.get('unknown')!.count).to.equal(3);
      expect(seen.get('Patient')!.sum).to.be.greaterThan(0);
      const buckets = (await (metrics.registry.getSingleMetric(NAME) as Histogram<string>).get()).values
        .filter((v) => v.metricName === `${NAME}_bucket` && v.labels.resource_type === 'Patient').map((v) => v.labels.le);
      expect(buckets).to.include.members([0.001, 5, '+Inf']);
    });
  });
}
