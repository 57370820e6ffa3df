import { expect } from 'chai';
import { VALID } from '#contracts/test/fixtures.js';
import { ContractViolationError, UnknownSubjectError } from '../../messaging/errors.js';
import { JetStreamPublisher } from '../../messaging/publisher.js';
import { testBroker, type TestBroker } from '../../messaging/test/support.js';
import { silentLogger } from '../../observability/logger.js';
import { startTcpProxy } from '#scripts/fault/tcp-proxy.js';
import type { Database } from '../database.js';
import { enqueueOutboxMessage } from '../outbox/enqueue.js';
import type { OutboxDatabase } from '../outbox/outbox-table.js';
import { OutboxRelay, type OutboxRelayEvent } from '../outbox/relay.js';
import { uuidV7 } from '../outbox/uuid-v7.js';
import { RecordingPublisher } from './recording-publisher.js';
import { PG, Widget, dropTestDatabase, openTestDatabase, uniqueDbName } from './test-database.js';

/**
 * The outbox never holds a row that retries forever: a message is checked against its contract
 * when it is enqueued (the caller's transaction rolls back), and a row that can never be published
 * (already stored with a payload that fails its contract, or refused by the broker for its size)
 * is parked. Real PostgreSQL and NATS.
 */
describe('persistence: outbox contract check and parked rows', () => {
  const dbName = uniqueDbName('outbox_park');
  let db: Database;
  let broker: TestBroker;

  before(async () => {
    db = await openTestDatabase(dbName);
    broker = await testBroker();
  });
  after(async () => {
    await broker?.cleanup();
    await db?.close();
    await dropTestDatabase(dbName);
  });
  beforeEach(async () => {
    await db.orm.em.fork().getKysely<OutboxDatabase>().deleteFrom('outbox_message').execute();
  });

  const subjectOf = (name: string) => broker.catalog.byName(name).subject;
  const rows = () => db.orm.em.fork().getKysely<OutboxDatabase>().selectFrom('outbox_message')
    .select(['msg_id', 'published_at', 'parked_at', 'attempts', 'last_error']).orderBy('created_at').orderBy('id').execute();
  /** A row as an older version, or a hand-written INSERT, could have stored it: no check on the way in. */
  const insertUnchecked = (subject: string, payload: unknown, msgId: string) => db.orm.em.fork().getKysely<OutboxDatabase>().insertInto('outbox_message')
    .values({ id: uuidV7(), subject, payload: JSON.stringify(payload), headers: {}, msg_id: msgId, created_at: new Date(), attempts: 0 }).execute();

  it('refuses to enqueue a payload that fails its contract: a clear error, and the transaction (the change too) rolls back', async () => {
    const incomplete = { ...VALID.ValidationComplete, issueCounts: { total: 1 } };
    let error: Error | undefined;
    await db.orm.em.fork().transactional(async (tx) => {
      tx.create(Widget, { label: 'validated patient' });
      await tx.flush();
      await enqueueOutboxMessage(tx, { subject: subjectOf('ValidationComplete'), payload: incomplete });
    }).catch((e: Error) => { error = e; });
    expect(error).to.be.instanceOf(ContractViolationError);
    expect(error!.message).to.match(/^ValidationComplete payload violates its contract \(.*validation-complete\.v1\): \/issueCounts must have required property 'errors'/);
    expect(await db.orm.em.fork().count(Widget, { label: 'validated patient' })).to.equal(0);
    expect(await rows()).to.deep.equal([]);
  });

  it('refuses a subject no JetStream contract has (a typo, a request-reply subject), whatever the subject root', async () => {
    await db.orm.em.fork().transactional(async (tx) => {
      for (const subject of [`${broker.catalog.subjectRoot}.compliance.event.validation-completed.v1`, subjectOf('GetFacilityConfig')]) {
        const error = await enqueueOutboxMessage(tx, { subject, payload: {} }).then(() => undefined, (e: Error) => e);
        expect(error, subject).to.be.instanceOf(UnknownSubjectError);
        expect(error!.message).to.include(subject);
      }
      // The same message under the production root and a test root is checked the same way.
      await enqueueOutboxMessage(tx, { subject: 'nhsn.compliance.event.validation-complete.v1', payload: VALID.ValidationComplete });
      await enqueueOutboxMessage(tx, { subject: subjectOf('ValidationComplete'), payload: VALID.ValidationComplete });
    });
    expect(await rows()).to.have.length(2);
  });

  it('parks a stored row whose payload fails its contract: never claimed again, the reason kept, the others published, counted', async () => {
    const events: OutboxRelayEvent[] = [];
    const relay = new OutboxRelay({
      orm: db.orm, publisher: new JetStreamPublisher(broker.js, { catalog: broker.catalog }), logger: silentLogger(), onEvent: (e) => events.push(e),
    });
    await insertUnchecked(subjectOf('ValidationComplete'), { ...VALID.ValidationComplete, isValid: 'yes' }, 'bad-1');
    await insertUnchecked(subjectOf('ValidationComplete'), VALID.ValidationComplete, 'good-1');

    expect(await relay.relayOnce()).to.deep.equal({ claimed: 2, published: 1, failed: 0, parked: 1 });
    expect(await relay.relayOnce()).to.deep.equal({ claimed: 0, published: 0, failed: 0, parked: 0 });

    const [bad, good] = await rows();
    expect(bad?.msg_id).to.equal('bad-1');
    expect(bad?.parked_at).to.not.equal(null);
    expect(bad?.published_at).to.equal(null);
    expect(bad?.attempts).to.equal(1);
    expect(bad?.last_error).to.match(/^ContractViolationError: ValidationComplete payload violates its contract .*\/isValid must be boolean/);
    expect(good?.published_at).to.not.equal(null);
    expect(events.filter((e) => e.kind === 'parked').map((e) => (e as { msgId: string }).msgId)).to.deep.equal(['bad-1']);
    expect(events.filter((e) => e.kind === 'parked-rows')).to.deep.equal([{ kind: 'parked-rows', count: 1 }]);
    expect(await relay.countParked()).to.equal(1);
  });

  it('parks a row the broker refuses for its size (larger than the server accepts), which passed its contract', async () => {
    const relay = new OutboxRelay({ orm: db.orm, publisher: new JetStreamPublisher(broker.js, { catalog: broker.catalog }), logger: silentLogger() });
    const huge = { ...VALID.ResourceEvaluated, resource: { resourceType: 'MeasureReport', id: 'mr-1', text: 'x'.repeat(2 * 1024 * 1024) } };
    await db.orm.em.fork().transactional((tx) => enqueueOutboxMessage(tx, { subject: subjectOf('ResourceEvaluated'), payload: huge, msgId: 'huge-1' }));

    expect(await relay.relayOnce()).to.deep.equal({ claimed: 1, published: 0, failed: 0, parked: 1 });
    const [row] = await rows();
    expect(row?.parked_at).to.not.equal(null);
    expect(row?.last_error).to.match(/^UnpublishableMessageError: ResourceEvaluated of \d+ bytes is larger than the broker accepts/);
    expect(await relay.relayOnce()).to.include({ claimed: 0 });
  });

  it('a relay that loses the database between publishing and marking marks the rows when it is back, without publishing them again', async () => {
    const proxy = await startTcpProxy({ host: PG.host, port: PG.port });
    const viaProxy = await openTestDatabase(dbName, { port: proxy.port, poolMax: 2 });
    try {
      const publisher = new RecordingPublisher();
      const publish = publisher.publish.bind(publisher);
      let cutAfterPublish = true;
      publisher.publish = async (subject, payload, options) => {
        const ack = await publish(subject, payload, options);
        if (cutAfterPublish) {
          cutAfterPublish = false;
          await proxy.cut(); // the broker has the message; the database is gone before the mark
        }
        return ack;
      };
      const relay = new OutboxRelay({ orm: viaProxy.orm, publisher, logger: silentLogger() });
      await db.orm.em.fork().transactional((tx) => enqueueOutboxMessage(tx, { subject: subjectOf('ValidationComplete'), payload: VALID.ValidationComplete, msgId: 'vc-cut' }));

      const error = await relay.relayOnce().then(() => undefined, (e: Error) => e);
      expect(error, 'the mark failed').to.be.instanceOf(Error);
      expect(await relay.relayOnce().then(() => 'ran', () => 'failed'), 'still no database').to.equal('failed');
      // Longer than the lease: another relay would now take the row over; this one knows it was published.
      await db.orm.em.fork().getKysely<OutboxDatabase>().updateTable('outbox_message').set({ next_attempt_at: new Date(Date.now() - 1) }).execute();
      await proxy.restore();

      expect(await relay.relayOnce()).to.deep.equal({ claimed: 0, published: 0, failed: 0, parked: 0 });
      expect(publisher.msgIds()).to.deep.equal(['vc-cut']);
      const [row] = await rows();
      expect(row?.published_at).to.not.equal(null);
    } finally {
      await viaProxy.close();
      await proxy.close();
    }
  });
});
