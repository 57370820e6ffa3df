/**
 * A submission one of whose resources never finishes validating, end to end: real NATS JetStream,
 * real PostgreSQL, the real report service over HTTP, the production engine and worker, and a real
 * FHIR terminology server that never answers for one code (its timeout is far above the resource
 * budget). The resource that waits for it gets the fatal timeout issue, the submission is stored
 * invalid with one ValidationComplete, the message is acked once (no redelivery, no dead letter),
 * the worker is replaced, and the next message is validated normally.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import type { Counter } from 'prom-client';
import { DeadLetterQueue } from '#adapters/messaging/dead-letter.js';
import { createMetrics, type ServiceMetrics } from '#adapters/observability/metrics.js';
import { PgResultRepository } from '#validation/adapters/persistence/result-repository.js';
import { deadlineIssueOf } from '#validation/domain/engine/outcome/deadline.js';
import type { ValidationOutcome } from '#validation/domain/engine/outcome/issue.js';
import type { SubmissionKey } from '#validation/domain/flow/index.js';
import { eventually, startFlowHarness, type FlowHarness } from './support/flow-harness.js';
import { measureReportOf, sampleSubmissions, type SampleSubmission } from './support/sample-submissions.js';

/** The LOINC code the terminology server never answers for (a ServiceRequest of one NHSN sample patient binds it). */
const HANGING_CODE = '24325-3';
const RESOURCE_TIMEOUT_MS = 1_500;

/** A $validate-code server: answers `result: true` at once, except for HANGING_CODE, where it never answers. */
async function startTerminologyServer(): Promise<{ url: string; hung: () => number; close: () => Promise<void> }> {
  let hung = 0;
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      if (Buffer.concat(chunks).toString('utf8').includes(HANGING_CODE)) {
        hung += 1;
        return; // never answers: the caller's timeout (60 s) is far above the resource budget
      }
      res.writeHead(200, { 'content-type': 'application/fhir+json' })
        .end(JSON.stringify({ resourceType: 'Parameters', parameter: [{ name: 'result', valueBoolean: true }] }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    hung: () => hung,
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

async function counted(metrics: ServiceMetrics, name: string, labels: Record<string, string>): Promise<number> {
  const values = (await (metrics.registry.getSingleMetric(name) as Counter<string>).get()).values;
  return values.find((v) => Object.entries(labels).every(([k, l]) => v.labels[k] === l))?.value ?? 0;
}

describe('validation flow: a resource whose validation never finishes (NATS, PostgreSQL, report service and terminology server over HTTP)', function () {
  this.timeout(180_000);
  let h: FlowHarness;
  let terminology: Awaited<ReturnType<typeof startTerminologyServer>>;
  let metrics: ServiceMetrics;
  let hanging: SampleSubmission;
  let normal: SampleSubmission;

  before(async () => {
    const samples = sampleSubmissions();
    hanging = samples.find((s) => JSON.stringify(s.bundle).includes(HANGING_CODE))!;
    normal = samples.find((s) => !JSON.stringify(s.bundle).includes(HANGING_CODE))!;
    terminology = await startTerminologyServer();
    metrics = createMetrics('validation-deadline-test', { defaultMetrics: false });
    h = await startFlowHarness({
      maxDeliver: 3,
      engine: {
        workers: 1, metrics, resourceTimeoutMs: RESOURCE_TIMEOUT_MS, submissionTimeoutMs: 120_000,
        terminology: { fhirTerminologyServiceUrl: terminology.url, timeoutMs: 60_000, retries: 0 },
      },
    });
  });
  after(async () => {
    await h?.close();
    await terminology?.close();
  });

  const completionsOf = (key: SubmissionKey) => h.completions.filter((c) => c.facilityId === key.facilityId && c.reportTrackingId === key.reportId && c.patientId === key.patientId);
  const submit = async (key: SubmissionKey, sample: SampleSubmission) => {
    h.reportService.put(key.facilityId, key.reportId, key.patientId, measureReportOf(sample.bundle));
    await h.publishReady({ facilityId: key.facilityId, reportTrackingId: key.reportId, patientId: key.patientId, reportTypes: ['NHSNdQMAcuteCareHospitalInitialPopulation'] });
  };

  it('the hanging resource gets the timeout issue; stored invalid, one ValidationComplete, acked once; the worker is replaced and the next message validated normally', async () => {
    const stuck = { facilityId: 'fac-deadline', reportId: 'rep-deadline', patientId: hanging.patientId };
    await submit(stuck, hanging);
    await eventually(() => completionsOf(stuck).length === 1, 'the ValidationComplete of the submission with the hanging resource', 120_000);
    await eventually(() => h.idle(), 'the consumer to be idle');

    const stored = await h.store.find(stuck);
    const issues = stored!.outcome.issue as ValidationOutcome['issue'];
    const timeouts = issues.filter((issue) => deadlineIssueOf({ issue: [issue] }));
    // Exactly the entries that wait for the code the server never answers (validated alone, in MeasureReport order).
    const entries = hanging.bundle.entry.filter((e) => e.resource.resourceType !== 'MeasureReport').map((e) => e.resource)
      .concat(hanging.bundle.entry.filter((e) => e.resource.resourceType === 'MeasureReport').map((e) => e.resource));
    const waiting = entries.map((resource, index) => (JSON.stringify(resource).includes(HANGING_CODE) ? index : -1)).filter((i) => i >= 0);
    expect(waiting.length).to.be.greaterThan(0);
    expect(timeouts.map((issue) => Number(/^Bundle\.entry\[(\d+)\]/.exec(issue.expression![0]!)![1]))).to.deep.equal(waiting);
    for (const issue of timeouts) {
      expect(issue).to.include({ severity: 'fatal', code: 'timeout' });
      expect(issue.details.text).to.equal(`Validation of this resource did not finish within ${RESOURCE_TIMEOUT_MS} ms`);
    }
    // The other resources were validated (the samples always have findings of their own).
    expect(issues.length).to.be.greaterThan(timeouts.length);
    expect(terminology.hung()).to.be.greaterThanOrEqual(waiting.length);

    const [completion] = completionsOf(stuck);
    expect(completion!.isValid).to.equal(false);
    expect(stored!.valid).to.equal(false);
    const results = await new PgResultRepository(h.db.orm).findResults(stuck, undefined, { offset: 0, limit: 100_000 });
    expect(results.records.filter((r) => /did not finish within/.test(r.message ?? '')).map((r) => r.severity)).to.deep.equal(timeouts.map(() => 'fatal'));
    // One delivery: fetched once from the report service, nothing redelivered or dead-lettered.
    expect(h.reportService.requestsFor(stuck.facilityId, stuck.reportId, stuck.patientId)).to.equal(1);
    const dlq = new DeadLetterQueue(h.nats.js, h.nats.jsm, h.catalog);
    expect(await dlq.list({ originalSubject: h.catalog.byName('ReadyForValidation').subject })).to.have.length(0);

    // The worker was terminated and replaced once per hanging resource; the pool is whole again.
    expect(await counted(metrics, 'validation_timeouts_total', { deadline: 'resource' })).to.equal(waiting.length);
    expect(await counted(metrics, 'validation_worker_replacements_total', { reason: 'timeout' })).to.equal(waiting.length);
    expect(h.engine.generation!.pool.threads).to.equal(1);

    // The next message: validated normally, in the replacement worker.
    const next = { facilityId: 'fac-deadline', reportId: 'rep-deadline', patientId: normal.patientId };
    await submit(next, normal);
    await eventually(() => completionsOf(next).length === 1, 'the ValidationComplete of the next submission', 60_000);
    await eventually(() => h.idle(), 'the consumer to be idle');
    const after = await h.store.find(next);
    expect((after!.outcome.issue as ValidationOutcome['issue']).filter((issue) => deadlineIssueOf({ issue: [issue] }))).to.deep.equal([]);
    expect((after!.outcome.issue as unknown[]).length).to.be.greaterThan(0);
    expect(completionsOf(next)[0]!.isValid).to.equal(after!.valid);
    expect(await counted(metrics, 'validation_timeouts_total', { deadline: 'resource' })).to.equal(waiting.length);
    expect(h.reportService.requestsFor(next.facilityId, next.reportId, next.patientId)).to.equal(1);
    expect(completionsOf(stuck)).to.have.length(1);
  });
});
