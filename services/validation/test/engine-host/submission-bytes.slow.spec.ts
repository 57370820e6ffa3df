/**
 * The flow's call: a submission handed to the engine host as the bytes the report service answered.
 * They go to ONE worker as a shared buffer (no parsed resource crosses the thread boundary), and
 * the outcome that comes back is the one the flow stored when it read the submission itself and
 * sent the entries as resources: same text, same entry count, one duration per entry.
 */
import { expect } from 'chai';
import sinon from 'sinon';
import type { Histogram } from 'prom-client';
import { silentLogger } from '#adapters/observability/logger.js';
import { createMetrics, type ServiceMetrics } from '#adapters/observability/metrics.js';
import { sharedDir } from '#test-support/shared-dir.js';
import { EngineHost } from '#validation/adapters/engine/index.js';
import { submissionBundle, SubmissionFormatError } from '#validation/domain/flow/index.js';
import { referenceAggregate } from '../flow/support/aggregate-oracle.js';
import { folderArtifacts } from '../flow/support/flow-harness.js';
import { measureReportOf, sampleSubmissions } from '../flow/support/sample-submissions.js';

const NAME = 'validation_resource_duration_seconds';

async function countsByType(metrics: ServiceMetrics): Promise<Map<string, number>> {
  const values = (await (metrics.registry.getSingleMetric(NAME) as Histogram<string>).get()).values;
  return new Map(values.filter((v) => v.metricName === `${NAME}_count`).map((v) => [String(v.labels.resource_type), v.value]));
}

describe('engine host: a submission validated from its bytes', function () {
  this.timeout(180_000);
  let host: EngineHost;
  let metrics: ServiceMetrics;

  before(async () => {
    metrics = createMetrics('validation-test', { defaultMetrics: false });
    host = new EngineHost({ artifacts: folderArtifacts(sharedDir('fhir-packages')), workers: 2, terminology: {}, logger: silentLogger(), metrics });
    await host.start();
  });
  after(async () => { await host?.close(); });

  it('the stored text of the NHSN samples is the one the entries give as resources; one worker task per submission, bytes shared', async () => {
    const runs = sinon.spy((host.generation!.pool as unknown as { pool: { run: (task: unknown) => Promise<unknown> } }).pool, 'run');
    try {
      for (const sample of sampleSubmissions().slice(0, 3)) {
        const report = measureReportOf(sample.bundle);
        const bytes = Buffer.from(JSON.stringify(report));
        const tasksBefore = runs.callCount;
        const validated = await host.validateSubmission(bytes);
        expect(runs.callCount - tasksBefore, sample.file).to.equal(1);
        const task = runs.lastCall.args[0] as Record<string, unknown>;
        expect(task.bytes, 'the bytes, shared').to.be.instanceOf(SharedArrayBuffer);
        expect(task, 'no parsed resource').to.not.have.property('resources');

        const resources = submissionBundle(report).entry.map((e) => e.resource);
        const expected = referenceAggregate((await host.validateEach(resources)).map((outcome, index) => ({ index, resource: resources[index]!, outcome })));
        expect(validated, sample.file).to.deep.equal({ kind: 'validated', resourceCount: resources.length, outcomeJson: JSON.stringify(expected) });
      }
    } finally {
      runs.restore();
    }
  });

  it('one duration per entry, under its resource type', async () => {
    const resources = [{ resourceType: 'Patient', id: 'p' }, { resourceType: 'Observation', id: 'o' }, { resourceType: 'Observation', id: 'o2' }, { resourceType: 'NotAType' }];
    const before = await countsByType(metrics);
    await host.validateSubmission(Buffer.from(JSON.stringify({ resourceType: 'Bundle', entry: resources.map((resource) => ({ resource })) })));
    const after = await countsByType(metrics);
    const added = (type: string) => (after.get(type) ?? 0) - (before.get(type) ?? 0);
    expect([added('Patient'), added('Observation'), added('unknown')]).to.deep.equal([1, 2, 1]);
  });

  it('bytes that are no submission: unreadable, with the reason the flow gave before', async () => {
    for (const text of ['not json', '{"resourceType":"Patient"}', '']) {
      let reason = '';
      try {
        submissionBundle(text === '' ? undefined : text);
      } catch (error) {
        expect(error).to.be.instanceOf(SubmissionFormatError);
        reason = (error as Error).message;
      }
      expect(await host.validateSubmission(Buffer.from(text))).to.deep.equal({ kind: 'unreadable', message: reason });
    }
  });
});
