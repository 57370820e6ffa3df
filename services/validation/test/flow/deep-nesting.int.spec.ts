/**
 * A ReadyForValidation whose submission holds a resource nested 2,000 levels deep, end to end (real
 * NATS JetStream, PostgreSQL, the report service over HTTP, the production engine and worker): the
 * entry gets a fatal "nested too deeply" issue, as through $validate and the CLI; the submission is
 * stored invalid with one ValidationComplete, nothing is dead-lettered or redelivered, and the
 * worker survives (the next submission is validated normally).
 */
import { expect } from 'chai';
import { DeadLetterQueue } from '#adapters/messaging/dead-letter.js';
import type { ValidationOutcome } from '#validation/domain/engine/outcome/issue.js';
import type { SubmissionKey } from '#validation/domain/flow/index.js';
import { eventually, startFlowHarness, type FlowHarness } from './support/flow-harness.js';

/** A Basic whose extensions nest `depth` levels deep. */
function deeplyNested(depth: number): Record<string, unknown> {
  const root: Record<string, unknown> = { resourceType: 'Basic', id: 'deep', code: { text: 'deep' } };
  let node = root;
  for (let i = 0; i < depth; i++) {
    const child: Record<string, unknown> = { url: 'http://example.org/x' };
    node.extension = [child];
    node = child;
  }
  node.valueString = 'bottom';
  return root;
}

/** What the report service answers: the patient's MeasureReport with the other resources contained. */
function measureReport(patientId: string, contained: Record<string, unknown>[]): Record<string, unknown> {
  return {
    resourceType: 'MeasureReport', id: `mr-${patientId}`, status: 'complete', type: 'individual', measure: 'http://example.org/Measure/m',
    subject: { reference: `Patient/${patientId}` }, period: { start: '2026-01-01', end: '2026-01-31' },
    contained: [{ resourceType: 'Patient', id: patientId, gender: 'female' }, ...contained],
  };
}

describe('validation flow: a submission with a resource nested 2,000 levels deep (NATS, PostgreSQL, report service over HTTP)', function () {
  this.timeout(180_000);
  let h: FlowHarness;

  before(async () => {
    h = await startFlowHarness({ maxDeliver: 3 });
  });
  after(async () => {
    await h?.close();
  });

  const completionsOf = (key: SubmissionKey) => h.completions.filter((c) => c.facilityId === key.facilityId && c.reportTrackingId === key.reportId && c.patientId === key.patientId);
  const submit = async (key: SubmissionKey, body: Record<string, unknown>) => {
    h.reportService.put(key.facilityId, key.reportId, key.patientId, body);
    await h.publishReady({ facilityId: key.facilityId, reportTrackingId: key.reportId, patientId: key.patientId, reportTypes: ['NHSNdQMAcuteCareHospitalInitialPopulation'] });
  };

  it('the deep entry gets the fatal "nested too deeply" issue; stored invalid, one ValidationComplete, nothing dead-lettered; the next submission is validated', async () => {
    const deep = { facilityId: 'fac-deep', reportId: 'rep-deep', patientId: 'p-deep' };
    await submit(deep, measureReport(deep.patientId, [deeplyNested(2_000)]));
    await eventually(() => completionsOf(deep).length === 1, 'the ValidationComplete of the deep submission', 120_000);
    await eventually(() => h.idle(), 'the consumer to be idle');

    const stored = await h.store.find(deep);
    const fatal = (stored!.outcome.issue as ValidationOutcome['issue']).filter((issue) => issue.severity === 'fatal');
    expect(fatal).to.have.length(1);
    expect(fatal[0]!.details.text).to.match(/nested too deeply \(more than \d+ levels\)/);
    expect(fatal[0]).to.include({ code: 'too-costly' });
    expect(stored!.valid).to.equal(false);
    expect(completionsOf(deep)[0]!.isValid).to.equal(false);
    expect(h.reportService.requestsFor(deep.facilityId, deep.reportId, deep.patientId)).to.equal(1);
    const dlq = new DeadLetterQueue(h.nats.js, h.nats.jsm, h.catalog);
    expect(await dlq.list({ originalSubject: h.catalog.byName('ReadyForValidation').subject })).to.have.length(0);

    const next = { facilityId: 'fac-deep', reportId: 'rep-deep', patientId: 'p-next' };
    await submit(next, measureReport(next.patientId, [{ resourceType: 'Basic', id: 'flat', code: { text: 'flat' } }]));
    await eventually(() => completionsOf(next).length === 1, 'the ValidationComplete of the next submission', 60_000);
    const after = await h.store.find(next);
    expect((after!.outcome.issue as ValidationOutcome['issue']).filter((issue) => issue.severity === 'fatal')).to.deep.equal([]);
  });
});
