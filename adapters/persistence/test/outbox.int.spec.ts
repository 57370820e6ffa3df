import { expect } from 'chai';
import { buildCatalog } from '#contracts/catalog.js';
import { VALID } from '#contracts/test/fixtures.js';
import type { Database } from '../database.js';
import { enqueueOutboxMessage } from '../outbox/enqueue.js';
import type { OutboxDatabase, OutboxRow } from '../outbox/outbox-table.js';
import { OutboxRelay, type OutboxRelayEvent, type OutboxRelayOptions } from '../outbox/relay.js';
import { uuidV7 } from '../outbox/uuid-v7.js';
import { silentLogger } from '../../observability/logger.js';
import { Widget, dropTestDatabase, openTestDatabase, uniqueDbName } from './test-database.js';
import { RecordingPublisher } from './recording-publisher.js';

/** Messages of the catalog (any subject root will do): the outbox enqueues only what satisfies a contract. */
const testCatalog = buildCatalog({ subjectRoot: 'outboxtest' });
const GENERATE = testCatalog.byName('GenerateReportRequested').subject;
const AUDIT = testCatalog.byName('AuditableEventOccurred').subject;
/** A valid GenerateReportRequested whose reportId names it. */
const command = (reportId: string) => ({ ...VALID.GenerateReportRequested, reportId });

describe('persistence: transactional outbox', () => {
  const dbName = uniqueDbName('outbox');
  let db: Database;

  before(async () => {
    db = await openTestDatabase(dbName);
  });

  after(async () => {
    await db?.close();
    await dropTestDatabase(dbName);
  });

  beforeEach(async () => {
    await db.orm.em.fork().getKysely<OutboxDatabase>().deleteFrom('outbox_message').execute();
  });

  function relay(publisher: RecordingPublisher, options: Partial<OutboxRelayOptions> = {}): OutboxRelay {
    return new OutboxRelay({ orm: db.orm, publisher, logger: silentLogger(), ...options });
  }

  async function enqueue(count: number, prefix = 'm'): Promise<string[]> {
    const ids: string[] = [];
    await db.orm.em.fork().transactional(async (tx) => {
      for (let i = 0; i < count; i++) {
        ids.push((await enqueueOutboxMessage(tx, { subject: GENERATE, payload: command(`${prefix}-${i}`), msgId: `${prefix}-${i}` })).msgId);
      }
    });
    return ids;
  }

  /** Timestamps arrive as strings (MikroORM leaves pg's date parsing off); turn them into Dates here. */
  async function rows(): Promise<OutboxRow[]> {
    const raw = await db.orm.em.fork().getKysely<OutboxDatabase>().selectFrom('outbox_message').selectAll().orderBy('created_at').orderBy('id').execute();
    const date = (v: unknown) => (v === null ? null : new Date(v as string));
    return raw.map((r) => ({ ...r, published_at: date(r.published_at), next_attempt_at: date(r.next_attempt_at) }));
  }

  it('refuses to enqueue outside a transaction', async () => {
    let error: Error | undefined;
    await enqueueOutboxMessage(db.orm.em.fork(), { subject: 'a.b', payload: {} }).catch((e: Error) => { error = e; });
    expect(error?.message).to.match(/inside em\.transactional/);
  });

  it('rejects an invalid subject or a payload that is not JSON', async () => {
    await db.orm.em.fork().transactional(async (tx) => {
      for (const [input, pattern] of [
        [{ subject: 'has space', payload: {} }, /invalid subject/],
        [{ subject: 'a.*', payload: {} }, /invalid subject/],
        [{ subject: 'a.b', payload: undefined }, /not JSON-serialisable/],
        [{ subject: 'a.b', payload: {}, msgId: ' ' }, /msgId/],
      ] as const) {
        let error: Error | undefined;
        await enqueueOutboxMessage(tx, input).catch((e: Error) => { error = e; });
        expect(error?.message).to.match(pattern);
      }
    });
  });

  it('never publishes a message whose transaction rolled back, while the change and event of a commit land together', async () => {
    const publisher = new RecordingPublisher();
    await db.orm.em.fork().transactional(async (tx) => {
      tx.create(Widget, { label: 'rolled-back' });
      await enqueueOutboxMessage(tx, { subject: GENERATE, payload: command('rolled-back') });
      throw new Error('business rule failed');
    }).catch(() => undefined);
    await db.orm.em.fork().transactional(async (tx) => {
      tx.create(Widget, { label: 'committed' });
      await enqueueOutboxMessage(tx, { subject: GENERATE, payload: command('committed') });
    });

    const result = await relay(publisher).relayOnce();

    expect(result).to.deep.equal({ claimed: 1, published: 1, failed: 0, parked: 0 });
    expect(publisher.calls.map((c) => c.payload)).to.deep.equal([command('committed')]);
    expect(await db.orm.em.fork().count(Widget, { label: 'rolled-back' })).to.equal(0);
    expect(await db.orm.em.fork().count(Widget, { label: 'committed' })).to.equal(1);
  });

  it('publishes committed rows once each, in created order, with their msg id and headers', async () => {
    const publisher = new RecordingPublisher();
    let defaultId = '';
    await db.orm.em.fork().transactional(async (tx) => {
      await enqueueOutboxMessage(tx, { subject: GENERATE, payload: command('r-1'), msgId: 'fac-1-monthly-2026-10' });
      defaultId = (await enqueueOutboxMessage(tx, { subject: AUDIT, payload: VALID.AuditableEventOccurred, headers: { 'x-tenant': 't1' } })).id;
    });
    const r = relay(publisher);

    await r.relayOnce();
    await r.relayOnce();

    expect(publisher.calls).to.deep.equal([
      { subject: GENERATE, payload: command('r-1'), options: { msgId: 'fac-1-monthly-2026-10', headers: {} } },
      { subject: AUDIT, payload: VALID.AuditableEventOccurred, options: { msgId: defaultId, headers: { 'x-tenant': 't1' } } },
    ]);
    const stored = await rows();
    expect(stored.every((row) => row.published_at instanceof Date && row.attempts === 1 && row.last_error === null)).to.equal(true);
  });

  it('keeps the row while the publisher fails, counts attempts, and delivers it exactly once when it works again', async () => {
    const publisher = new RecordingPublisher();
    const events: OutboxRelayEvent[] = [];
    const r = relay(publisher, { backoff: { initialMs: 1, maxMs: 1 }, onEvent: (e) => events.push(e) });
    const [msgId] = await enqueue(1);

    publisher.down = true;
    expect(await r.relayOnce()).to.deep.equal({ claimed: 1, published: 0, failed: 1, parked: 0 });
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(await r.relayOnce()).to.deep.equal({ claimed: 1, published: 0, failed: 1, parked: 0 });
    let [row] = await rows();
    expect(row?.published_at).to.equal(null);
    expect(row?.attempts).to.equal(2);
    expect(row?.last_error).to.contain('simulated broker outage');

    publisher.down = false;
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(await r.relayOnce()).to.deep.equal({ claimed: 1, published: 1, failed: 0, parked: 0 });
    expect(await r.relayOnce()).to.deep.equal({ claimed: 0, published: 0, failed: 0, parked: 0 });

    expect(publisher.msgIds()).to.deep.equal([msgId]);
    [row] = await rows();
    expect(row?.published_at).to.be.instanceOf(Date);
    expect(row?.attempts).to.equal(3);
    expect(row?.last_error).to.equal(null);
    expect(events.map((e) => e.kind)).to.deep.equal(['failed', 'failed', 'published']);
  });

  it('waits for the backoff before retrying a failed row', async () => {
    const publisher = new RecordingPublisher();
    publisher.down = true;
    const r = relay(publisher, { backoff: { initialMs: 60_000 } });
    await enqueue(1);
    await r.relayOnce();
    publisher.down = false;
    expect(await r.relayOnce()).to.deep.equal({ claimed: 0, published: 0, failed: 0, parked: 0 });
    const [row] = await rows();
    expect(row?.next_attempt_at?.getTime()).to.be.greaterThan(Date.now() + 50_000);
  });

  it('ends a batch early after consecutive failures, leaving untried rows untouched', async () => {
    const publisher = new RecordingPublisher();
    publisher.down = true;
    await enqueue(5);
    const result = await relay(publisher, { maxConsecutiveFailures: 3 }).relayOnce();
    expect(result).to.deep.equal({ claimed: 5, published: 0, failed: 3, parked: 0 });
    expect((await rows()).map((row) => row.attempts)).to.deep.equal([1, 1, 1, 0, 0]);
    expect((await rows()).slice(3).map((row) => row.next_attempt_at), 'untried rows are due again at once').to.deep.equal([null, null]);
  });

  it('leases the rows it claims: another relay skips them meanwhile, and takes them over when the lease ends', async () => {
    const slow = new RecordingPublisher();
    let answer!: () => void;
    const original = slow.publish.bind(slow);
    slow.publish = async (subject, payload, options) => {
      await new Promise<void>((resolve) => { answer = resolve; });
      return original(subject, payload, options);
    };
    const [msgId] = await enqueue(1, 'leased');
    const first = relay(slow, { publishTimeoutMs: 10_000 }).relayOnce();
    await waitFor(async () => answer !== undefined, 5000);
    const [leased] = await rows();
    expect(leased!.next_attempt_at!.getTime(), 'leased for (failures tolerated + 1) × publish timeout + 5 s')
      .to.be.within(Date.now() + 40_000, Date.now() + 46_000);

    const other = new RecordingPublisher();
    expect(await relay(other).relayOnce()).to.deep.equal({ claimed: 0, published: 0, failed: 0, parked: 0 });

    // As if the first relay had died: its lease ends, the other relay publishes (same msg id: JetStream drops a repeat).
    await db.orm.em.fork().getKysely<OutboxDatabase>().updateTable('outbox_message').set({ next_attempt_at: new Date(Date.now() - 1) }).execute();
    expect(await relay(other).relayOnce()).to.deep.equal({ claimed: 1, published: 1, failed: 0, parked: 0 });
    expect(other.msgIds()).to.deep.equal([msgId]);
    answer();
    expect((await first).published).to.equal(1);
    const [row] = await rows();
    expect(row!.published_at).to.be.instanceOf(Date);
    expect(row!.next_attempt_at).to.equal(null);
  });

  it('publishes the first row of a batch alone and, once the broker answered, the rest at once, in created order', async () => {
    const publisher = new RecordingPublisher(20);
    const expected = await enqueue(6, 'pipelined');
    expect(await relay(publisher).relayOnce()).to.deep.equal({ claimed: 6, published: 6, failed: 0, parked: 0 });
    expect(publisher.msgIds()).to.deep.equal(expected);
    expect(publisher.maxInFlight).to.equal(5);
    expect((await rows()).every((row) => row.published_at !== null && row.attempts === 1)).to.equal(true);
  });

  it('records each failure of the rows published at once, and marks the others', async () => {
    const publisher = new RecordingPublisher();
    const original = publisher.publish.bind(publisher);
    const position = (payload: unknown) => Number((payload as { reportId: string }).reportId.split('-').at(-1));
    publisher.publish = (subject, payload, options) => (position(payload) % 2 === 1
      ? Promise.reject(new Error(`refused ${position(payload)}`))
      : original(subject, payload, options));
    await enqueue(5, 'mixed');
    expect(await relay(publisher, { backoff: { initialMs: 60_000 } }).relayOnce()).to.deep.equal({ claimed: 5, published: 3, failed: 2, parked: 0 });
    const stored = await rows();
    expect(stored.map((row) => row.published_at !== null)).to.deep.equal([true, false, true, false, true]);
    expect(stored.map((row) => row.attempts)).to.deep.equal([1, 1, 1, 1, 1]);
    expect(stored[1]!.last_error).to.contain('refused 1');
    expect(stored[3]!.last_error).to.contain('refused 3');
  });

  it('treats a publish that never answers as failed after the publish timeout', async () => {
    const hanging = new RecordingPublisher();
    hanging.publish = () => new Promise(() => undefined);
    await enqueue(1);
    const result = await relay(hanging, { publishTimeoutMs: 50 }).relayOnce();
    expect(result.failed).to.equal(1);
    expect((await rows())[0]?.last_error).to.contain('timed out after 50 ms');
  });

  it('two relays running concurrently on the same table publish each row once', async () => {
    const expected = await enqueue(300, 'conc');
    const publisherA = new RecordingPublisher(1);
    const publisherB = new RecordingPublisher(1);
    const a = relay(publisherA, { batchSize: 7, pollIntervalMs: 20 });
    const b = relay(publisherB, { batchSize: 7, pollIntervalMs: 20 });
    a.start();
    b.start();
    try {
      await waitFor(async () => (await rows()).every((row) => row.published_at !== null), 15_000);
    } finally {
      await Promise.all([a.stop(), b.stop()]);
    }
    const all = [...publisherA.msgIds(), ...publisherB.msgIds()];
    expect(all).to.have.length(300);
    expect(new Set(all).size).to.equal(300);
    expect([...all].sort()).to.deep.equal([...expected].sort());
  });

  it('publishes as soon as it is notified, without waiting for the poll interval', async () => {
    const publisher = new RecordingPublisher();
    const r = relay(publisher, { pollIntervalMs: 600_000 });
    r.start();
    try {
      await waitFor(async () => true, 1000); // let the first (empty) poll pass
      await new Promise((resolve) => setTimeout(resolve, 50));
      const [msgId] = await enqueue(1, 'notified');
      r.notify();
      await waitFor(async () => publisher.calls.length === 1, 5000);
      expect(publisher.msgIds()).to.deep.equal([msgId]);
    } finally {
      await r.stop();
    }
  });

  it('under load, a notified relay gathers what was committed within gatherMs into one batch', async () => {
    const publisher = new RecordingPublisher();
    const r = relay(publisher, { pollIntervalMs: 600_000, gatherMs: 300 });
    const batches: number[] = [];
    const relayOnce = r.relayOnce.bind(r);
    r.relayOnce = async () => {
      const result = await relayOnce();
      if (result.claimed > 0) batches.push(result.claimed);
      return result;
    };
    r.start();
    try {
      await new Promise((resolve) => setTimeout(resolve, 50)); // the first (empty) poll
      await enqueue(1, 'first');
      r.notify();
      await waitFor(async () => publisher.calls.length === 1, 5000);
      for (const n of [2, 3, 4]) {
        await enqueue(1, `later-${n}`);
        r.notify();
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      await waitFor(async () => publisher.calls.length === 4, 5000);
    } finally {
      await r.stop();
    }
    expect(batches).to.deep.equal([1, 3]);
  });

  it('notify({ now }) ends the gathering wait: the last of a burst is published without waiting out gatherMs', async () => {
    const publisher = new RecordingPublisher();
    // An interval longer than the test's timeout: a publish within it was not waited for.
    const r = relay(publisher, { pollIntervalMs: 600_000, gatherMs: 600_000 });
    r.start();
    try {
      await new Promise((resolve) => setTimeout(resolve, 50)); // the first (empty) poll starts the interval
      const [gathered] = await enqueue(1, 'gathered');
      r.notify();
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(publisher.calls, 'a plain notify within the interval waits').to.have.length(0);
      const [last] = await enqueue(1, 'last');
      r.notify({ now: true });
      await waitFor(async () => publisher.calls.length === 2, 5000);
      expect(publisher.msgIds()).to.deep.equal([gathered, last]);
    } finally {
      await r.stop();
    }
  });

  it('deletes published rows older than the retention in batches, and never unpublished ones', async () => {
    const publisher = new RecordingPublisher();
    const events: OutboxRelayEvent[] = [];
    const r = relay(publisher, { cleanupBatchSize: 2, retentionMs: 24 * 3600_000, onEvent: (e) => events.push(e) });
    await enqueue(5, 'old');
    await r.relayOnce();
    const kdb = db.orm.em.fork().getKysely<OutboxDatabase>();
    await kdb.updateTable('outbox_message').set({ published_at: new Date(Date.now() - 2 * 24 * 3600_000) }).execute();
    await enqueue(2, 'recent');
    await r.relayOnce();
    await enqueue(1, 'pending');

    expect(await r.deletePublished()).to.equal(5);

    expect((await rows()).map((row) => row.msg_id)).to.deep.equal(['recent-0', 'recent-1', 'pending-0']);
    expect(events.filter((e) => e.kind === 'cleaned')).to.deep.equal([{ kind: 'cleaned', deleted: 5 }]);
  });

  it('generates version 7 UUIDs that carry the time and sort in creation order within a millisecond', () => {
    const before = Date.now();
    const ids = Array.from({ length: 5000 }, () => uuidV7());
    for (const id of ids) expect(id).to.match(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    const ms = parseInt((ids[0] ?? '').replace(/-/g, '').slice(0, 12), 16);
    expect(ms).to.be.within(before, Date.now());
    expect([...ids].sort()).to.deep.equal(ids);
    expect(new Set(ids).size).to.equal(ids.length);
  });
});

async function waitFor(condition: () => Promise<boolean>, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
