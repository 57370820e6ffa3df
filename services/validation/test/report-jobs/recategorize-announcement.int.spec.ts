/**
 * Re-categorization that changes a stored verdict announces it: a ValidationComplete through the
 * outbox, committed with the re-categorized row, published to the real NATS by the relay; and only
 * then. Real PostgreSQL and NATS, the real engine and flow (flow-harness.ts).
 */
import { expect } from 'chai';
import { PgReportSubmissions } from '#validation/adapters/report-jobs/index.js';
import type { SubmissionKey } from '#validation/domain/flow/index.js';
import { eventually, startFlowHarness, type FlowHarness } from '../flow/support/flow-harness.js';
import { measureReportOf, sampleSubmissions } from '../flow/support/sample-submissions.js';

describe('report jobs: a re-categorization that changes a verdict announces it (PostgreSQL, NATS)', function () {
  this.timeout(120_000);
  let h: FlowHarness;
  let submissions: PgReportSubmissions;
  const key: SubmissionKey = { facilityId: 'fac-recat', reportId: 'rep-recat', patientId: 'patient-recat' };

  const completions = () => h.completions.filter((c) => c.facilityId === key.facilityId && c.reportTrackingId === key.reportId && c.patientId === key.patientId);
  const outboxRows = async () => Number((await h.db.orm.em.fork().execute<{ n: string }[]>('select count(*) as n from outbox_message'))[0]!.n);
  const recategorize = async () => submissions.recategorizePatient(key, await h.api.categories.currentCategorizer());
  const validate = async (msgId: string) => {
    await h.publishReady({ facilityId: key.facilityId, reportTrackingId: key.reportId, patientId: key.patientId, reportTypes: [] }, msgId);
  };
  /** Every category acceptable, and one more that takes every issue: any submission is then valid. */
  async function acceptEverything(): Promise<void> {
    for (const category of await h.api.categories.list()) await h.api.categories.save(category.id, { ...category, acceptable: true });
    await h.api.categories.save('everything', { id: 'everything', title: 'Everything', severity: 'ERROR', acceptable: true, guidance: 'Test.' });
    await h.api.categories.addRule('everything', { field: 'MESSAGE', regex: '.' });
  }

  before(async () => {
    h = await startFlowHarness();
    const completion = h.catalog.byName('ValidationComplete');
    submissions = new PgReportSubmissions(h.db.orm, { completion: { subject: completion.subject, schemaVersion: completion.version } });
    h.reportService.put(key.facilityId, key.reportId, key.patientId, measureReportOf(sampleSubmissions()[0]!.bundle));
    await validate('recat-1');
    await eventually(() => completions().length === 1, 'the first ValidationComplete');
    await eventually(() => h.idle(), 'the consumer to be idle');
  });
  after(async () => {
    await h?.close();
  });

  it('announces the flipped verdict once, with a new run, committed with the row; the same rules again announce nothing', async () => {
    const [first] = completions();
    expect(first!.isValid, 'the sample is not valid under the default categories').to.equal(false);
    await acceptEverything();

    await recategorize();
    await eventually(() => completions().length === 2, 'the ValidationComplete of the new verdict');
    const announced = completions()[1]!;
    const stored = (await h.store.find(key))!;
    expect(announced).to.include({ isValid: true, schemaVersion: h.catalog.byName('ValidationComplete').version });
    expect(stored.valid).to.equal(true);
    expect(announced.validationRunId).to.equal(stored.runId);
    expect(announced.validationRunId).to.not.equal(first!.validationRunId);
    const counts = announced.issueCounts as Record<string, number>;
    expect(counts.uncategorized).to.equal(0);
    expect(counts.unacceptable).to.equal(0);
    expect(counts.total).to.equal((first!.issueCounts as Record<string, number>).total);

    const rows = await outboxRows();
    await recategorize();
    expect(await outboxRows(), 'the verdict did not change: nothing enqueued').to.equal(rows);
  });

  it('a change of categories that leaves the verdict alone announces nothing', async () => {
    const rows = await outboxRows();
    const before = (await h.store.find(key))!;
    await h.api.categories.save('some', { id: 'some', title: 'Some', severity: 'WARNING', acceptable: true, guidance: 'Test.' });
    await h.api.categories.addRule('some', { field: 'MESSAGE', regex: 'a' });
    await recategorize();
    expect(await outboxRows()).to.equal(rows);
    expect((await h.store.find(key))!.runId, 'the run announced last is kept').to.equal(before.runId);
  });

  it('a re-validation job that finds the outcome the re-categorization announced announces nothing new; a new event is answered', async () => {
    const count = completions().length;
    const rows = await outboxRows();
    // The category added by the previous test changed the categories since: take it away again.
    await h.api.categories.delete('some');
    await recategorize();
    // As the $revalidate job calls the flow: no event to answer.
    const result = await h.flow.handle({ schemaVersion: h.catalog.byName('ReadyForValidation').version, facilityId: key.facilityId, reportTrackingId: key.reportId, patientId: key.patientId, reportTypes: [] });
    expect(result.announced).to.equal(false);
    expect(await outboxRows()).to.equal(rows);
    // A ReadyForValidation, by contrast, always gets its ValidationComplete (specification lines 9, 19, flow step 6).
    await validate('recat-2');
    await eventually(() => completions().length === count + 1, 'the answer to the new event');
  });

  it('when the announcement cannot be enqueued, the re-categorized verdict is not stored either (one transaction)', async () => {
    // Back to invalid: the catch-all category goes away and the default ones are not all acceptable.
    await h.api.categories.delete('everything');
    await h.api.categories.save('required', { id: 'required', title: 'Required', severity: 'ERROR', acceptable: false, guidance: 'Test.' });
    await h.api.categories.addRule('required', { field: 'MESSAGE', regex: '.' });
    await h.db.orm.em.fork().execute(`create function refuse_outbox() returns trigger language plpgsql as $$ begin raise exception 'outbox refused'; end $$`);
    await h.db.orm.em.fork().execute('create trigger refuse_outbox before insert on outbox_message for each row execute function refuse_outbox()');
    try {
      const error = await recategorize().then(() => undefined, (e: Error) => e);
      expect(error?.message).to.contain('outbox refused');
      expect((await h.store.find(key))!.valid, 'still the announced verdict').to.equal(true);
    } finally {
      await h.db.orm.em.fork().execute('drop trigger refuse_outbox on outbox_message');
      await h.db.orm.em.fork().execute('drop function refuse_outbox()');
    }
    const count = completions().length;
    await recategorize();
    await eventually(() => completions().length === count + 1, 'the ValidationComplete of the invalid verdict');
    expect(completions().at(-1)!.isValid).to.equal(false);
    expect((await h.store.find(key))!.valid).to.equal(false);
  });
});
