import { expect } from 'chai';
import { VALID } from '#contracts/test/fixtures.js';
import { ContractViolationError, UnknownSubjectError } from '../errors.js';
import { JetStreamPublisher } from '../publisher.js';
import { testBroker, type TestBroker } from './support.js';

describe('messaging: JetStreamPublisher', () => {
  let broker: TestBroker;
  let publisher: JetStreamPublisher;
  before(async () => {
    broker = await testBroker();
    publisher = new JetStreamPublisher(broker.js, { catalog: broker.catalog });
  });
  after(async () => { await broker.cleanup(); });

  const stored = async (name: string) => {
    const c = broker.catalog.byName(name);
    const info = await broker.jsm.streams.info(c.stream!, { subjects_filter: c.subject });
    return info.state.subjects?.[c.subject] ?? 0;
  };

  it('publishes a valid payload and returns the PubAck', async () => {
    const ack = await publisher.publish(broker.catalog.byName('ReadyForValidation').subject, VALID.ReadyForValidation);
    expect(ack.stream).to.equal(broker.catalog.byName('ReadyForValidation').stream);
    expect(ack.seq).to.be.a('number');
    expect(ack.duplicate).to.equal(false);
    const msg = await broker.jsm.streams.getMessage(ack.stream, { seq: ack.seq });
    expect(msg!.json()).to.deep.equal(VALID.ReadyForValidation);
  });

  it('de-duplicates by msgId: the second publish is reported duplicate and only one message is stored', async () => {
    const first = await publisher.publishMessage('ReportScheduled', VALID.ReportScheduled, { msgId: 'schedule-1@2025-03-01T05:00:00Z' });
    const second = await publisher.publishMessage('ReportScheduled', VALID.ReportScheduled, { msgId: 'schedule-1@2025-03-01T05:00:00Z' });
    expect(first.duplicate).to.equal(false);
    expect(second.duplicate).to.equal(true);
    expect(second.seq).to.equal(first.seq);
    expect(await stored('ReportScheduled')).to.equal(1);
  });

  it('refuses a payload that violates the contract, names message and errors, and sends nothing', async () => {
    const subject = broker.catalog.byName('ValidationComplete').subject;
    let thrown: unknown;
    try {
      await publisher.publish(subject, { ...VALID.ValidationComplete, isValid: 'yes' });
    } catch (err) { thrown = err; }
    expect(thrown).to.be.instanceOf(ContractViolationError);
    const e = thrown as ContractViolationError;
    expect(e.messageName).to.equal('ValidationComplete');
    expect(e.schemaErrors).to.equal('/isValid must be boolean');
    expect(e.message).to.contain('ValidationComplete payload violates its contract');
    expect(await stored('ValidationComplete')).to.equal(0);
  });

  it('refuses subjects without a contract and request-reply subjects', async () => {
    let e1: unknown; let e2: unknown;
    try { await publisher.publish(`${broker.catalog.subjectRoot}.compliance.event.unknown.v1`, {}); } catch (err) { e1 = err; }
    try { await publisher.publishMessage('GetFacilityConfig', { facilityId: 'x' }); } catch (err) { e2 = err; }
    expect(e1).to.be.instanceOf(UnknownSubjectError);
    expect((e2 as Error).message).to.contain('request-reply');
  });

  it('sends the given headers (traceparent) with the message', async () => {
    const traceparent = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';
    const ack = await publisher.publishMessage('AuditableEventOccurred', VALID.AuditableEventOccurred, { headers: { traceparent } });
    const msg = await broker.jsm.streams.getMessage(ack.stream, { seq: ack.seq });
    expect(msg!.header.get('traceparent')).to.equal(traceparent);
  });
});
