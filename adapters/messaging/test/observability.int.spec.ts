import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import type { Counter, Gauge, Histogram } from 'prom-client';
import { VALID } from '#contracts/test/fixtures.js';
import { createLogger } from '../../observability/logger.js';
import { createMetrics, type ServiceMetrics } from '../../observability/metrics.js';
import { currentContext, runWithContext } from '../../observability/request-context.js';
import { parseTraceparent } from '../../observability/trace-context.js';
import { createHttpClient } from '../../outbound-http/client.js';
import { startConsumer, type ConsumerRunner, type MessageHandler } from '../consumer-runner.js';
import { DeadLetterQueue } from '../dead-letter.js';
import { PermanentError, RetryableError } from '../errors.js';
import { headers as natsHeaders } from '@nats-io/transport-node';
import { JetStreamPublisher } from '../publisher.js';
import { requestQuery, serveQuery } from '../request-reply.js';
import { deferred, testBroker, waitFor, type TestBroker } from './support.js';

type LogLine = Record<string, unknown> & { msg?: string; traceId?: string };

/** A logger whose JSON lines land in `lines` (the real pino logger, with the traceId mixin). */
function capturingLogger() {
  const lines: LogLine[] = [];
  const logger = createLogger('obs-test', 'info', {}, { write: (line: string) => { lines.push(JSON.parse(line) as LogLine); } });
  return { logger, lines };
}

const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';
const TRACEPARENT = `00-${TRACE_ID}-00f067aa0ba902b7-01`;

describe('messaging: trace context and metrics', () => {
  let broker: TestBroker;
  let publisher: JetStreamPublisher;
  let dlq: DeadLetterQueue;
  let server: Server;
  let baseUrl: string;
  const received: IncomingHttpHeaders[] = [];
  const runners: ConsumerRunner[] = [];
  let durableCounter = 0;

  before(async () => {
    broker = await testBroker();
    publisher = new JetStreamPublisher(broker.js, { catalog: broker.catalog });
    dlq = new DeadLetterQueue(broker.js, broker.jsm, broker.catalog);
    // A real HTTP server standing in for the report service: records what the consumer sent.
    server = createServer((req, res) => { received.push(req.headers); res.setHeader('content-type', 'application/json'); res.end('{}'); });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  // A new durable consumer starts at the beginning of its stream: empty the streams so each test sees only its own messages.
  beforeEach(async () => { for (const s of broker.catalog.streams) await broker.jsm.streams.purge(s.name); });
  afterEach(async () => { await Promise.all(runners.splice(0).map((r) => r.stop(2_000))); received.length = 0; });
  after(async () => {
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await broker.cleanup();
  });

  async function run<T>(name: string, handler: MessageHandler<T>, extra: { logger?: ReturnType<typeof createLogger>; metrics?: ServiceMetrics; pendingPollMs?: number } = {}) {
    const contract = broker.catalog.byName(name);
    const durable = `obs-${++durableCounter}`;
    const runner = await startConsumer({
      js: broker.js, stream: contract.stream!, durable, filterSubject: contract.subject, handler,
      maxDeliver: 2, backoffMs: [50], ackWaitMs: 5_000, fetchExpiresMs: 1_000,
      logger: extra.logger ?? capturingLogger().logger, deadLetter: dlq, catalog: broker.catalog,
      metrics: extra.metrics, pendingPollMs: extra.pendingPollMs,
    });
    runners.push(runner);
    return { durable, subject: contract.subject };
  }

  /** Publishes straight through JetStream, so the message has exactly these headers (or none). */
  async function publishRaw(subject: string, payload: unknown, headers?: Record<string, string>) {
    const h = natsHeaders();
    for (const [k, v] of Object.entries(headers ?? {})) h.set(k, v);
    await broker.js.publish(subject, JSON.stringify(payload), headers ? { headers: h } : {});
  }

  it('handles a message inside its trace: log lines and the outbound HTTP call carry the trace id of its traceparent', async () => {
    const { logger, lines } = capturingLogger();
    const http = createHttpClient({ baseUrl, logger, retries: 0 });
    const seen: Array<string | undefined> = [];
    await run('ReadyForValidation', async () => {
      seen.push(currentContext()?.traceId);
      logger.info('fetching the report');
      await http.get('/report');
    }, { logger });
    await publisher.publishMessage('ReadyForValidation', VALID.ReadyForValidation, { headers: { traceparent: TRACEPARENT } });
    await waitFor(() => lines.some((l) => l.msg === 'message handling finished'), 'handling finished');

    expect(seen).to.deep.equal([TRACE_ID]);
    const sent = parseTraceparent(received[0]?.traceparent as string | undefined);
    expect(sent?.traceId, 'outbound traceparent continues the trace').to.equal(TRACE_ID);
    expect(sent?.spanId, 'with a span of its own').to.not.equal('00f067aa0ba902b7');
    const handling = lines.filter((l) => ['message handling started', 'fetching the report', 'message handling finished'].includes(l.msg ?? ''));
    expect(handling.map((l) => l.msg)).to.deep.equal(['message handling started', 'fetching the report', 'message handling finished']);
    for (const line of handling) expect(line.traceId, line.msg).to.equal(TRACE_ID);
    const finished = handling[2]!;
    expect(finished).to.include({ outcome: 'acked', deliveryCount: 1, level: 30 });
    expect(finished.seq).to.be.a('number');
    expect(finished.durationMs).to.be.a('number');
    // Info lines describe the delivery, never its content.
    expect(JSON.stringify(handling)).to.not.include(VALID.ReadyForValidation.facilityId);
  });

  it('starts a fresh trace per message when the traceparent is missing or invalid', async () => {
    const { logger, lines } = capturingLogger();
    const http = createHttpClient({ baseUrl, logger, retries: 0 });
    const seen: string[] = [];
    const { subject } = await run('ReadyForValidation', async () => {
      seen.push(currentContext()!.traceId);
      await http.get('/report');
    }, { logger });
    await publishRaw(subject, VALID.ReadyForValidation);
    await publishRaw(subject, VALID.ReadyForValidation, { traceparent: 'not-a-traceparent' });
    await waitFor(() => lines.filter((l) => l.msg === 'message handling finished').length === 2, 'both handled');

    expect(seen).to.have.length(2);
    for (const traceId of seen) expect(traceId).to.match(/^[0-9a-f]{32}$/);
    expect(seen[0]).to.not.equal(seen[1]);
    expect(received.map((h) => parseTraceparent(h.traceparent as string)?.traceId)).to.deep.equal(seen);
    const finished = lines.filter((l) => l.msg === 'message handling finished');
    expect(finished.map((l) => l.traceId)).to.deep.equal(seen);
  });

  it('counts deliveries per outcome (acked, retry, dead-lettered), dead letters per kind, and message age', async () => {
    const metrics = createMetrics('obs-test', { defaultMetrics: false });
    const { durable, subject } = await run('ReadyForValidation', async (payload: { reportTrackingId: string }, ctx) => {
      if (payload.reportTrackingId === 'permanent') throw new PermanentError('cannot ever work');
      if (payload.reportTrackingId === 'flaky' && ctx.deliveryCount === 1) throw new RetryableError('try again');
    }, { metrics });
    const deliveries = metrics.registry.getSingleMetric('messaging_deliveries_total') as Counter<string>;
    const count = async (outcome: string) => (await deliveries.get()).values.find((v) => v.labels.consumer === durable && v.labels.outcome === outcome)?.value ?? 0;
    expect(await count('acked'), 'series exist at 0 before the first message').to.equal(0);

    await publishRaw(subject, { ...VALID.ReadyForValidation, reportTrackingId: 'fine' });
    await publishRaw(subject, { ...VALID.ReadyForValidation, reportTrackingId: 'flaky' });
    await publishRaw(subject, { ...VALID.ReadyForValidation, reportTrackingId: 'permanent' });
    await publishRaw(subject, { not: 'a ReadyForValidation' });
    await waitFor(async () => (await count('acked')) === 2 && (await count('dead-lettered')) === 2, 'all outcomes');

    expect(await count('retry')).to.equal(1);
    const deadLetters = (await (metrics.registry.getSingleMetric('messaging_dead_letters_total') as Counter<string>).get()).values;
    expect(deadLetters.filter((v) => v.labels.consumer === durable).map((v) => [v.labels.kind, v.value]).sort())
      .to.deep.equal([['contract-violation', 1], ['permanent-error', 1]]);
    const age = (await (metrics.registry.getSingleMetric('messaging_message_age_seconds') as Histogram<string>).get()).values;
    const ageCount = age.find((v) => v.labels.consumer === durable && v.metricName === 'messaging_message_age_seconds_count');
    expect(ageCount?.value, 'one age observation per delivery').to.equal(5);
    const text = await metrics.registry.metrics();
    expect(text).to.include(`messaging_deliveries_total{consumer="${durable}",outcome="acked",service="obs-test"} 2`);
  });

  it('reports the queue lag (pending + unacknowledged) of the durable consumer in a gauge', async () => {
    const metrics = createMetrics('obs-test', { defaultMetrics: false });
    const release = deferred();
    const { durable, subject } = await run('ReadyForValidation', () => release.promise, { metrics, pendingPollMs: 50 });
    const gauge = metrics.registry.getSingleMetric('messaging_consumer_pending_messages') as Gauge<string>;
    const pending = async () => (await gauge.get()).values.find((v) => v.labels.consumer === durable)?.value;
    for (let i = 0; i < 3; i++) await publishRaw(subject, VALID.ReadyForValidation);
    // Concurrency 1: one delivered and unacknowledged, two waiting.
    await waitFor(async () => (await pending()) === 3, 'lag of 3');
    release.resolve();
    await waitFor(async () => (await pending()) === 0, 'lag back to 0');
  });

  it('the publisher sends a child span of the current trace, keeps a caller-given traceparent, and starts a trace outside any context', async () => {
    const { logger, lines } = capturingLogger();
    const traces: Array<string | undefined> = [];
    const { subject } = await run('ValidationComplete', async (_p, ctx) => { traces.push(ctx.traceparent); }, { logger });
    await runWithContext({ traceId: TRACE_ID, spanId: '00f067aa0ba902b7', traceFlags: '01' }, async () => {
      await publisher.publish(subject, VALID.ValidationComplete);
      await publisher.publish(subject, VALID.ValidationComplete, { headers: { traceparent: '00-11111111111111111111111111111111-2222222222222222-01' } });
    });
    await publisher.publish(subject, VALID.ValidationComplete);
    await waitFor(() => lines.filter((l) => l.msg === 'message handling finished').length === 3, 'three handled');

    const parsed = traces.map((t) => parseTraceparent(t));
    expect(parsed[0]?.traceId).to.equal(TRACE_ID);
    expect(parsed[0]?.spanId).to.not.equal('00f067aa0ba902b7');
    expect(traces[1]).to.equal('00-11111111111111111111111111111111-2222222222222222-01');
    expect(parsed[2]?.traceId).to.match(/^[0-9a-f]{32}$/).and.not.equal(TRACE_ID);
  });

  it('queries carry the trace: the responder handles the request inside the requester\'s trace', async () => {
    let responderTrace: string | undefined;
    const facility = {
      id: '9b2f3c4e-0000-4000-8000-000000000001', facilityId: 'Hospital1', facilityName: 'Hospital One', timeZone: 'America/Chicago',
      scheduledReports: { daily: [], weekly: [], monthly: ['ACH'] }, isDeleted: false,
    };
    const query = serveQuery(broker.nc, 'GetFacilityConfig', () => {
      responderTrace = currentContext()?.traceId;
      return { facility };
    }, { logger: capturingLogger().logger, catalog: broker.catalog });
    try {
      await runWithContext({ traceId: TRACE_ID }, () => requestQuery(broker.nc, 'GetFacilityConfig', { facilityId: 'Hospital1' }, { catalog: broker.catalog }));
      expect(responderTrace).to.equal(TRACE_ID);
      await requestQuery(broker.nc, 'GetFacilityConfig', { facilityId: 'Hospital1' }, { catalog: broker.catalog });
      expect(responderTrace).to.match(/^[0-9a-f]{32}$/).and.not.equal(TRACE_ID);
    } finally {
      await query.stop();
    }
  });
});
