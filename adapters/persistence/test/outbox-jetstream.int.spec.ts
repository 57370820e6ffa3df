import { randomBytes } from 'node:crypto';
import { assert, expect } from 'chai';
import { connect, headers as natsHeaders, type NatsConnection } from '@nats-io/transport-node';
import { jetstream, jetstreamManager, type JetStreamManager } from '@nats-io/jetstream';
import { buildCatalog } from '#contracts/catalog.js';
import { VALID } from '#contracts/test/fixtures.js';
import type { MessagePublisher, PublishAck, PublishOptions } from '../../messaging/publisher-port.js';
import { silentLogger } from '../../observability/logger.js';
import type { Database } from '../database.js';
import { enqueueOutboxMessage } from '../outbox/enqueue.js';
import type { OutboxDatabase } from '../outbox/outbox-table.js';
import { OutboxRelay } from '../outbox/relay.js';
import { dropTestDatabase, openTestDatabase, uniqueDbName } from './test-database.js';

const NATS_URL = process.env.NATS_URL ?? '127.0.0.1:4222';
/** Nothing listens on port 1: connecting fails at once, as when the broker is down. */
const CLOSED_PORT_URL = '127.0.0.1:1';

/**
 * Minimal JetStream publisher for this test only (the real adapter lives in adapters/messaging).
 * `servers` can be switched while the relay runs; `loseNextAck` publishes but then throws, like a
 * process that dies after the broker stored the message and before the outbox row was marked.
 */
class SwitchableJetStreamPublisher implements MessagePublisher {
  servers = CLOSED_PORT_URL;
  loseNextAck = false;
  readonly acks: PublishAck[] = [];
  private nc: NatsConnection | undefined;
  private connectedTo: string | undefined;

  async publish(subject: string, payload: unknown, options: PublishOptions = {}): Promise<PublishAck> {
    if (this.connectedTo !== this.servers) {
      await this.close();
      this.nc = await connect({ servers: this.servers, timeout: 500, reconnect: false });
      this.connectedTo = this.servers;
    }
    const h = natsHeaders();
    for (const [name, value] of Object.entries(options.headers ?? {})) h.set(name, value);
    const ack = await jetstream(this.nc!).publish(subject, JSON.stringify(payload), { msgID: options.msgId, headers: h, timeout: 2000 });
    const result = { stream: ack.stream, seq: ack.seq, duplicate: ack.duplicate };
    this.acks.push(result);
    if (this.loseNextAck) {
      this.loseNextAck = false;
      throw new Error('ack lost');
    }
    return result;
  }

  async close(): Promise<void> {
    await this.nc?.close();
    this.nc = undefined;
    this.connectedTo = undefined;
  }
}

describe('persistence: outbox relay against real NATS JetStream', () => {
  const dbName = uniqueDbName('outbox_js');
  const suffix = randomBytes(4).toString('hex');
  const stream = `OUTBOX_TEST_${suffix}`;
  const root = `outboxtest${suffix}`;
  const subject = buildCatalog({ subjectRoot: root }).byName('GenerateReportRequested').subject;
  const payload = (reportId: string) => ({ ...VALID.GenerateReportRequested, reportId });
  let db: Database;
  let admin: NatsConnection;
  let jsm: JetStreamManager;

  before(async () => {
    db = await openTestDatabase(dbName);
    admin = await connect({ servers: NATS_URL });
    jsm = await jetstreamManager(admin);
    await jsm.streams.add({ name: stream, subjects: [`${root}.>`] });
  });

  after(async () => {
    await jsm?.streams.delete(stream).catch(() => undefined);
    await admin?.close();
    await db?.close();
    await dropTestDatabase(dbName);
  });

  beforeEach(async () => {
    await db.orm.em.fork().getKysely<OutboxDatabase>().deleteFrom('outbox_message').execute();
    await jsm.streams.purge(stream);
  });

  async function enqueueOne(msgId: string): Promise<void> {
    await db.orm.em.fork().transactional((tx) =>
      enqueueOutboxMessage(tx, { subject, payload: payload(msgId), msgId, headers: { 'x-test': suffix } }));
  }

  async function outboxRow(): Promise<{ published_at: unknown; attempts: number; last_error: string | null }> {
    return db.orm.em.fork().getKysely<OutboxDatabase>().selectFrom('outbox_message').select(['published_at', 'attempts', 'last_error']).executeTakeFirstOrThrow();
  }

  it('keeps the row while NATS is unreachable and stores exactly one copy once it is back', async () => {
    const publisher = new SwitchableJetStreamPublisher();
    const relay = new OutboxRelay({ orm: db.orm, publisher, logger: silentLogger(), backoff: { initialMs: 1, maxMs: 1 } });
    try {
      await enqueueOne(`f1-monthly-2026-10-${suffix}`);

      expect(await relay.relayOnce()).to.include({ published: 0, failed: 1 });
      const down = await outboxRow();
      expect(down.published_at).to.equal(null);
      expect(down.attempts).to.equal(1);
      expect(down.last_error).to.match(/ECONNREFUSED|CONNECTION_REFUSED|connect/i);

      publisher.servers = NATS_URL;
      await new Promise((resolve) => setTimeout(resolve, 5));
      expect(await relay.relayOnce()).to.include({ published: 1, failed: 0 });
      expect(await relay.relayOnce()).to.include({ claimed: 0 });

      expect((await jsm.streams.info(stream)).state.messages).to.equal(1);
      const [ack] = publisher.acks;
      assert.isDefined(ack, 'the publish was acknowledged');
      const stored = await jsm.streams.getMessage(stream, { seq: ack.seq });
      expect(stored?.json()).to.deep.equal(payload(`f1-monthly-2026-10-${suffix}`));
      expect(stored?.header.get('Nats-Msg-Id')).to.equal(`f1-monthly-2026-10-${suffix}`);
      expect(stored?.header.get('x-test')).to.equal(suffix);
      expect((await outboxRow()).attempts).to.equal(2);
    } finally {
      await publisher.close();
    }
  });

  it('a retry after a lost ack is absorbed by the duplicate window: still one copy in the stream', async () => {
    const publisher = new SwitchableJetStreamPublisher();
    publisher.servers = NATS_URL;
    publisher.loseNextAck = true;
    const relay = new OutboxRelay({ orm: db.orm, publisher, logger: silentLogger(), backoff: { initialMs: 1, maxMs: 1 } });
    try {
      await enqueueOne(`lost-ack-${suffix}`);

      expect(await relay.relayOnce()).to.include({ published: 0, failed: 1 });
      await new Promise((resolve) => setTimeout(resolve, 5));
      expect(await relay.relayOnce()).to.include({ published: 1, failed: 0 });

      expect(publisher.acks.map((a) => a.duplicate)).to.deep.equal([false, true]);
      expect((await jsm.streams.info(stream)).state.messages).to.equal(1);
    } finally {
      await publisher.close();
    }
  });
});
