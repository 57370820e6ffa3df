/**
 * The flow's decisions behind its ports, on the production path (the in-memory report service's bytes, the
 * submission task and the engine host's wrap run on this thread around a stand-in engine, the in-memory store held
 * to the flow-store contract): progress acks, the validity rule, the distinct-outcome hash, the record handed to the store.
 */
import { expect } from 'chai';
import { Categorizer } from '#validation/domain/categorization/categorizer.js';
import { parseMatcher } from '#validation/domain/categorization/matcher.js';
import { ValidationFlow, type ScopedResourceValidator } from '#validation/application/validation-flow/index.js';
import type { EntryValidator } from '#validation/adapters/worker-pool/submission-task.js';
import { inThreadSubmissionValidator } from './support/in-thread-submission-validator.js';
import { InMemoryFlowStore } from './support/in-memory-flow-store.js';
import type { SubmissionSource } from '#validation/domain/flow/index.js';
import { InMemorySubmissionSource } from './support/in-memory-submission-source.js';

const event = { schemaVersion: '1.0.0', facilityId: 'f', reportTrackingId: 'r', patientId: 'Patient/p1', reportTypes: [] };
const submission = { resourceType: 'Bundle', entry: [{ resource: { resourceType: 'Patient', id: 'p1' } }, { resource: { resourceType: 'Encounter', id: 'e1' } }] };
const errorIssue = { severity: 'error' as const, code: 'structure', details: { text: 'Encounter.status: minimum required = 1, but only found 0' }, expression: ['Encounter'] };

function categorizer(acceptable: boolean | undefined): Categorizer {
  if (acceptable === undefined) return new Categorizer([]);
  return new Categorizer([{
    category: { id: 'missing_status', title: 'Missing status', severity: 'ERROR', acceptable, guidance: 'Send the status.' },
    matcher: parseMatcher({ field: 'MESSAGE', regex: 'minimum required', inverted: false }),
  }]);
}


/** A stand-in for the engine's per-resource validation: an error on every Encounter. */
const encounterError: EntryValidator = {
  validateSettled: (resource) => ({ resourceType: 'OperationOutcome', issue: typeOf(resource) === 'Encounter' ? [errorIssue] : [] }),
};

function typeOf(resource: unknown): unknown {
  return typeof resource === 'object' && resource !== null ? Reflect.get(resource, 'resourceType') : undefined;
}

function idOf(resource: unknown): string {
  return typeof resource === 'object' && resource !== null ? String(Reflect.get(resource, 'id')) : '';
}

function flowWith(options: {
  acceptable?: boolean; engine?: EntryValidator; validator?: ScopedResourceValidator; source?: SubmissionSource; progressIntervalMs?: number;
  afterCommit?: (context: { readonly lastInFlight: boolean }) => void;
}) {
  const store = new InMemoryFlowStore();
  let runs = 0;
  const flow = new ValidationFlow({
    source: options.source ?? new InMemorySubmissionSource().serving(submission),
    // The production path (submission task + the engine host's wrap) around a stand-in engine.
    validator: options.validator ?? inThreadSubmissionValidator(options.engine ?? encounterError),
    store,
    categories: { currentCategorizer: async () => categorizer(options.acceptable) },
    completion: { subject: 'x.compliance.event.validation-complete.v1', schemaVersion: '1.0.0' },
    clock: () => new Date('2026-11-22T06:00:00.000Z'),
    newRunId: () => `run-${++runs}`,
    progressIntervalMs: options.progressIntervalMs,
    afterCommit: options.afterCommit,
  });
  return { flow, store };
}

describe('validation flow (application): decisions behind the ports', () => {
  it('an error in an acceptable category is valid; unacceptable or uncategorized errors are not (THE validity rule)', async () => {
    expect((await flowWith({ acceptable: true }).flow.handle(event)).valid).to.equal(true);
    expect((await flowWith({ acceptable: false }).flow.handle(event)).valid).to.equal(false);
    expect((await flowWith({ acceptable: undefined }).flow.handle(event)).valid, 'uncategorized error').to.equal(false);
  });

  it('the validator gets the report service\'s bytes; its text is stored as given and decoded once into the categorized issues', async () => {
    const given: Uint8Array[] = [];
    // Not the text JSON.stringify would write (spacing, member order): only "stored as given" keeps it.
    const outcomeJson = '{ "issue": [ {"details": {"text": "Encounter.status: minimum required = 1, but only found 0"}, "code": "structure", "severity": "error",'
      + ' "expression": ["Bundle.entry[1].resource.ofType(Encounter).status"], "extension": [{"url": "http://hl7.org/fhir/StructureDefinition/operationoutcome-message-id", "valueCode": "M1"}]} ],'
      + ' "resourceType": "OperationOutcome" }';
    const validator: ScopedResourceValidator = {
      validateSubmission: async (bytes) => {
        given.push(bytes);
        return { kind: 'validated', resourceCount: 2, outcomeJson };
      },
    };
    const { flow, store } = flowWith({ acceptable: false, validator });
    const result = await flow.handle(event);
    expect(given.map((bytes) => JSON.parse(Buffer.from(bytes).toString('utf8')))).to.deep.equal([submission]);
    expect(store.records[0]!.outcomeJson).to.equal(outcomeJson);
    expect(result).to.include({ valid: false, resourceCount: 2, outcomeJson });
    expect(result.issues.map(({ severity, code, message, expression, messageId }) => ({ severity, code, message, expression, messageId }))).to.deep.equal([{
      severity: 'error', code: 'structure', message: 'Encounter.status: minimum required = 1, but only found 0',
      expression: 'Bundle.entry[1].resource.ofType(Encounter).status', messageId: 'M1',
    }]);
    expect(store.records[0]!.categorization.issueCategories).to.deep.equal([['missing_status']]);
  });

  it('bytes that are no submission, or no submission at all: a definite outcome with one fatal issue saying why, never valid', async () => {
    const notJson = new InMemorySubmissionSource().serving('{"resourceType":');
    const refused = await flowWith({ acceptable: true, source: notJson }).flow.handle(event);
    expect(refused.valid).to.equal(false);
    expect(refused.issues.map((issue) => [issue.severity, issue.code])).to.deep.equal([['fatal', 'invalid']]);
    expect(refused.issues[0]!.message).to.match(/^The patient submission could not be read: the report service answer is not valid JSON: /);

    const { flow, store } = flowWith({ acceptable: true, source: new InMemorySubmissionSource() });
    const missing = await flow.handle(event);
    expect(missing.valid).to.equal(false);
    expect(missing.issues.map((issue) => [issue.severity, issue.code])).to.deep.equal([['fatal', 'not-found']]);
    expect(store.records[0]).to.include({ unobtainable: true, resourceCount: 0 });
    expect(JSON.parse(store.records[0]!.outcomeJson)).to.deep.equal({ resourceType: 'OperationOutcome', issue: [{ severity: 'fatal', code: 'not-found', details: { text: missing.issues[0]!.message } }] });
  });

  it('hands the event\'s payloadUri to the report-service port (which decides whether to read it)', async () => {
    const source = new InMemorySubmissionSource().serving(submission);
    await flowWith({ acceptable: true, source }).flow.handle({ ...event, payloadUri: 'http://report.example/payloads/p1.ndjson' });
    await flowWith({ acceptable: true, source }).flow.handle(event);
    expect(source.requests).to.deep.equal([
      { key: { facilityId: 'f', reportId: 'r', patientId: 'p1' }, options: { payloadUri: 'http://report.example/payloads/p1.ndjson' } },
      { key: { facilityId: 'f', reportId: 'r', patientId: 'p1' }, options: {} },
    ]);
  });

  it('fills ValidationComplete from the outcome: id part of the patient, counts, run id, outcome reference', async () => {
    const { flow, store } = flowWith({ acceptable: false });
    await flow.handle(event, { headers: { 'X-Correlation-Id': 'corr-1', traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01' } });
    const record = store.records[0]!;
    expect(record.key).to.deep.equal({ facilityId: 'f', reportId: 'r', patientId: 'p1' });
    expect(JSON.parse(record.outcomeJson).issue).to.deep.equal([{
      severity: 'error', code: 'structure', details: { text: 'Encounter.status: minimum required = 1, but only found 0' },
      expression: ["Bundle.entry[1].resource.ofType(Encounter).where(id = 'e1')"],
    }]);
    expect(record.categorization).to.deep.equal({
      issueCategories: [['missing_status']],
      groups: [{ categoryIds: ['missing_status'], issues: 1, blockingIssues: 1 }],
      severities: { issues: 1, information: 0, warnings: 0, errors: 1, fatal: 0 },
    });
    expect(record.unobtainable).to.equal(false);
    // The record is complete: the run id is the flow's, and the announcement names it.
    expect(record.runId).to.equal('run-1');
    const message = record.announcement;
    expect(store.announced).to.deep.equal([message]);
    expect(message.subject).to.equal('x.compliance.event.validation-complete.v1');
    // Only the correlation id is copied; the trace is the outbox's (the trace the handling runs in).
    expect(message.headers).to.deep.equal({ 'X-Correlation-Id': 'corr-1' });
    expect(message.payload).to.deep.equal({
      schemaVersion: '1.0.0', facilityId: 'f', patientId: 'p1', reportTrackingId: 'r', isValid: false, validationRunId: 'run-1',
      outcomeReference: '/api/result/f/r/p1',
      issueCounts: { total: 1, errors: 1, warnings: 0, information: 0, categorized: 1, uncategorized: 0, unacceptable: 1 },
      validatedAt: '2026-11-22T06:00:00.000Z',
    });
  });

  it('the same outcome hashes the same; a rule change that flips the verdict is a new distinct outcome', async () => {
    const a = flowWith({ acceptable: false });
    await a.flow.handle(event);
    await a.flow.handle(event);
    const b = flowWith({ acceptable: true });
    await b.flow.handle(event);
    expect(a.store.records[0]!.outcomeHash).to.equal(a.store.records[1]!.outcomeHash);
    expect(b.store.records[0]!.outcomeHash).to.not.equal(a.store.records[0]!.outcomeHash);
  });

  it('sends progress acks while the entries are being validated', async () => {
    let release: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => { release = resolve; });
    const { flow } = flowWith({ engine: { validateSettled: async () => { await gate; return { resourceType: 'OperationOutcome', issue: [] }; } }, progressIntervalMs: 5 });
    let acks = 0;
    const done = flow.handle(event, { working: () => { acks++; if (acks === 3) release(); } });
    await done;
    expect(acks).to.be.at.least(3);
    const after = acks;
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(acks, 'no progress acks after the validation ended').to.equal(after);
  });

  it('tells the store and the relay when no other submission is still before its commit (nothing more to gather)', async () => {
    const gates = new Map<string, () => void>();
    const engine: EntryValidator = {
      validateSettled: async (resource) => {
        const id = idOf(resource);
        if (id === 'fails') throw new Error('worker died');
        await new Promise<void>((resolve) => { gates.set(id, resolve); });
        return { resourceType: 'OperationOutcome', issue: [] };
      },
    };
    const source = new InMemorySubmissionSource();
    for (const id of ['a', 'b', 'c', 'fails']) source.put({ facilityId: 'f', reportId: 'r', patientId: id }, { resourceType: 'Bundle', entry: [{ resource: { resourceType: 'Patient', id } }] });
    const notified: boolean[] = [];
    const { flow, store } = flowWith({ acceptable: true, engine, source, afterCommit: ({ lastInFlight }) => notified.push(lastInFlight) });
    const started = (id: string) => flow.handle({ ...event, patientId: `Patient/${id}` });
    const waitForGate = async (id: string) => { while (!gates.has(id)) await new Promise((resolve) => setImmediate(resolve)); };
    const open = (id: string) => {
      gates.get(id)!();
      gates.delete(id);
    };
    const [a, b, c] = [started('a'), started('b'), started('c')];
    const failed = started('fails');
    await Promise.all(['a', 'b', 'c'].map(waitForGate));
    expect(await failed.catch((e: unknown) => (e as Error).message), 'a failure before its commit leaves the count').to.equal('worker died');
    open('a');
    await a;
    open('b');
    await b;
    expect(store.options.map((o) => o.lastInFlight), 'others were still being validated').to.deep.equal([false, false]);
    open('c');
    await c;
    expect(store.options.map((o) => o.lastInFlight)).to.deep.equal([false, false, true]);
    expect(notified).to.deep.equal([false, false, true]);
    // Alone again: the next one is the last in flight from the start.
    const d = started('a');
    await waitForGate('a');
    open('a');
    await d;
    expect(store.options.at(-1)!.lastInFlight).to.equal(true);
  });

  it('an engine failure is not a verdict: it propagates (the message is retried)', async () => {
    const { flow, store } = flowWith({ engine: { validateSettled: () => { throw new Error('worker died'); } } });
    const error = await flow.handle(event).catch((e: unknown) => e);
    expect(error).to.be.instanceOf(Error).and.to.have.property('message', 'worker died');
    expect(store.records).to.have.length(0);
  });
});
