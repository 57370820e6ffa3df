import { expect } from 'chai';
import { VALID } from '#contracts/test/fixtures.js';
import { JetStreamPublisher } from '../../messaging/publisher.js';
import { testBroker, type TestBroker } from '../../messaging/test/support.js';
import { silentLogger } from '../../observability/logger.js';
import { runWithContext } from '../../observability/request-context.js';
import { parseTraceparent } from '../../observability/trace-context.js';
import type { Database } from '../database.js';
import { enqueueOutboxMessage } from '../outbox/enqueue.js';
import type { OutboxDatabase } from '../outbox/outbox-table.js';
import { OutboxRelay } from '../outbox/relay.js';
import { dropTestDatabase, openTestDatabase, uniqueDbName } from './test-database.js';

const TRACE_ID = '0af7651916cd43dd8448eb211c80319c';

describe('persistence: outbox carries the trace context', () => {
  const dbName = uniqueDbName('outbox_trace');
  let db: Database;
  let broker: TestBroker;
  let relay: OutboxRelay;
  let subject: string;
  let stream: string;

  before(async () => {
    db = await openTestDatabase(dbName);
    broker = await testBroker();
    const contract = broker.catalog.byName('ValidationComplete');
    subject = contract.subject;
    stream = contract.stream!;
    relay = new OutboxRelay({ orm: db.orm, publisher: new JetStreamPublisher(broker.js, { catalog: broker.catalog }), logger: silentLogger() });
  });
  after(async () => {
    await broker?.cleanup();
    await db?.close();
    await dropTestDatabase(dbName);
  });
  beforeEach(async () => {
    await db.orm.em.fork().getKysely<OutboxDatabase>().deleteFrom('outbox_message').execute();
    await broker.jsm.streams.purge(stream);
  });

  const enqueue = (headers?: Record<string, string>) => db.orm.em.fork().transactional((tx) =>
    enqueueOutboxMessage(tx, { subject, payload: VALID.ValidationComplete, ...(headers ? { headers } : {}) }));
  const storedHeaders = async (): Promise<Record<string, string>> =>
    (await db.orm.em.fork().getKysely<OutboxDatabase>().selectFrom('outbox_message').select('headers').executeTakeFirstOrThrow()).headers;
  const publishedTraceparent = async () => {
    expect(await relay.relayOnce()).to.include({ published: 1 });
    return (await broker.jsm.streams.getMessage(stream, { last_by_subj: subject }))?.header.get('traceparent');
  };

  it('records the current context\'s trace (a child span) in the row, and the relay publishes it', async () => {
    await runWithContext({ traceId: TRACE_ID, spanId: 'b7ad6b7169203331', traceFlags: '01' }, () => enqueue());
    const row = parseTraceparent((await storedHeaders()).traceparent);
    expect(row?.traceId).to.equal(TRACE_ID);
    expect(row?.spanId).to.not.equal('b7ad6b7169203331');
    expect(await publishedTraceparent()).to.equal((await storedHeaders()).traceparent);
  });

  it('keeps a traceparent the caller gave, even inside another trace', async () => {
    const given = '00-11111111111111111111111111111111-2222222222222222-01';
    await runWithContext({ traceId: TRACE_ID }, () => enqueue({ traceparent: given }));
    expect((await storedHeaders()).traceparent).to.equal(given);
    expect(await publishedTraceparent()).to.equal(given);
  });

  it('outside any context stores none, and the relay\'s publish starts a trace of its own', async () => {
    await enqueue();
    expect(await storedHeaders()).to.deep.equal({});
    const published = parseTraceparent(await publishedTraceparent());
    expect(published?.traceId).to.match(/^[0-9a-f]{32}$/).and.not.equal(TRACE_ID);
  });
});
