/**
 * The ReadyForValidation → ValidationComplete flow end to end: real NATS JetStream, real
 * PostgreSQL, a real HTTP report service serving MeasureReports built from the NHSN samples,
 * the real engine with the shared IG packages and the bundled default categories.
 */
import { expect } from 'chai';
import { DeadLetterQueue } from '#adapters/messaging/dead-letter.js';
import { assessValidity } from '#validation/domain/categorization/validity.js';
import { PgResultRepository } from '#validation/adapters/persistence/result-repository.js';
import type { SubmissionKey } from '#validation/domain/flow/index.js';
import { eventually, startFlowHarness, type FlowHarness } from './support/flow-harness.js';
import { measureReportOf, sampleSubmissions, type SampleSubmission } from './support/sample-submissions.js';

describe('validation flow: ReadyForValidation → ValidationComplete (NATS, PostgreSQL, report service over HTTP)', function () {
  this.timeout(120_000);
  let h: FlowHarness;
  let samples: SampleSubmission[];

  before(async () => {
    samples = sampleSubmissions();
    h = await startFlowHarness({ maxDeliver: 3, outageHorizonMs: 2_000 });
  });
  after(async () => {
    await h?.close();
  });

  const completionsOf = (key: SubmissionKey) => h.completions.filter((c) => c.facilityId === key.facilityId && c.reportTrackingId === key.reportId && c.patientId === key.patientId);
  const serve = (key: SubmissionKey, sample: SampleSubmission) => h.reportService.put(key.facilityId, key.reportId, key.patientId, measureReportOf(sample.bundle));
  const publish = (key: SubmissionKey, msgId?: string) => h.publishReady({ facilityId: key.facilityId, reportTrackingId: key.reportId, patientId: key.patientId, reportTypes: ['NHSNdQMAcuteCareHospitalInitialPopulation'] }, msgId);

  async function storedResults(key: SubmissionKey) {
    const page = await new PgResultRepository(h.db.orm).findResults(key, undefined, { offset: 0, limit: 100_000 });
    return page.records;
  }

  /** The verdict the stored results give by THE validity rule. */
  async function verdictOfStoredResults(key: SubmissionKey): Promise<boolean> {
    const categories = new Map((await h.api.categories.list()).map((c) => [c.id, c]));
    const results = await storedResults(key);
    return assessValidity(results.map((r) => ({ severity: r.severity, categories: r.categoryIds.map((id) => categories.get(id)!).filter(Boolean) }))).valid;
  }

  it('validates every sample patient: one ValidationComplete each, verdict = stored results, outcome stored with Bundle-style expressions', async () => {
    const picked = samples;
    expect(picked.length, 'the NHSN sample has nine patient Bundles').to.equal(9);
    const keys = picked.map((s) => ({ facilityId: 'fac-e2e', reportId: 'rep-e2e', patientId: s.patientId }));
    picked.forEach((s, i) => serve(keys[i]!, s));
    for (const key of keys) await publish(key);
    await eventually(() => keys.every((k) => completionsOf(k).length >= 1), 'one ValidationComplete per patient');
    await eventually(() => h.idle(), 'the consumer to be idle');

    for (const [i, key] of keys.entries()) {
      const [completion, ...more] = completionsOf(key);
      expect(more, 'no second ValidationComplete').to.have.length(0);
      const stored = await h.store.find(key);
      expect(stored, 'stored outcome').to.not.equal(undefined);
      const results = await storedResults(key);
      const issues = stored!.outcome.issue as { expression?: string[] }[];
      expect(results).to.have.length(issues.length);
      expect(issues.length, 'the samples are messy: there are issues').to.be.greaterThan(0);
      expect(completion!.isValid).to.equal(stored!.valid);
      expect(completion!.isValid).to.equal(await verdictOfStoredResults(key));
      expect((completion!.issueCounts as { total: number }).total).to.equal(results.length);
      expect(completion!.validationRunId).to.equal(stored!.runId);
      // Every issue names its entry; the MeasureReport (last entry) was validated without its contained copy.
      for (const issue of issues) expect(issue.expression?.[0]).to.match(/^Bundle\.entry\[\d+\]\.resource\.ofType\([A-Za-z]+\)/);
      const entries = picked[i]!.bundle.entry.length;
      expect(issues.some((x) => x.expression![0]!.includes('contained'))).to.equal(false);
      expect(issues.every((x) => Number(/entry\[(\d+)\]/.exec(x.expression![0]!)![1]) < entries)).to.equal(true);
    }
    expect(h.reportService.requests.at(-1)?.authorization).to.equal('Bearer service-token-flow');
  });

  it('spec lines 9, 19, flow step 6: two ReadyForValidation events for one patient with the same outcome get two ValidationComplete', async () => {
    const key = { facilityId: 'fac-dup', reportId: 'rep-dup', patientId: samples[3]!.patientId };
    serve(key, samples[3]!);
    await publish(key, 'dup-1');
    await eventually(() => completionsOf(key).length === 1, 'the first ValidationComplete');
    const firstCount = (await storedResults(key)).length;
    await publish(key, 'dup-2');
    await eventually(() => completionsOf(key).length === 2, 'the second ValidationComplete');
    await eventually(() => h.idle(), 'the consumer to be idle');
    expect(await storedResults(key)).to.have.length(firstCount);
    const [first, second] = completionsOf(key);
    expect(second!.isValid).to.equal(first!.isValid);
    expect(second!.issueCounts).to.deep.equal(first!.issueCounts);
    expect(second!.validationRunId).to.not.equal(first!.validationRunId);
    expect(completionsOf(key)).to.have.length(2);
  });

  it('an outcome that goes A → B → A within the duplicate window is announced three times (the third is a new run, not a duplicate)', async () => {
    const key = { facilityId: 'fac-aba', reportId: 'rep-aba', patientId: 'patient-aba' };
    const [a, b] = [samples[1]!, samples[2]!];
    const runs: string[] = [];
    for (const [step, sample] of [['a1', a], ['b', b], ['a2', a]] as const) {
      serve(key, sample);
      await publish(key, `aba-${step}`);
      await eventually(() => completionsOf(key).length === runs.length + 1, `the ValidationComplete of step ${step}`);
      runs.push((await h.store.find(key))!.runId);
    }
    await eventually(() => h.idle(), 'the consumer to be idle');
    const completions = completionsOf(key);
    expect(completions.map((c) => c.validationRunId)).to.deep.equal(runs);
    expect(new Set(runs).size).to.equal(3);
    expect(completions.map((c) => c.isValid)).to.deep.equal([completions[0]!.isValid, completions[1]!.isValid, completions[0]!.isValid]);
  });

  it('report service 503 as many times as the maximum deliveries, then 200: held and retried in place (no delivery spent), completed once', async () => {
    const key = { facilityId: 'fac-503', reportId: 'rep-503', patientId: samples[4]!.patientId };
    serve(key, samples[4]!);
    h.reportService.failFirst(key.facilityId, key.reportId, key.patientId, 3, 503);
    await publish(key);
    await eventually(() => completionsOf(key).length === 1, 'ValidationComplete after the retries');
    await eventually(() => h.idle(), 'the consumer to be idle');
    expect(h.reportService.requestsFor(key.facilityId, key.reportId, key.patientId)).to.equal(4);
    expect(completionsOf(key)).to.have.length(1);
    expect(await h.store.find(key)).to.not.equal(undefined);
  });

  it('report service 404: a definite outcome, valid=false with the reason stored, no retry', async () => {
    const key = { facilityId: 'fac-404', reportId: 'rep-404', patientId: 'nobody' };
    await publish(key);
    await eventually(() => completionsOf(key).length === 1, 'ValidationComplete for the missing submission');
    await eventually(() => h.idle(), 'the consumer to be idle');
    expect(completionsOf(key)[0]!.isValid).to.equal(false);
    const results = await storedResults(key);
    expect(results).to.have.length(1);
    expect(results[0]!.severity).to.equal('fatal');
    expect(results[0]!.code).to.equal('not-found');
    expect(results[0]!.message).to.match(/not found at the report service/);
    expect(h.reportService.requestsFor(key.facilityId, key.reportId, key.patientId)).to.equal(1);
  });

  it('an answer the flow cannot read is a definite invalid outcome too (no endless retry)', async () => {
    const key = { facilityId: 'fac-bad', reportId: 'rep-bad', patientId: 'garbled' };
    h.reportService.put(key.facilityId, key.reportId, key.patientId, { resourceType: 'Patient', id: 'x' });
    await publish(key);
    await eventually(() => completionsOf(key).length === 1, 'ValidationComplete for the unreadable submission');
    expect(completionsOf(key)[0]!.isValid).to.equal(false);
    expect((await storedResults(key))[0]!.message).to.match(/could not be read.*expected a MeasureReport, a Bundle or a PatientSubmissionModel/);
  });

  it('spec flow step 6: one event delivered three times (crashes after the commit) gets one ValidationComplete', async () => {
    const key = { facilityId: 'fac-crash', reportId: 'rep-crash', patientId: samples[5]!.patientId };
    serve(key, samples[5]!);
    let crashes = 0;
    const normal = h.handler;
    h.handler = async (event, ctx) => {
      const result = await normal(event, ctx);
      if (event.facilityId === key.facilityId && crashes < 2) {
        crashes++;
        throw new Error('simulated crash after the outcome, results and outbox row were committed');
      }
      return result;
    };
    try {
      await publish(key);
      await eventually(async () => h.reportService.requestsFor(key.facilityId, key.reportId, key.patientId) === 3 && (await h.idle()), 'the third delivery to complete');
    } finally {
      h.handler = normal;
    }
    expect(crashes).to.equal(2);
    await eventually(() => completionsOf(key).length === 1, 'the ValidationComplete');
    // Every announcement ever enqueued for the submission is an outbox row (published rows are kept for days).
    const enqueued = await h.db.orm.em.fork().execute<{ n: string }[]>(
      `select count(*) as n from outbox_message where msg_id like ?`, [`${key.facilityId}:${key.reportId}:${key.patientId}:%`]);
    expect(Number(enqueued[0]!.n), 'one announcement enqueued for three deliveries').to.equal(1);
    expect(completionsOf(key)).to.have.length(1);
    const stored = await h.store.find(key);
    expect((await storedResults(key)).length).to.equal((stored!.outcome.issue as unknown[]).length);
  });

  it('report service down for longer than the outage horizon: held and retried in place, then dead-lettered with the reason', async () => {
    const key = { facilityId: 'fac-down', reportId: 'rep-down', patientId: 'p-down' };
    h.reportService.failFirst(key.facilityId, key.reportId, key.patientId, 1_000, 502);
    await publish(key);
    const dlq = new DeadLetterQueue(h.nats.js, h.nats.jsm, h.catalog);
    const subject = h.catalog.byName('ReadyForValidation').subject;
    const mine = async () => (await dlq.list({ originalSubject: subject })).filter((d) => d.text.includes('p-down'));
    await eventually(async () => (await mine()).length === 1, 'the dead letter');
    const [letter] = await mine();
    expect(letter!.reason).to.match(/^a dependency was unavailable for \d+ s \(the outage horizon is 2 s\); last error: SubmissionUnavailableError: The report service answered 502/);
    expect(letter!.deliveries, 'held within one delivery').to.equal(1);
    expect(h.reportService.requestsFor(key.facilityId, key.reportId, key.patientId)).to.be.greaterThan(3);
    expect(completionsOf(key)).to.have.length(0);
  });

  it('an invalid payload is dead-lettered with the reason, and nothing is fetched', async () => {
    const subject = h.catalog.byName('ReadyForValidation').subject;
    await h.nats.js.publish(subject, JSON.stringify({ schemaVersion: '1.0.0', facilityId: 'fac-invalid', patientId: 'p-invalid' }));
    const dlq = new DeadLetterQueue(h.nats.js, h.nats.jsm, h.catalog);
    const mine = async () => (await dlq.list({ originalSubject: subject })).filter((d) => d.text.includes('p-invalid'));
    await eventually(async () => (await mine()).length === 1, 'the dead letter');
    expect((await mine())[0]!.reason).to.match(/contract violation.*reportTrackingId/);
    expect(h.reportService.requests.some((r) => r.key.startsWith('fac-invalid'))).to.equal(false);
  });
});
