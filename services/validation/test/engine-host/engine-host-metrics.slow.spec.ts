/**
 * The engine host times every validation into validation_resource_duration_seconds{resource_type},
 * in-process and through the worker pool alike, with a bounded label set; validateEach (the flow's
 * call: one submission's entries) validates each resource on its own, in order, in a few batches.
 */
import { expect } from 'chai';
import sinon from 'sinon';
import type { Histogram } from 'prom-client';
import { silentLogger } from '#adapters/observability/logger.js';
import { createMetrics, type ServiceMetrics } from '#adapters/observability/metrics.js';
import { EngineHost } from '#validation/adapters/engine/index.js';
import { folderArtifacts } from '../flow/support/flow-harness.js';
import { sharedDir } from '#test-support/shared-dir.js';

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

    it('validateEach: each resource on its own, outcomes in order, one observation per resource', async () => {
      const before = await observations(metrics);
      // 20 resources: one batch per worker (20, or two of 10); every third one breaks a different rule.
      const resources = Array.from({ length: 20 }, (_, i) => (i % 3 === 0
        ? { resourceType: 'Patient', id: `p${i}`, gender: `not-a-gender-${i}` }
        : { resourceType: 'Observation', id: `o${i}`, status: 'final', code: { text: `code ${i}` } }));
      const tasks = sinon.spy(host.generation!.pool, 'validateTimed');
      const outcomes = await host.validateEach(resources);
      tasks.restore();

      expect(outcomes).to.have.length(20);
      // One batch per worker (not one task per resource), together covering every resource once.
      expect(tasks.getCalls().map((call) => call.args[0].resources.length)).to.deep.equal(workers === 1 ? [20] : [10, 10]);
      outcomes.forEach((outcome, i) => {
        const texts = JSON.stringify(outcome.issue);
        // Each outcome speaks of its own resource only: the bad gender of that patient, nobody else's.
        if (i % 3 === 0) expect(texts).to.contain(`not-a-gender-${i}`);
        expect(new Set(texts.match(/not-a-gender-\d+/g))).to.deep.equal(new Set(i % 3 === 0 ? [`not-a-gender-${i}`] : []));
      });
      const after = await observations(metrics);
      const added = (type: string) => (after.get(type)?.count ?? 0) - (before.get(type)?.count ?? 0);
      expect(added('Patient')).to.equal(7);
      expect(added('Observation')).to.equal(13);
    });

    it('validateEach of no resources answers no outcomes', async () => {
      expect(await host.validateEach([])).to.deep.equal([]);
    });
  });
}
