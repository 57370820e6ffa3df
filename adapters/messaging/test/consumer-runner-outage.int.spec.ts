import { expect } from 'chai';
import { VALID } from '#contracts/test/fixtures.js';
import { silentLogger } from '../../observability/logger.js';
import { createMetrics } from '../../observability/metrics.js';
import { startConsumer, type ConsumerRunner, type ConsumerRunnerOptions, type MessageContext, type MessageHandler } from '../consumer-runner.js';
import { DeadLetterQueue } from '../dead-letter.js';
import { UnavailableError } from '#shared-kernel/domain/errors.js';
import { PermanentError } from '../errors.js';
import { JetStreamPublisher } from '../publisher.js';
import { testBroker, waitFor, type TestBroker } from './support.js';

/**
 * The consumer runner against a dependency outage (real NATS): a handler failing because a
 * dependency is unavailable is retried in place, holding the message, without using up its
 * deliveries; data errors still dead-letter at once; an outage past the horizon dead-letters with
 * the reason.
 */
describe('messaging: consumer runner during a dependency outage', () => {
  let broker: TestBroker;
  let publisher: JetStreamPublisher;
  let dlq: DeadLetterQueue;
  const runners: ConsumerRunner[] = [];
  let durableCounter = 0;

  // Streams of its own per test: a new durable reads its stream from the start.
  beforeEach(async () => {
    broker = await testBroker();
    publisher = new JetStreamPublisher(broker.js, { catalog: broker.catalog });
    dlq = new DeadLetterQueue(broker.js, broker.jsm, broker.catalog);
  });
  afterEach(async () => {
    await Promise.all(runners.splice(0).map((r) => r.stop(2_000)));
    await broker.cleanup();
  });

  async function run<T>(name: string, handler: MessageHandler<T>, extra: Partial<ConsumerRunnerOptions<T>> = {}) {
    const contract = broker.catalog.byName(name);
    const durable = `outage-${++durableCounter}`;
    const runner = await startConsumer({
      js: broker.js, stream: contract.stream!, durable, filterSubject: contract.subject, handler,
      concurrency: 2, maxDeliver: 2, backoffMs: [50], ackWaitMs: 600, outageBackoff: { initialMs: 50, maxMs: 200 },
      logger: silentLogger(), deadLetter: dlq, catalog: broker.catalog, fetchExpiresMs: 1_000, ...extra,
    });
    runners.push(runner);
    return { runner, durable, stream: contract.stream!, subject: contract.subject };
  }
  const consumerIdle = async (stream: string, durable: string) => {
    const info = await broker.jsm.consumers.info(stream, durable);
    return info.num_pending === 0 && info.num_ack_pending === 0;
  };

  it('holds a message through an outage longer than ackWait and many retries: one delivery, handled once the dependency is back', async () => {
    const metrics = createMetrics('outage-test');
    const seen: MessageContext[] = [];
    let failing = true;
    const { durable, stream, subject } = await run('ReadyForValidation', async (_payload, ctx) => {
      seen.push(ctx);
      if (failing) throw new UnavailableError('connect ECONNREFUSED 127.0.0.1:5432', { dependency: 'database' });
    }, { metrics });
    await publisher.publishMessage('ReadyForValidation', VALID.ReadyForValidation, { msgId: 'held-1' });
    const value = async (name: string) => (await metrics.registry.getSingleMetric(name)!.get()).values[0]!.value;
    await waitFor(() => seen.length >= 8, 'eight attempts');
    expect(await value('messaging_messages_held_for_dependency')).to.equal(1);
    // Past twice the ack wait: without progress acks the server would have redelivered by now.
    await new Promise((resolve) => setTimeout(resolve, 1_300));
    failing = false;
    await waitFor(() => consumerIdle(stream, durable), 'ack');
    expect(seen.length).to.be.greaterThan(8);
    expect(new Set(seen.map((c) => c.deliveryCount)), 'every attempt within delivery 1').to.deep.equal(new Set([1]));
    expect(await dlq.list({ originalSubject: subject })).to.deep.equal([]);
    expect(await value('messaging_dependency_retries_total')).to.equal(seen.length - 1);
    expect(await value('messaging_messages_held_for_dependency')).to.equal(0);
  });

  it('recognises a PostgreSQL connection failure by its code (57P01 administrator shutdown) and holds the message as for UnavailableError', async () => {
    let calls = 0;
    const { durable, stream, subject } = await run('ValidationComplete', async () => {
      calls++;
      if (calls <= 4) throw Object.assign(new Error('terminating connection due to administrator command'), { code: '57P01' });
    }, { maxDeliver: 1 });
    await publisher.publishMessage('ValidationComplete', VALID.ValidationComplete);
    await waitFor(() => consumerIdle(stream, durable), 'ack after the restart');
    expect(calls).to.equal(5);
    expect(await dlq.list({ originalSubject: subject })).to.deep.equal([]);
  });

  it('still dead-letters a data error at once, and an unexpected error after the maximum deliveries', async () => {
    const seen: number[] = [];
    const { subject } = await run('ReadyForValidation', async (payload: { reportTrackingId: string }, ctx) => {
      seen.push(ctx.deliveryCount);
      if (payload.reportTrackingId === 'data') throw new PermanentError('no such report');
      throw new TypeError('a bug');
    });
    await publisher.publishMessage('ReadyForValidation', { ...VALID.ReadyForValidation, reportTrackingId: 'data' });
    await publisher.publishMessage('ReadyForValidation', { ...VALID.ReadyForValidation, reportTrackingId: 'bug' });
    await waitFor(async () => (await dlq.list({ originalSubject: subject })).length === 2, 'two dead letters');
    const reasons = (await dlq.list({ originalSubject: subject })).map((d) => d.reason).sort();
    expect(reasons).to.deep.equal(['handler failed on all 2 deliveries; last error: TypeError: a bug', 'permanent error: no such report']);
    expect(seen).to.have.length(3);
  });

  it('dead-letters with the reason when the dependency stays unavailable past the outage horizon', async () => {
    let calls = 0;
    const { subject } = await run('ValidationComplete', async () => {
      calls++;
      throw new Error('wrapped', { cause: Object.assign(new Error('connect ECONNREFUSED 10.0.0.5:5110'), { code: 'ECONNREFUSED' }) });
    }, { outageHorizonMs: 700 });
    await publisher.publishMessage('ValidationComplete', VALID.ValidationComplete);
    await waitFor(async () => (await dlq.list({ originalSubject: subject })).length === 1, 'the dead letter');
    const [letter] = await dlq.list({ originalSubject: subject });
    expect(letter!.reason).to.match(/^a dependency was unavailable for 1 s \(the outage horizon is 1 s\); last error: Error: wrapped$/);
    expect(letter!.deliveries).to.equal(1);
    expect(calls).to.be.greaterThan(2);
  });

  it('stop() hands a held message back at once: another instance gets it instead of it waiting for the dependency', async () => {
    let handled = 0;
    // A long ack wait: the message can only come back this soon because it was handed back.
    const settings = { ackWaitMs: 60_000, outageBackoff: { initialMs: 60_000, maxMs: 60_000 } };
    const { runner, durable } = await run('ReadyForValidation', async () => {
      handled++;
      throw new UnavailableError('report service answered 503', { dependency: 'report service' });
    }, settings);
    await publisher.publishMessage('ReadyForValidation', VALID.ReadyForValidation);
    await waitFor(() => handled === 1, 'the first attempt');
    await runner.stop(5_000);
    const contract = broker.catalog.byName('ReadyForValidation');
    const other = await startConsumer({
      js: broker.js, stream: contract.stream!, durable, filterSubject: contract.subject, maxDeliver: 2, backoffMs: [50], ...settings,
      handler: async () => { handled++; },
      logger: silentLogger(), deadLetter: dlq, catalog: broker.catalog, fetchExpiresMs: 1_000,
    });
    runners.push(other);
    // Within waitFor's 10 s, far less than the 60 s ack wait: the message was handed back, not abandoned.
    await waitFor(() => handled === 2, 'the redelivery to the other instance');
  });
});
