import { expect } from 'chai';
import { catalogStreams, ensureConsumer, provisionCatalog, provisionStreams } from '../provisioning.js';
import { testBroker, type TestBroker } from './support.js';

describe('messaging: provisioning', () => {
  let broker: TestBroker;
  before(async () => { broker = await testBroker({ provision: false }); });
  after(async () => { await broker.cleanup(); });

  it('creates every stream once; a second run changes nothing', async () => {
    const defs = [...broker.catalog.streams, broker.catalog.deadLetterStream];
    const first = await provisionStreams(broker.jsm, defs);
    expect(Object.values(first)).to.deep.equal(defs.map(() => 'created'));
    const second = await provisionStreams(broker.jsm, defs);
    expect(Object.values(second)).to.deep.equal(defs.map(() => 'unchanged'));

    const info = await broker.jsm.streams.info(broker.catalog.byName('ReadyForValidation').stream!);
    expect(info.config.subjects).to.deep.equal([`${broker.catalog.subjectRoot}.compliance.event.>`]);
    expect(info.config.duplicate_window).to.equal(120_000 * 1_000_000);
    expect(info.config.storage).to.equal('file');
    expect(info.config.max_bytes, 'the test profile of nats.stream-limits').to.equal(64 * 1024 * 1024);
  });

  it('a stream JetStream cannot reserve storage for fails with an error that names nats.stream-limits', async () => {
    const def = { ...broker.catalog.deadLetterStream, name: `${broker.catalog.deadLetterStream.name}_HUGE`, subjects: [`${broker.catalog.subjectRoot}.huge.>`], maxBytes: 2 ** 50 };
    let error: Error | undefined;
    try { await provisionStreams(broker.jsm, [def]); } catch (e) { error = e as Error; }
    await broker.jsm.streams.delete(def.name).catch(() => undefined);
    expect(error?.message).to.match(/cannot reserve its 1073741824 MiB/).and.match(/nats\.stream-limits \(NATS_STREAM_LIMITS\) to local or test/);
  });

  it('updates a stream whose configuration differs, keeping its messages', async () => {
    const def = broker.catalog.streams.find((s) => s.name === broker.catalog.byName('ReportScheduled').stream)!;
    await broker.js.publish(broker.catalog.byName('ReportScheduled').subject, '{}');
    const changed = { ...def, maxAgeMs: def.maxAgeMs / 2 };
    expect(await provisionStreams(broker.jsm, [changed])).to.deep.equal({ [def.name]: 'updated' });
    const info = await broker.jsm.streams.info(def.name);
    expect(info.config.max_age).to.equal(changed.maxAgeMs * 1_000_000);
    expect(info.state.messages).to.equal(1);
    expect(await provisionStreams(broker.jsm, [def])).to.deep.equal({ [def.name]: 'updated' });
  });

  it('applies the replica count of the installation (nats.stream-replicas) to every stream of the catalog', async () => {
    const defs = catalogStreams(broker.catalog, { replicas: 1 });
    expect(defs.map((d) => d.name)).to.deep.equal([...broker.catalog.streams, broker.catalog.deadLetterStream].map((d) => d.name));
    expect(catalogStreams(broker.catalog, { replicas: 3 }).every((d) => d.replicas === 3)).to.equal(true);
    await provisionCatalog(broker.jsm, broker.catalog, { replicas: 1 });
    for (const def of defs) expect((await broker.jsm.streams.info(def.name)).config.num_replicas, def.name).to.equal(1);
  });

  it('refuses three replicas on this single NATS server with an error saying what to set, creating or updating nothing', async () => {
    const other = await testBroker({ provision: false });
    try {
      const [fresh, existing] = catalogStreams(other.catalog, { replicas: 3 });
      // A stream that does not exist yet: the server refuses to create it.
      const created = await provisionStreams(other.jsm, [fresh!]).then(() => undefined, (e: Error) => e);
      expect(created?.message).to.equal(`Stream ${fresh!.name}: 3 replicas requested (nats.stream-replicas) but the NATS server is not clustered; `
        + 'set nats.stream-replicas to 1 for a single NATS server, or to at most the number of servers of the JetStream cluster');
      expect(await other.jsm.streams.info(fresh!.name).then(() => 'exists', () => 'absent')).to.equal('absent');
      // An existing single-copy stream: the server would take the update and still keep one copy, so it is not sent.
      await provisionStreams(other.jsm, [{ ...existing!, replicas: 1 }]);
      const updated = await provisionStreams(other.jsm, [existing!]).then(() => undefined, (e: Error) => e);
      expect(updated?.message).to.match(new RegExp(`^Stream ${existing!.name}: 3 replicas requested \\(nats.stream-replicas\\) but the NATS server is not clustered`));
      expect((await other.jsm.streams.info(existing!.name)).config.num_replicas).to.equal(1);
    } finally {
      await other.cleanup();
    }
  });

  it('ensureConsumer creates a durable consumer once, then leaves it or updates what differs', async () => {
    const stream = broker.catalog.byName('ReadyForValidation').stream!;
    const spec = { durable: 'validation', filterSubject: broker.catalog.byName('ReadyForValidation').subject, maxDeliver: 4, ackWaitMs: 5_000, backoffMs: [1_000, 2_000], maxAckPending: 50 };
    expect(await ensureConsumer(broker.jsm, stream, spec)).to.equal('created');
    expect(await ensureConsumer(broker.jsm, stream, spec)).to.equal('unchanged');
    expect(await ensureConsumer(broker.jsm, stream, { ...spec, maxAckPending: 10 })).to.equal('updated');
    const info = await broker.jsm.consumers.info(stream, 'validation');
    expect(info.config.max_ack_pending).to.equal(10);
    expect(info.config.max_deliver).to.equal(4);
    expect(info.config.ack_policy).to.equal('explicit');
    expect(info.config.backoff).to.deep.equal([1_000_000_000, 2_000_000_000]);
  });
});
