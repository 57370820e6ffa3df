/**
 * Backpressure from downstream: a runner whose `beforeFetch` has not resolved fetches nothing, so the
 * messages stay in the stream (for other instances) instead of waiting in this one.
 */
import { expect } from 'chai';
import { VALID } from '#contracts/test/fixtures.js';
import { silentLogger } from '../../observability/logger.js';
import { startConsumer, type ConsumerRunner } from '../consumer-runner.js';
import { DeadLetterQueue } from '../dead-letter.js';
import { JetStreamPublisher } from '../publisher.js';
import { deferred, testBroker, waitFor, type TestBroker } from './support.js';

describe('messaging: consumer runner backpressure (beforeFetch)', () => {
  let broker: TestBroker;
  let runner: ConsumerRunner | undefined;

  before(async () => {
    broker = await testBroker();
  });
  after(async () => {
    await runner?.stop(2_000);
    await broker.cleanup();
  });

  it('fetches nothing while downstream has no room, then handles every message once it has', async () => {
    const contract = broker.catalog.byName('ReadyForValidation');
    const durable = 'test-backpressure';
    let room = deferred();
    let waits = 0;
    const handled: number[] = [];
    runner = await startConsumer({
      js: broker.js, stream: contract.stream!, durable, filterSubject: contract.subject, concurrency: 4, maxDeliver: 3, backoffMs: [50],
      logger: silentLogger(), deadLetter: new DeadLetterQueue(broker.js, broker.jsm, broker.catalog), catalog: broker.catalog, fetchExpiresMs: 1_000,
      beforeFetch: () => { waits += 1; return room.promise; },
      handler: async (_payload, ctx) => { handled.push(ctx.streamSequence); },
    });
    const publisher = new JetStreamPublisher(broker.js, { catalog: broker.catalog });
    for (let i = 0; i < 3; i++) await publisher.publishMessage('ReadyForValidation', VALID.ReadyForValidation, { msgId: `bp-${i}` });

    await waitFor(async () => (await broker.jsm.consumers.info(contract.stream!, durable)).num_pending === 3, 'three messages in the stream');
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    const info = await broker.jsm.consumers.info(contract.stream!, durable);
    expect(handled).to.deep.equal([]);
    expect(info.num_pending, 'still in the stream for other instances').to.equal(3);
    expect(info.num_ack_pending, 'none held by this instance').to.equal(0);
    expect(waits).to.equal(1);

    const release = room;
    room = deferred();
    release.resolve();
    await waitFor(() => handled.length === 3, 'every message handled once there is room');
    expect(new Set(handled).size).to.equal(3);
  });
});
