/**
 * A ReadyForValidation whose ids are longer than the columns that store them: dead-lettered at
 * once as a contract violation naming the field — not fetched, validated and failed at every
 * delivery before being dead-lettered.
 */
import { expect } from 'chai';
import { DeadLetterQueue } from '#adapters/messaging/dead-letter.js';
import { eventually, startFlowHarness, type FlowHarness } from './support/flow-harness.js';

describe('validation flow: ReadyForValidation with an id longer than its column (NATS, PostgreSQL)', function () {
  this.timeout(60_000);
  let h: FlowHarness;
  before(async () => {
    h = await startFlowHarness({ maxDeliver: 3 });
  });
  after(async () => {
    await h?.close();
  });

  it('a 300-character patient id is dead-lettered on its first delivery, naming the field; nothing is fetched or stored', async () => {
    const patientId = 'p'.repeat(300);
    await h.publishReady({ facilityId: 'fac-long', reportTrackingId: 'rep-long', patientId, reportTypes: [] });
    const dlq = new DeadLetterQueue(h.nats.js, h.nats.jsm, h.catalog);
    const subject = h.catalog.byName('ReadyForValidation').subject;
    await eventually(async () => (await dlq.list({ originalSubject: subject })).length === 1, 'the dead letter');
    const [letter] = await dlq.list({ originalSubject: subject });
    expect(letter!.reason).to.match(/contract violation.*patientId.*255/);
    expect(letter!.deliveries).to.equal(1);
    expect(h.reportService.requests.filter((r) => r.key.startsWith('fac-long'))).to.deep.equal([]);
    expect(h.completions.filter((c) => c.facilityId === 'fac-long')).to.deep.equal([]);
  });
});
