import { expect } from 'chai';
import { VALID } from '#contracts/test/fixtures.js';
import { silentLogger } from '../../observability/logger.js';
import { startConsumer, type ConsumerRunner, type MessageContext, type MessageHandler } from '../consumer-runner.js';
import { DEAD_LETTER_HEADERS, DeadLetterQueue, REPLAYED_FROM_HEADER } from '../dead-letter.js';
import { PermanentError, RetryableError } from '../errors.js';
import { JetStreamPublisher } from '../publisher.js';
import { deferred, testBroker, waitFor, type TestBroker } from './support.js';

describe('messaging: consumer runner', () => {
  let broker: TestBroker;
  let publisher: JetStreamPublisher;
  let dlq: DeadLetterQueue;
  const runners: ConsumerRunner[] = [];
  let durableCounter = 0;

  before(async () => {
    broker = await testBroker();
    publisher = new JetStreamPublisher(broker.js, { catalog: broker.catalog });
    dlq = new DeadLetterQueue(broker.js, broker.jsm, broker.catalog);
  });
  afterEach(async () => { await Promise.all(runners.splice(0).map((r) => r.stop(2_000))); });
  after(async () => { await broker.cleanup(); });

  /** Each test consumes its own message type through its own durable, so tests do not see each other's messages. */
  async function run<T>(name: string, handler: MessageHandler<T>, extra: { concurrency?: number; maxDeliver?: number; ackWaitMs?: number } = {}) {
    const contract = broker.catalog.byName(name);
    const durable = `test-${++durableCounter}`;
    const runner = await startConsumer({
      js: broker.js, stream: contract.stream!, durable, filterSubject: contract.subject, handler,
      concurrency: extra.concurrency ?? 1, maxDeliver: extra.maxDeliver ?? 3, backoffMs: [50, 100], ackWaitMs: extra.ackWaitMs ?? 5_000,
      logger: silentLogger(), deadLetter: dlq, catalog: broker.catalog, fetchExpiresMs: 1_000,
    });
    runners.push(runner);
    return { runner, durable, stream: contract.stream!, subject: contract.subject };
  }
  const consumerIdle = async (stream: string, durable: string) => {
    const info = await broker.jsm.consumers.info(stream, durable);
    return info.num_pending === 0 && info.num_ack_pending === 0;
  };
  const deadLettersOf = (subject: string) => dlq.list({ originalSubject: subject });

  it('redelivers after a failure (at-least-once): fails once, succeeds on delivery 2, then acked', async () => {
    const seen: MessageContext[] = [];
    const { durable, stream } = await run('ReadyForValidation', async (_payload, ctx) => {
      seen.push(ctx);
      if (ctx.deliveryCount === 1) throw new RetryableError('report service unavailable');
    });
    const traceparent = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';
    await publisher.publishMessage('ReadyForValidation', VALID.ReadyForValidation, { msgId: 'rfv-1', headers: { traceparent } });
    await waitFor(() => seen.length === 2, 'second delivery');
    await waitFor(() => consumerIdle(stream, durable), 'ack');
    expect(seen.map((c) => c.deliveryCount)).to.deep.equal([1, 2]);
    expect(seen[1]!.msgId).to.equal('rfv-1');
    expect(seen[1]!.traceparent).to.equal(traceparent);
    expect(seen[1]!.messageName).to.equal('ReadyForValidation');
  });

  it('dead-letters after maxDeliver failed attempts: exactly 3 attempts, one dead letter with reason and count, original terminated', async () => {
    let attempts = 0;
    const { durable, stream, subject } = await run('ValidationComplete', async () => { attempts++; throw new Error('database down'); }, { maxDeliver: 3 });
    const ack = await publisher.publishMessage('ValidationComplete', VALID.ValidationComplete, { msgId: 'vc-1', headers: { traceparent: 'tp-1' } });
    await waitFor(async () => (await deadLettersOf(subject)).length === 1, 'dead letter');
    await waitFor(() => consumerIdle(stream, durable), 'original terminated');
    expect(attempts).to.equal(3);
    const [dl] = await deadLettersOf(subject);
    expect(dl!.reason).to.equal('handler failed on all 3 deliveries; last error: Error: database down');
    expect(dl!.deliveries).to.equal(3);
    expect(dl!.originalSubject).to.equal(subject);
    expect(dl!.originalStream).to.equal(stream);
    expect(dl!.originalStreamSequence).to.equal(ack.seq);
    expect(dl!.consumer).to.equal(durable);
    expect(dl!.deadLetterSubject).to.equal(`${broker.catalog.deadLetterPrefix}.${subject}`);
    expect(dl!.headers.traceparent).to.equal('tp-1');
    expect(dl!.headers[DEAD_LETTER_HEADERS.originalMsgId]).to.equal('vc-1');
    expect(new Date(dl!.at).toString()).to.not.equal('Invalid Date');
    expect(JSON.parse(dl!.text)).to.deep.equal(VALID.ValidationComplete);
  });

  it('dead-letters a schema violation at once, with the schema error as reason, without calling the handler', async () => {
    let calls = 0;
    const { durable, stream, subject } = await run('ReportScheduled', async () => { calls++; });
    // A producer that bypasses the publisher's validation (another language, an old version).
    await broker.js.publish(subject, JSON.stringify({ ...VALID.ReportScheduled, frequency: 'Hourly' }));
    await waitFor(async () => (await deadLettersOf(subject)).length === 1, 'dead letter');
    await waitFor(() => consumerIdle(stream, durable), 'original terminated');
    const [dl] = await deadLettersOf(subject);
    expect(calls).to.equal(0);
    expect(dl!.deliveries).to.equal(1);
    expect(dl!.reason).to.equal('contract violation (ReportScheduled 1.0.0): /frequency must be equal to one of the allowed values: "Daily", "Weekly", "Monthly"');
  });

  it('dead-letters invalid JSON with the original bytes verbatim', async () => {
    let calls = 0;
    const { durable, stream, subject } = await run('GenerateReportRequested', async () => { calls++; });
    const garbage = new Uint8Array([0x7b, 0x22, 0x61, 0xff, 0xfe, 0x00]);
    await broker.js.publish(subject, garbage);
    await waitFor(async () => (await deadLettersOf(subject)).length === 1, 'dead letter');
    await waitFor(() => consumerIdle(stream, durable), 'original terminated');
    const [dl] = await deadLettersOf(subject);
    expect(calls).to.equal(0);
    expect(dl!.reason).to.match(/^invalid JSON: /);
    expect([...dl!.data]).to.deep.equal([...garbage]);
  });

  it('dead-letters at once on PermanentError', async () => {
    let calls = 0;
    const { subject } = await run('AuditableEventOccurred', async () => { calls++; throw new PermanentError('facility does not exist'); }, { maxDeliver: 5 });
    await publisher.publishMessage('AuditableEventOccurred', VALID.AuditableEventOccurred);
    await waitFor(async () => (await deadLettersOf(subject)).length === 1, 'dead letter');
    const [dl] = await deadLettersOf(subject);
    expect(calls).to.equal(1);
    expect(dl!.deliveries).to.equal(1);
    expect(dl!.reason).to.equal('permanent error: facility does not exist');
  });

  it('replays a dead letter to its original subject, where the (fixed) consumer processes it', async () => {
    let fixed = false;
    const received: MessageContext[] = [];
    const { durable, stream, subject } = await run('ResourceEvaluated', async (_p, ctx) => {
      if (!fixed) throw new PermanentError('bug');
      received.push(ctx);
    });
    await publisher.publishMessage('ResourceEvaluated', VALID.ResourceEvaluated, { msgId: 're-1' });
    await waitFor(async () => (await deadLettersOf(subject)).length === 1, 'dead letter');
    const [dl] = await deadLettersOf(subject);
    fixed = true;
    const replay = await dlq.replay(dl!.seq, { remove: true });
    expect(replay.subject).to.equal(subject);
    await waitFor(() => received.length === 1, 'replayed message handled');
    await waitFor(() => consumerIdle(stream, durable), 'acked');
    expect(received[0]!.headers[REPLAYED_FROM_HEADER]).to.equal(String(dl!.seq));
    expect(received[0]!.headers[DEAD_LETTER_HEADERS.reason]).to.equal(undefined);
    expect(await dlq.read(dl!.seq)).to.equal(undefined);
    let missing: unknown;
    try { await dlq.replay(dl!.seq); } catch (err) { missing = err; }
    expect((missing as Error).message).to.contain(`No dead letter with sequence ${dl!.seq}`);
  });

  it('never runs more than `concurrency` handlers at once, and does reach that many', async () => {
    let running = 0;
    let maxRunning = 0;
    let done = 0;
    const gate = deferred();
    const { durable, stream } = await run('MeasureReportGenerated', async () => {
      running++;
      maxRunning = Math.max(maxRunning, running);
      await gate.promise;
      await new Promise((r) => setTimeout(r, 5));
      running--;
      done++;
    }, { concurrency: 3 });
    for (let i = 0; i < 12; i++) await publisher.publishMessage('MeasureReportGenerated', VALID.MeasureReportGenerated);
    await waitFor(() => running === 3, '3 handlers running');
    const info = await broker.jsm.consumers.info(stream, durable);
    expect(info.num_ack_pending).to.equal(3); // the runner fetched no more than it can run
    gate.resolve();
    await waitFor(() => done === 12, 'all handled');
    expect(maxRunning).to.equal(3);
  });

  it('refills when half of its slots are free, in one fetch: one finished handler of four starts nothing new, two start two', async () => {
    const gates: Array<() => void> = [];
    let started = 0;
    const { durable, stream } = await run('MeasureReportGenerated', async () => {
      started++;
      await new Promise<void>((resolve) => gates.push(resolve));
    }, { concurrency: 4 });
    for (let i = 0; i < 10; i++) await publisher.publishMessage('MeasureReportGenerated', VALID.MeasureReportGenerated);
    await waitFor(() => started === 4, '4 handlers running');
    gates.shift()!();
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(started, 'one free slot of four: no fetch yet').to.equal(4);
    expect((await broker.jsm.consumers.info(stream, durable)).num_ack_pending).to.equal(3);
    gates.shift()!();
    await waitFor(() => started === 6, 'two more handlers after the second slot freed');
    expect((await broker.jsm.consumers.info(stream, durable)).num_ack_pending).to.equal(4);
    while (started < 10 || gates.length > 0) {
      gates.shift()?.();
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    await waitFor(() => consumerIdle(stream, durable), 'all acked');
  });

  it('stop() stops fetching and waits for the in-flight handler to finish', async () => {
    const started = deferred();
    const release = deferred();
    let finished = false;
    const { runner, durable, stream } = await run('ResourceAcquired', async () => {
      started.resolve();
      await release.promise;
      finished = true;
    });
    await publisher.publishMessage('ResourceAcquired', VALID.ResourceAcquired);
    await started.promise;
    let stopResolved = false;
    const stopping = runner.stop(10_000).then(() => { stopResolved = true; });
    await new Promise((r) => setTimeout(r, 200));
    expect(stopResolved).to.equal(false);
    expect(runner.inFlight).to.equal(1);
    release.resolve();
    await stopping;
    expect(finished).to.equal(true);
    await waitFor(() => consumerIdle(stream, durable), 'acked');
    // Stopped: a new message stays pending.
    await publisher.publishMessage('ResourceAcquired', {});
    await new Promise((r) => setTimeout(r, 200));
    const info = await broker.jsm.consumers.info(stream, durable);
    expect(info.num_pending).to.equal(1);
  });

  it('progress acks (ctx.working) keep a handler longer than ackWait from being redelivered', async () => {
    const deliveries: number[] = [];
    // A new durable on ReadyForValidation also receives the first test's message; only 'long' is slow.
    const { durable, stream } = await run('ReadyForValidation', async (payload: { patientId: string }, ctx) => {
      if (payload.patientId !== 'long') return;
      deliveries.push(ctx.deliveryCount);
      for (let i = 0; i < 6; i++) {
        await new Promise((r) => setTimeout(r, 200));
        ctx.working();
      }
    }, { ackWaitMs: 600, concurrency: 2 }); // a free slot keeps a pull open, so a redelivery would be received
    await publisher.publishMessage('ReadyForValidation', { ...VALID.ReadyForValidation, patientId: 'long' });
    await waitFor(() => consumerIdle(stream, durable), 'acked after 1.2 s of work', 15_000);
    expect(deliveries).to.deep.equal([1]);
  });

  it('re-creates its durable consumer if it is deleted while running', async () => {
    const seen: string[] = [];
    const { durable, stream } = await run('ReportScheduled', async (payload: { facilityId: string }) => { seen.push(payload.facilityId); });
    await broker.jsm.consumers.delete(stream, durable);
    await publisher.publishMessage('ReportScheduled', { ...VALID.ReportScheduled, facilityId: 'after-delete' });
    await waitFor(() => seen.includes('after-delete'), 'message consumed through the re-created consumer');
    expect((await broker.jsm.consumers.info(stream, durable)).config.max_deliver).to.equal(4);
  });

  it('dead-letters without calling the handler when the last attempt never finished (crash or hang past ackWait)', async () => {
    const hang = deferred();
    let calls = 0;
    // maxDeliver 1: the server allows one extra delivery, which the runner turns into a dead letter.
    const { durable, stream, subject } = await run('ValidationComplete', async (payload: { patientId: string }) => {
      if (payload.patientId !== 'hangs') return;
      calls++;
      await hang.promise;
    }, { maxDeliver: 1, ackWaitMs: 500, concurrency: 2 });
    await publisher.publishMessage('ValidationComplete', { ...VALID.ValidationComplete, patientId: 'hangs' });
    await waitFor(async () => (await deadLettersOf(subject)).some((d) => d.consumer === durable), 'dead letter of the hung message');
    const dl = (await deadLettersOf(subject)).find((d) => d.consumer === durable)!;
    expect(dl.reason).to.equal('no outcome after 1 deliveries (the last attempt crashed or timed out); delivery 2');
    expect(calls).to.equal(1);
    hang.resolve();
    await waitFor(() => consumerIdle(stream, durable), 'nothing pending');
  });
});
