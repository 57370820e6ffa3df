/**
 * Deadlines of the engine host: every validation runs in a worker thread that the main thread's
 * watchdog terminates when its resource passes validation.resource-timeout-ms (or its submission
 * uses up validation.submission-timeout-ms of worker time). The worker is the production one; its
 * validator hangs in synchronous code on resources that ask for it (support/hanging-worker.ts).
 */
import { expect } from 'chai';
import type { Counter } from 'prom-client';
import { silentLogger } from '#adapters/observability/logger.js';
import { createMetrics, type ServiceMetrics } from '#adapters/observability/metrics.js';
import { sharedDir } from '#test-support/shared-dir.js';
import { EngineHost } from '#validation/adapters/engine/index.js';
import { deadlineIssueOf } from '#validation/domain/engine/outcome/deadline.js';
import type { FhirResourceJson } from '#validation/domain/flow/index.js';
import { referenceAggregate } from '../flow/support/aggregate-oracle.js';
import { ValidatorBusyError, type ValidationOutcome } from '#validation/domain/ports/resource-validator.js';
import { eventually, folderArtifacts } from '../flow/support/flow-harness.js';
import { busyResource, hangingResource, HANGING_WORKER, memoryHogResource, waitingResource } from './support/hanging-engine.js';

const MESSAGE_ID = 'http://hl7.org/fhir/StructureDefinition/operationoutcome-message-id';
const patient = (id: string, gender = 'female') => ({ resourceType: 'Patient', id, gender });

async function counted(metrics: ServiceMetrics, name: string, labels: Record<string, string>): Promise<number> {
  const metric = metrics.registry.getSingleMetric(name) as Counter<string> | undefined;
  const values = metric ? (await metric.get()).values : [];
  return values.find((v) => Object.entries(labels).every(([k, l]) => v.labels[k] === l))?.value ?? 0;
}

async function validatedBytes(host: EngineHost, resources: Record<string, unknown>[]): Promise<{ outcomeJson: string; resourceCount: number }> {
  const validated = await host.validateSubmission(Buffer.from(JSON.stringify({ resourceType: 'Bundle', type: 'collection', entry: resources.map((resource) => ({ resource })) })));
  if (validated.kind !== 'validated') throw new Error(`not validated: ${validated.message}`);
  return validated;
}

/** The stored text the flow gave before: the entries validated as resources, aggregated, serialized. */
async function aggregatedText(host: EngineHost, resources: Record<string, unknown>[]): Promise<string> {
  const outcomes = await host.validateEach(resources);
  return JSON.stringify(referenceAggregate(outcomes.map((outcome, index) => ({ index, resource: resources[index] as FhirResourceJson, outcome }))));
}

/** Which deadline stopped Bundle entry `entry` of an aggregated outcome, or 'validated'. */
function deadlineKindOfEntry(outcomeJson: string, entry: number): string {
  const issues = (JSON.parse(outcomeJson) as ValidationOutcome).issue.filter((issue) => String(issue.expression?.[0]).startsWith(`Bundle.entry[${entry}]`));
  return deadlineIssueOf({ issue: issues })?.kind ?? 'validated';
}

const texts = (outcome: ValidationOutcome) => outcome.issue.map((i) => i.details.text);

describe('engine host: deadlines (a validation that never finishes)', function () {
  this.timeout(120_000);
  const hosts: EngineHost[] = [];
  async function startHost(options: { workers?: number; resourceTimeoutMs?: number; submissionTimeoutMs?: number; queueLimit?: number; workerHeapMb?: number; maxMbInFlight?: number } = {}) {
    const metrics = createMetrics('validation-test', { defaultMetrics: false });
    const host = new EngineHost({
      artifacts: folderArtifacts(sharedDir('fhir-packages')), workers: options.workers ?? 1, terminology: {}, logger: silentLogger(), metrics,
      resourceTimeoutMs: options.resourceTimeoutMs, submissionTimeoutMs: options.submissionTimeoutMs, queueLimit: options.queueLimit, workerFile: HANGING_WORKER,
      workerHeapMb: options.workerHeapMb, maxMbInFlight: options.maxMbInFlight,
    });
    hosts.push(host);
    await host.start();
    return { host, metrics };
  }
  after(async () => {
    await Promise.all(hosts.map((host) => host.close()));
  });

  it('terminates and replaces the worker; only the hanging resource gets the fatal timeout issue, the rest of its batch is validated', async () => {
    const { host, metrics } = await startHost({ resourceTimeoutMs: 1_000 });
    const resources = [patient('p0'), patient('p1', 'not-a-gender'), hangingResource(), patient('p3'), patient('p4', 'neither')];
    const expected = await host.validateEach(resources.filter((r) => r.id !== 'hang'));

    const started = performance.now();
    const outcomes = await host.validateEach(resources);
    const ms = performance.now() - started;

    expect(outcomes).to.have.length(5);
    expect(outcomes[2]).to.deep.equal({
      resourceType: 'OperationOutcome',
      issue: [{
        severity: 'fatal', code: 'timeout',
        details: { text: 'Validation of this resource did not finish within 1000 ms' },
        diagnostics: 'Validation of this resource did not finish within 1000 ms',
        extension: [{ url: MESSAGE_ID, valueCode: 'VALIDATION_TIMEOUT' }],
        expression: ['Basic'],
      }],
    });
    // The others, validated again in the replacement worker, exactly as without the hanging one.
    expect([outcomes[0], outcomes[1], outcomes[3], outcomes[4]]).to.deep.equal(expected);
    expect(texts(outcomes[1]!).join('\n')).to.contain('not-a-gender');
    expect(ms, 'the budget passed before the worker was stopped').to.be.greaterThan(1_000);
    expect(await counted(metrics, 'validation_timeouts_total', { deadline: 'resource' })).to.equal(1);
    expect(await counted(metrics, 'validation_worker_replacements_total', { reason: 'timeout' })).to.equal(1);

    // The pool is whole again and validates as before.
    expect(host.generation!.pool.threads).to.equal(1);
    expect(await host.validate(patient('p5', 'bad'))).to.deep.equal((await host.validateEach([patient('p5', 'bad')]))[0]);
    expect(host.stalledForMs()).to.equal(0);
  });

  it('blames each hanging resource of a submission on its own (two in one batch, one in another)', async () => {
    const { host, metrics } = await startHost({ workers: 2, resourceTimeoutMs: 800 });
    const resources = Array.from({ length: 20 }, (_, i) => ([3, 7, 15].includes(i) ? hangingResource() : patient(`p${i}`)));
    const outcomes = await host.validateEach(resources);
    const blamed = outcomes.map((o, i) => (deadlineIssueOf(o) ? i : -1)).filter((i) => i >= 0);
    expect(blamed).to.deep.equal([3, 7, 15]);
    for (const i of blamed) expect(outcomes[i]!.issue).to.have.length(1);
    expect(await counted(metrics, 'validation_timeouts_total', { deadline: 'resource' })).to.equal(3);
    expect(await counted(metrics, 'validation_worker_replacements_total', { reason: 'timeout' })).to.equal(3);
    expect(host.generation!.pool.threads).to.equal(2);
  });

  it('a submission that uses up its worker-time budget: the resources not validated by then get the submission issue', async () => {
    const { host, metrics } = await startHost({ resourceTimeoutMs: 5_000, submissionTimeoutMs: 1_000 });
    const resources = Array.from({ length: 6 }, () => busyResource(400));
    const outcomes = await host.validateEach(resources);
    const kinds = outcomes.map((o) => deadlineIssueOf(o)?.kind ?? 'validated');
    // 400 ms of work each in one worker: the budget runs out during the third, which finishes; the
    // worker starts no fourth. What was validated is kept.
    expect(kinds).to.deep.equal(['validated', 'validated', 'validated', 'submission', 'submission', 'submission']);
    expect(texts(outcomes[5]!)).to.deep.equal(['Validation of the submission did not finish within 1000 ms, so this resource was not validated']);
    expect(await counted(metrics, 'validation_worker_replacements_total', { reason: 'timeout' }), 'no worker is terminated for it').to.equal(0);
    expect(await counted(metrics, 'validation_timeouts_total', { deadline: 'submission' })).to.equal(1);
    expect(await counted(metrics, 'validation_timeouts_total', { deadline: 'resource' })).to.equal(0);
    // Another submission has a budget of its own.
    expect((await host.validateEach([busyResource(400), busyResource(400)])).map((o) => deadlineIssueOf(o))).to.deep.equal([undefined, undefined]);
  });

  it('time a resource waits (for a terminology server, say) does not count against its submission; a hanging resource counts in full', async () => {
    const { host } = await startHost({ resourceTimeoutMs: 1_000, submissionTimeoutMs: 1_500 });
    // Four resources waiting 600 ms each in one worker: 2.4 s of wall time, little work.
    const waiting = await host.validateEach([waitingResource(600), waitingResource(600), waitingResource(600), waitingResource(600)]);
    expect(waiting.map((o) => deadlineIssueOf(o)?.kind ?? 'validated')).to.deep.equal(['validated', 'validated', 'validated', 'validated']);
    // Two hanging resources (1 s each, charged in full) use up 1.5 s: the resource after them is not
    // validated; the one before them, validated before the first termination, keeps its outcome.
    const outcomes = await host.validateEach([patient('a'), hangingResource(), hangingResource(), patient('b')]);
    expect(outcomes.map((o) => deadlineIssueOf(o)?.kind ?? 'validated')).to.deep.equal(['validated', 'resource', 'resource', 'submission']);
  });

  it('a submission given as bytes: the same per-resource deadlines, the same outcome as its entries validated one by one', async () => {
    const { host, metrics } = await startHost({ resourceTimeoutMs: 800 });
    const resources = [patient('a', 'not-a-gender'), hangingResource(), patient('b'), hangingResource(), patient('c', 'neither')];
    const { outcomeJson, resourceCount } = await validatedBytes(host, resources);
    expect(resourceCount).to.equal(resources.length);
    expect(resources.map((_, i) => deadlineKindOfEntry(outcomeJson, i))).to.deep.equal(['validated', 'resource', 'validated', 'resource', 'validated']);
    expect(await counted(metrics, 'validation_timeouts_total', { deadline: 'resource' })).to.equal(2);
    expect(await counted(metrics, 'validation_worker_replacements_total', { reason: 'timeout' })).to.equal(2);
    expect(outcomeJson).to.equal(await aggregatedText(host, resources));
  });

  it('a submission given as bytes: its worker-time budget stops the entries not started, as for its entries validated one by one', async () => {
    const { host, metrics } = await startHost({ resourceTimeoutMs: 5_000, submissionTimeoutMs: 1_000 });
    const resources = Array.from({ length: 6 }, () => busyResource(400));
    const { outcomeJson } = await validatedBytes(host, resources);
    expect(resources.map((_, i) => deadlineKindOfEntry(outcomeJson, i))).to.deep.equal(['validated', 'validated', 'validated', 'submission', 'submission', 'submission']);
    expect(await counted(metrics, 'validation_timeouts_total', { deadline: 'submission' })).to.equal(1);
    expect(await counted(metrics, 'validation_worker_replacements_total', { reason: 'timeout' }), 'no worker is terminated for it').to.equal(0);
    expect(outcomeJson).to.equal(await aggregatedText(host, resources));
  });

  it('a resource whose validation passes the worker\'s heap limit: the worker is replaced, the resource gets one fatal issue, the rest is validated', async () => {
    const { host, metrics } = await startHost({ resourceTimeoutMs: 60_000, workerHeapMb: 160 });
    const resources = [patient('p0'), memoryHogResource(), patient('p2', 'not-a-gender')];
    const expected = await host.validateEach(resources.filter((r) => r.id !== 'hog'));
    const outcomes = await host.validateEach(resources);
    expect(outcomes[1]).to.deep.equal({
      resourceType: 'OperationOutcome',
      issue: [{
        severity: 'fatal', code: 'too-costly',
        details: { text: 'Validation of this resource needed more than 160 MB of memory and was stopped' },
        diagnostics: 'Validation of this resource needed more than 160 MB of memory and was stopped',
        extension: [{ url: MESSAGE_ID, valueCode: 'VALIDATION_OUT_OF_MEMORY' }],
        expression: ['Basic'],
      }],
    });
    expect([outcomes[0], outcomes[2]]).to.deep.equal(expected);
    expect(await counted(metrics, 'validation_worker_replacements_total', { reason: 'memory' })).to.equal(1);
    // As bytes (the flow's path): the same blame; then the API's path, and the pool keeps serving.
    const { outcomeJson } = await validatedBytes(host, resources);
    expect([0, 1, 2].map((entry) => deadlineKindOfEntry(outcomeJson, entry))).to.deep.equal(['validated', 'memory', 'validated']);
    expect(deadlineIssueOf(await host.validate(memoryHogResource()))?.kind).to.equal('memory');
    expect(await host.validate(patient('p5', 'bad'))).to.deep.equal((await host.validateEach([patient('p5', 'bad')]))[0]);
    expect(host.generation!.pool.threads).to.equal(1);
  });

  it('validate() (the API) of a hanging resource answers the timeout outcome; a full queue refuses with ValidatorBusyError', async () => {
    const { host } = await startHost({ resourceTimeoutMs: 1_500, queueLimit: 1 });
    const hanging = host.validate(hangingResource());
    // running, not just handed to piscina: until the worker begins it, it still counts as waiting in its lane
    await eventually(() => host.generation!.pool.queueSize === 0 && host.stalledForMs() > 0 && !host.generation!.pool.saturated, 'the hanging resource to run');
    const queued = host.validate(patient('q1'));
    await eventually(() => host.generation!.pool.queueSize === 1, 'one task to wait');
    let refused: unknown;
    await host.validate(patient('q2')).catch((error: unknown) => { refused = error; });
    expect(refused).to.be.instanceOf(ValidatorBusyError);
    expect((refused as ValidatorBusyError).retryAfterSeconds).to.be.greaterThan(0);
    // The consumer's wait for room ends when the hanging resource is stopped and the queued one starts.
    await host.whenRoom();
    expect(deadlineIssueOf(await hanging)).to.deep.equal({ kind: 'resource', text: 'Validation of this resource did not finish within 1500 ms' });
    expect(deadlineIssueOf(await queued)).to.equal(undefined);
  });

  it('the API and the flow have a lane each: a full flow lane refuses no API call, a full API lane holds no flow', async () => {
    const { host } = await startHost({ resourceTimeoutMs: 2_000, queueLimit: 1 });
    const running = host.validateEach([hangingResource()]);
    await eventually(() => host.generation!.pool.queueSize === 0 && host.stalledForMs() > 0, 'the hanging resource to run');
    const flowQueued = host.validateEach([patient('f1')]);
    await eventually(() => host.generation!.pool.queueSize === 1, 'one flow task to wait');
    let roomed = false;
    const room = host.whenRoom().then(() => { roomed = true; });
    // the flow's lane is full; the API's is not: one API call is admitted, the next refused
    const apiQueued = host.validate(patient('a1'));
    await eventually(() => host.generation!.pool.queueSize === 2, 'the API task to wait');
    let refused: unknown;
    await host.validate(patient('a2')).catch((error: unknown) => { refused = error; });
    expect(refused).to.be.instanceOf(ValidatorBusyError);
    expect(roomed, 'the flow waits for its own lane').to.equal(false);
    await room;
    expect(deadlineIssueOf((await running)[0]!)?.kind).to.equal('resource');
    expect(deadlineIssueOf((await flowQueued)[0]!)).to.equal(undefined);
    expect(deadlineIssueOf(await apiQueued)).to.equal(undefined);
  });

  it('admission by bytes in flight: a large submission running refuses API calls and holds the flow until it is done', async () => {
    const { host } = await startHost({ resourceTimeoutMs: 2_000, queueLimit: 64, maxMbInFlight: 1 });
    const large = Buffer.from(JSON.stringify({ resourceType: 'Bundle', type: 'collection', entry: [{ resource: { ...hangingResource(), text: { status: 'generated', div: `<div xmlns="http://www.w3.org/1999/xhtml">${'x'.repeat(1_200_000)}</div>` } } }] }));
    const running = host.validateSubmission(large);
    await eventually(() => host.stalledForMs() > 0, 'the large submission to run');
    let refused: unknown;
    await host.validate(patient('a1')).catch((error: unknown) => { refused = error; });
    expect(refused, 'the bytes in flight are at the limit').to.be.instanceOf(ValidatorBusyError);
    let roomed = false;
    const room = host.whenRoom().then(() => { roomed = true; });
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(roomed).to.equal(false);
    const validated = await running;
    expect(validated.kind).to.equal('validated');
    await room;
    expect(deadlineIssueOf(await host.validate(patient('a2')))).to.equal(undefined);
  });

  it('reports how long work has waited without progress (what the health checks read)', async () => {
    const { host } = await startHost({ resourceTimeoutMs: 60_000 });
    expect(host.stalledForMs()).to.equal(0);
    const hanging = host.validate(hangingResource()).then(() => 'answered', (error: unknown) => error);
    await eventually(() => host.stalledForMs() >= 1_000, 'a second without progress');
    // close() rejects what is still running: nothing is left behind.
    await host.close();
    expect(await hanging).to.be.instanceOf(Error);
  });
});
