/**
 * The durable pull-consumer runner every service uses to consume events and commands.
 *
 * Guarantees:
 * - at-least-once: a message is acked only after its handler resolved; handlers must be idempotent
 *   (ctx.msgId and ctx.streamSequence help);
 * - bounded concurrency: at most `concurrency` handlers run at once (the runner never fetches more
 *   messages than it has free slots; it fetches when at least half of them are free), and with
 *   `beforeFetch` none while what the handlers feed (e.g. the validation workers) has no room;
 * - nothing is silently dropped: a message that cannot be processed is copied to the dead-letter
 *   stream (see dead-letter.ts) BEFORE the original is terminated; if that copy fails, the original
 *   is nak'ed and retried instead;
 * - graceful stop: stop() stops fetching, waits (bounded) for in-flight handlers, then resolves;
 * - self-healing: if the durable consumer is deleted, it is re-created (from the start of the
 *   stream, like any new consumer: handlers are idempotent, so this costs time, not correctness).
 *
 * What happens to a delivery (the kinds of failure are failure-kind.ts's):
 * | situation                                        | outcome                                        |
 * |--------------------------------------------------|------------------------------------------------|
 * | handler resolves                                 | ack                                            |
 * | handler throws a data error (PermanentError)     | dead letter now, term original                 |
 * | handler throws an `unavailable` error (database, | keep the message (progress acks) and call the  |
 * |   upstream service or broker unreachable)        | handler again after a capped backoff, in place |
 * |                                                  | (no delivery is used up), for up to            |
 * |                                                  | outageHorizonMs from the first such failure;   |
 * |                                                  | then dead letter (kind `unavailable`)          |
 * | handler throws anything else, delivery < max     | nak with backoffMs[delivery-1] (last repeats)  |
 * | handler throws anything else, delivery = max     | dead letter (error, deliveries), term original |
 * | body is not JSON / fails the subject's contract  | dead letter now, term original                 |
 * | subject has no contract in the catalog           | dead letter now, term original                 |
 * | delivery > max (previous attempt crashed/timed   | dead letter without calling the handler        |
 * |   out: the server allows max+1 deliveries)       |                                                |
 *
 * Why outages are retried in place: JetStream counts every delivery against max_deliver, whatever
 * ended the previous one, and a redelivery carries no record of why the last one failed. A nak per
 * failed attempt would therefore spend the message's deliveries on a database failover or a report
 * service deploy (2 + 10 + 30 + 60 s of backoff ≈ 2 minutes with 5 deliveries) and dead-letter good
 * work. Held in place, the message keeps its delivery; only data errors, unexpected errors, crashes
 * and hand-backs spend deliveries. Costs: a held message keeps its slot (concurrency), so during an
 * outage an instance fetches nothing new (the rest waits in the stream, undelivered, which is what
 * we want); a message held by an instance that stops (deploy) or dies is handed back and that
 * redelivery does count, so restarts during a long outage each spend one delivery.
 *
 * The server-side consumer gets max_deliver = maxDeliver + 1 for that last row: if a process dies
 * during the final attempt, the message still comes back once more and is dead-lettered instead of
 * being abandoned by the server. term() is used without a reason: nats-server 2.9 ignores
 * term(reason) and would redeliver.
 *
 * Observability: each delivery is handled inside a request context carrying the trace of the
 * message's `traceparent` header (a new trace when it has none or an invalid one), so every log
 * line written while handling carries that traceId and outgoing HTTP calls, messages and outbox
 * rows continue the trace. One info line when handling starts and one when it ends (subject,
 * stream seq, delivery count, outcome, duration; never payload content). With `metrics`:
 * - `messaging_deliveries_total{consumer,outcome}`     outcome = acked | retry | dead-lettered
 * - `messaging_dead_letters_total{consumer,kind}`       kind as in the table above (permanent-error, …)
 * - `messaging_consumer_pending_messages{consumer}`     num_pending + num_ack_pending of the durable
 *                                                       consumer (queue lag), read every pendingPollMs
 * - `messaging_message_age_seconds{consumer}`           now − publish time when handling starts
 * - `messaging_dependency_retries_total{consumer}`      in-place retries after `unavailable` failures
 * - `messaging_messages_held_for_dependency{consumer}`  messages this instance holds, waiting for a dependency
 * (`consumer` is the durable name.)
 */
import type { Consumer, JetStreamClient, JsMsg } from '@nats-io/jetstream';
import { catalog as defaultCatalog, type Catalog } from '#contracts/catalog.js';
import { validateAgainst } from '#contracts/validate.js';
import type { Logger } from '../observability/logger.js';
import type { ServiceMetrics } from '../observability/metrics.js';
import { contextFromTraceparent } from '../observability/propagation.js';
import { runWithContext } from '../observability/request-context.js';
import type { DeadLetterQueue, FailedDelivery } from './dead-letter.js';
import { classifyFailure } from './failure-kind.js';
import { headersToRecord, MSG_ID_HEADER, TRACEPARENT_HEADER } from './headers.js';
import { ensureConsumer, runnerConsumerSpec } from './provisioning.js';

export interface MessageContext {
  subject: string;
  /** Catalog name of the message, e.g. 'ReadyForValidation'. */
  messageName: string;
  /** The producer's Nats-Msg-Id, if it set one (the natural idempotency key). */
  msgId: string | undefined;
  /** 1 on the first delivery. */
  deliveryCount: number;
  streamSequence: number;
  /**
   * The stored message's identity: stream, sequence and the time the stream stored it. Every
   * redelivery of one message carries the same; a message published again is another (even one a
   * re-created stream gives an old sequence number). The key of a handler that must act once per
   * message, not once per delivery.
   */
  storedMessageId: string;
  headers: Record<string, string>;
  traceparent: string | undefined;
  /** Tells the server the handler is still working (+WPI), restarting the ack-wait timer. Call it more often than ackWait during long work. */
  working(): void;
}

export type MessageHandler<T = unknown> = (payload: T, ctx: MessageContext) => Promise<void>;

export interface ConsumerRunnerOptions<T = unknown> {
  js: JetStreamClient;
  stream: string;
  durable: string;
  /** Only these subjects (wildcards allowed); all of the stream when absent. */
  filterSubject?: string;
  handler: MessageHandler<T>;
  /** Maximum handlers in flight in this process; default 1. */
  concurrency?: number;
  /** Attempts before a failing message is dead-lettered; default 5. */
  maxDeliver?: number;
  /** Delay before redelivery after failed attempt n is backoffMs[n-1] (the last value repeats); default [1 s, 5 s, 30 s]. */
  backoffMs?: number[];
  /** Server ack wait; default 30 s. Long handlers call ctx.working(). */
  ackWaitMs?: number;
  /** Server-side cap on unacked messages across all instances; default 1000. */
  maxAckPending?: number;
  logger: Logger;
  deadLetter: DeadLetterQueue;
  catalog?: Catalog;
  /** Create/update the durable consumer before starting (default true). */
  provision?: boolean;
  /**
   * Long-poll duration of one fetch; default 2 s (minimum 1 s). stop() does not wait for it. The
   * server sends an idle heartbeat every quarter of it (at least every 500 ms): a pull that lost its
   * consumer leader (a NATS server died) is given up after two missed heartbeats, not at its expiry.
   */
  fetchExpiresMs?: number;
  /** How long stop() waits for in-flight handlers by default; default 30 s. */
  stopTimeoutMs?: number;
  /** Where the delivery, dead-letter and queue-lag metrics go (see the top of this file); none when absent. */
  metrics?: ServiceMetrics;
  /** How often the pending-messages gauge is refreshed from the consumer info; default 15 s. */
  pendingPollMs?: number;
  /**
   * Backpressure from downstream: awaited before each fetch (after the free slots), so messages stay
   * in the stream, for other instances, while this one could not start on them.
   */
  beforeFetch?: () => Promise<void>;
  /**
   * How long a message is held and retried in place while a dependency is unavailable (failure-kind.ts),
   * counted from the first such failure of the delivery; then it is dead-lettered. Default 1 h.
   */
  outageHorizonMs?: number;
  /** Delays between in-place retries: initialMs, doubling up to maxMs (plus up to 20 % jitter). Default 1 s … 30 s. */
  outageBackoff?: { initialMs?: number; maxMs?: number };
}

export interface ConsumerRunner {
  /** Stops fetching, waits for in-flight handlers (up to timeoutMs), resolves. Idempotent. */
  stop(timeoutMs?: number): Promise<void>;
  /** Handlers running right now. */
  readonly inFlight: number;
}

export type DeliveryOutcome = 'acked' | 'retry' | 'dead-lettered';
type Outcome = DeliveryOutcome;

/** Message age buckets (seconds): from "handled at once" to "waited an hour behind a backlog or retries". */
const AGE_BUCKETS = [0.005, 0.025, 0.1, 0.5, 1, 5, 15, 60, 300, 900, 3600];

interface ConsumerMetrics {
  delivered(outcome: Outcome): void;
  deadLettered(kind: string): void;
  pending(count: number): void;
  age(seconds: number): void;
  dependencyRetry(): void;
  held(change: 1 | -1): void;
}

function consumerMetrics(metrics: ServiceMetrics | undefined, consumer: string): ConsumerMetrics | undefined {
  if (!metrics) return undefined;
  const deliveries = metrics.counter({
    name: 'messaging_deliveries_total', help: 'Message deliveries handled by a consumer, by outcome (acked, retry, dead-lettered)',
    labelNames: ['consumer', 'outcome'],
  });
  const deadLetters = metrics.counter({
    name: 'messaging_dead_letters_total', help: 'Messages a consumer moved to the dead-letter stream, by kind of failure',
    labelNames: ['consumer', 'kind'],
  });
  const pending = metrics.gauge({
    name: 'messaging_consumer_pending_messages', help: 'Queue lag: messages not yet delivered plus delivered but not yet acknowledged (all instances)',
    labelNames: ['consumer'],
  });
  const age = metrics.histogram({
    name: 'messaging_message_age_seconds', help: 'Time from publishing a message to the start of handling it (per delivery)',
    labelNames: ['consumer'], buckets: AGE_BUCKETS,
  });
  const dependencyRetries = metrics.counter({
    name: 'messaging_dependency_retries_total', help: 'Handler calls repeated in place because a dependency (database, upstream service, broker) was unavailable',
    labelNames: ['consumer'],
  });
  const held = metrics.gauge({
    name: 'messaging_messages_held_for_dependency', help: 'Messages this instance holds and retries in place while a dependency is unavailable',
    labelNames: ['consumer'],
  });
  // Series at 0 from the start, so rate() and dashboards see the consumer before its first message.
  for (const outcome of ['acked', 'retry', 'dead-lettered'] as const) deliveries.inc({ consumer, outcome }, 0);
  dependencyRetries.inc({ consumer }, 0);
  held.set({ consumer }, 0);
  return {
    delivered: (outcome) => deliveries.inc({ consumer, outcome }),
    deadLettered: (kind) => deadLetters.inc({ consumer, kind }),
    pending: (count) => pending.set({ consumer }, count),
    age: (seconds) => age.observe({ consumer }, seconds),
    dependencyRetry: () => dependencyRetries.inc({ consumer }),
    held: (change) => held.inc({ consumer }, change),
  };
}

/**
 * A fetch's default long poll. A cluster's elections decide how soon a consumer can resume after it
 * lost a NATS server, and then the pull it had waiting there: that pull is noticed dead after two
 * missed idle heartbeats (1 s with 2 s), and a new one asks the new leader. With 5 s (heartbeats
 * every 2.5 s) a pull sent during an election stalled up to 5 s more, plus 1 s before the next one:
 * `npm run fault:cluster` resumed up to 14.5 s after a kill under load. An idle consumer pays one
 * pull (three protocol messages) per 2 s; a busy one refills long before its pull expires.
 */
const DEFAULT_FETCH_EXPIRES_MS = 2_000;

/**
 * After a failed fetch (no consumer leader yet, a leadership change): the next 100 ms after the
 * failed one started, doubling up to 1 s while they keep failing.
 */
const FETCH_RETRY_FIRST_MS = 100;
const FETCH_RETRY_MAX_MS = 1_000;

/** The options with their defaults applied, as the runner uses them. */
interface RunnerSettings {
  readonly concurrency: number;
  readonly maxDeliver: number;
  readonly backoffMs: readonly number[];
  readonly fetchExpiresMs: number;
  /** The pull's idle heartbeat (see fetchExpiresMs). */
  readonly fetchHeartbeatMs: number;
  readonly outageHorizonMs: number;
  readonly outageInitialMs: number;
  readonly outageMaxMs: number;
  /** A held message is kept ours by progress acks, well within the ack wait. */
  readonly keepAliveMs: number;
  readonly catalog: Catalog;
  readonly provision: boolean;
}

function settingsOf<T>(options: ConsumerRunnerOptions<T>): RunnerSettings & { ackWaitMs: number } {
  const ackWaitMs = options.ackWaitMs ?? 30_000;
  const outageInitialMs = Math.max(1, options.outageBackoff?.initialMs ?? 1_000);
  const fetchExpiresMs = Math.max(1_000, options.fetchExpiresMs ?? DEFAULT_FETCH_EXPIRES_MS);
  return {
    concurrency: Math.max(1, options.concurrency ?? 1),
    maxDeliver: Math.max(1, options.maxDeliver ?? 5),
    backoffMs: options.backoffMs && options.backoffMs.length > 0 ? options.backoffMs : [1_000, 5_000, 30_000],
    ackWaitMs,
    fetchExpiresMs,
    // the client's floor is 500 ms; two missed ones end the pull (ConsumerMessages' heartbeat monitor)
    fetchHeartbeatMs: Math.max(500, Math.floor(fetchExpiresMs / 4)),
    outageHorizonMs: options.outageHorizonMs ?? 3_600_000,
    outageInitialMs,
    outageMaxMs: Math.max(outageInitialMs, options.outageBackoff?.maxMs ?? 30_000),
    keepAliveMs: Math.max(250, Math.floor(ackWaitMs / 3)),
    catalog: options.catalog ?? defaultCatalog,
    provision: options.provision ?? true,
  };
}

/** Creates (or updates) the durable consumer as the runner needs it; idempotent. */
async function provisionConsumer<T>(options: ConsumerRunnerOptions<T>, settings: RunnerSettings & { ackWaitMs: number }, log: Logger): Promise<void> {
  const jsm = await options.js.jetstreamManager();
  const action = await ensureConsumer(jsm, options.stream, runnerConsumerSpec({
    durable: options.durable, filterSubject: options.filterSubject, maxDeliver: settings.maxDeliver, ackWaitMs: settings.ackWaitMs, maxAckPending: options.maxAckPending,
  }));
  if (action !== 'unchanged') log.info({ action }, 'durable consumer provisioned');
}

/** Provisions the durable consumer (unless `provision: false`) and starts fetching. */
export async function startConsumer<T = unknown>(options: ConsumerRunnerOptions<T>): Promise<ConsumerRunner> {
  const settings = settingsOf(options);
  const log = options.logger.child({ component: 'consumer', stream: options.stream, durable: options.durable });
  const provision = () => provisionConsumer(options, settings, log);
  if (settings.provision) await provision();
  const consumer = await options.js.consumers.get(options.stream, options.durable);
  const runner = new JetStreamConsumerRunner<T>(options, settings, consumer, log, provision);
  runner.start();
  return runner;
}

/** One running durable pull consumer: the fetch loop, the handling of each delivery, stop(). */
class JetStreamConsumerRunner<T> implements ConsumerRunner {
  private readonly metrics: ConsumerMetrics | undefined;
  private stopping = false;
  private running = 0;
  private slotFreed: (() => void) | undefined;
  private allDone: (() => void) | undefined;
  private currentBatch: { stop(): void } | undefined;
  private loopAbort: (() => void) | undefined;
  /** Wakes the messages held for a dependency when stop() is called, so they are handed back at once. */
  private readonly holdWakers = new Set<() => void>();
  private loop: Promise<void> | undefined;
  private pendingTimer: NodeJS.Timeout | undefined;
  private provisioning: Promise<void> | undefined;
  private stopped: Promise<void> | undefined;
  /** A fetch costs three protocol messages (SUB of its inbox, the pull request, UNSUB), so a busy
   * runner refills when half of its slots are free, in one fetch, instead of one fetch per message. */
  private readonly refillAt: number;

  constructor(
    private readonly options: ConsumerRunnerOptions<T>,
    private readonly settings: RunnerSettings,
    private readonly consumer: Consumer,
    private readonly log: Logger,
    private readonly provision: () => Promise<void>,
  ) {
    this.metrics = consumerMetrics(options.metrics, options.durable);
    this.refillAt = Math.max(1, Math.floor(settings.concurrency / 2));
  }

  get inFlight(): number { return this.running; }

  start(): void {
    this.loop = this.fetchLoop();
    if (this.metrics) this.pollPending(this.metrics);
  }

  stop(timeoutMs = this.options.stopTimeoutMs ?? 30_000): Promise<void> {
    this.stopped ??= (async () => {
      this.stopping = true;
      clearTimeout(this.pendingTimer);
      for (const wake of [...this.holdWakers]) wake();
      this.slotFreed?.();
      this.loopAbort?.();
      this.currentBatch?.stop();
      await this.loop;
      if (this.running > 0) {
        let timer: NodeJS.Timeout | undefined;
        const drained = new Promise<boolean>((resolve) => { this.allDone = () => resolve(true); });
        const timedOut = new Promise<boolean>((resolve) => { timer = setTimeout(() => resolve(false), timeoutMs); });
        const ok = await Promise.race([drained, timedOut]);
        clearTimeout(timer);
        if (!ok) this.log.warn({ inFlight: this.running }, 'stop timed out with handlers still running; their messages will be redelivered');
      }
      this.log.info('consumer stopped');
    })();
    return this.stopped;
  }

  private delayFor(deliveryCount: number): number {
    const { backoffMs } = this.settings;
    // No delay (an immediate redelivery) if there were no entry, as a nak without a delay does.
    return backoffMs[Math.min(deliveryCount, backoffMs.length) - 1] ?? 0;
  }

  private outageDelayFor(retry: number): number {
    const { outageInitialMs, outageMaxMs } = this.settings;
    return Math.round(Math.min(outageMaxMs, outageInitialMs * 2 ** Math.min(retry - 1, 30)) * (1 + Math.random() * 0.2));
  }

  /** Waits `ms` while keeping the message ours (progress acks); returns early when stopping. */
  private async holdFor(m: JsMsg, ms: number): Promise<void> {
    const until = Date.now() + ms;
    while (!this.stopping && Date.now() < until) {
      await new Promise<void>((resolve) => {
        const wake = () => { clearTimeout(timer); this.holdWakers.delete(wake); resolve(); };
        const timer = setTimeout(wake, Math.min(this.settings.keepAliveMs, until - Date.now()));
        this.holdWakers.add(wake);
      });
      try {
        m.working();
      } catch (err) {
        this.log.debug({ err, seq: m.info.streamSequence }, 'progress ack failed while holding a message');
      }
    }
  }

  private async sendToDeadLetter(m: JsMsg, kind: string, reason: string): Promise<Outcome> {
    const failed: FailedDelivery = {
      subject: m.subject, data: m.data, headers: m.headers, stream: m.info.stream,
      streamSequence: m.info.streamSequence, deliveryCount: m.info.deliveryCount, consumer: this.options.durable,
    };
    try {
      const dl = await this.options.deadLetter.deadLetter(failed, reason);
      m.term();
      this.metrics?.deadLettered(kind);
      // The reason may quote payload content (patient data): full text only at debug.
      this.log.warn({ kind, subject: m.subject, seq: m.info.streamSequence, deliveries: m.info.deliveryCount, deadLetterSeq: dl.seq }, 'message dead-lettered');
      this.log.debug({ reason, seq: m.info.streamSequence }, 'dead-letter reason');
      return 'dead-lettered';
    } catch (err) {
      // Never drop: without a stored dead letter the original must come back.
      this.log.error({ err, subject: m.subject, seq: m.info.streamSequence }, 'could not dead-letter message; will retry it');
      m.nak(this.delayFor(m.info.deliveryCount));
      return 'retry';
    }
  }

  private async handleDelivery(m: JsMsg): Promise<Outcome> {
    const { maxDeliver, outageHorizonMs } = this.settings;
    const { log, metrics } = this;
    const deliveryCount = m.info.deliveryCount;
    if (deliveryCount > maxDeliver) {
      return this.sendToDeadLetter(m, 'no-outcome', `no outcome after ${maxDeliver} deliveries (the last attempt crashed or timed out); delivery ${deliveryCount}`);
    }
    const contract = this.settings.catalog.bySubject(m.subject);
    if (!contract) return this.sendToDeadLetter(m, 'unknown-subject', `no contract in the catalog for subject ${m.subject}`);
    let payload: unknown;
    try {
      payload = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(m.data));
    } catch (err) {
      return this.sendToDeadLetter(m, 'invalid-json', `invalid JSON: ${err instanceof Error ? err.message : String(err)}`);
    }
    const check = validateAgainst(contract.payload.schema, payload);
    if (!check.ok) return this.sendToDeadLetter(m, 'contract-violation', `contract violation (${contract.name} ${contract.version}): ${check.errors}`);

    const headers = headersToRecord(m.headers);
    const ctx: MessageContext = {
      subject: m.subject, messageName: contract.name, msgId: headers[MSG_ID_HEADER], deliveryCount,
      streamSequence: m.info.streamSequence, storedMessageId: `${m.info.stream}:${m.info.streamSequence}:${m.timestampNanos}`, headers, traceparent: headers[TRACEPARENT_HEADER], working: () => m.working(),
    };
    let outageSince: number | undefined;
    let retries = 0;
    try {
      for (;;) {
        try {
          await this.options.handler(payload as T, ctx);
          break;
        } catch (err) {
          const e = err instanceof Error ? err : new Error(String(err));
          const kind = classifyFailure(e);
          if (kind === 'data') return await this.sendToDeadLetter(m, 'permanent-error', `permanent error: ${e.message}`);
          if (kind === 'unavailable') {
            if (outageSince === undefined) {
              outageSince = Date.now();
              metrics?.held(1);
            }
            const waited = Date.now() - outageSince;
            if (waited >= outageHorizonMs) {
              return await this.sendToDeadLetter(m, 'unavailable', `a dependency was unavailable for ${Math.round(waited / 1_000)} s (the outage horizon is ${Math.round(outageHorizonMs / 1_000)} s); last error: ${e.name}: ${e.message}`);
            }
            if (!this.stopping) {
              const delay = Math.min(this.outageDelayFor(++retries), outageHorizonMs - waited);
              log.warn({ errName: e.name, subject: m.subject, seq: m.info.streamSequence, deliveryCount, retries, waitedMs: waited, retryInMs: delay },
                'a dependency is unavailable; holding the message and retrying in place');
              log.debug({ err: e, seq: m.info.streamSequence }, 'handler error');
              metrics?.dependencyRetry();
              await this.holdFor(m, delay);
              if (!this.stopping) continue;
            }
            // Stopping: hand it back to another instance now (that redelivery counts as a delivery).
            log.warn({ subject: m.subject, seq: m.info.streamSequence, deliveryCount, waitedMs: Date.now() - outageSince }, 'stopping while a dependency is unavailable; message handed back');
            m.nak();
            return 'retry';
          }
          if (deliveryCount >= maxDeliver) {
            return await this.sendToDeadLetter(m, 'max-deliveries', `handler failed on all ${deliveryCount} deliveries; last error: ${e.name}: ${e.message}`);
          }
          const delay = this.delayFor(deliveryCount);
          log.warn({ errName: e.name, subject: m.subject, seq: m.info.streamSequence, deliveryCount, retryInMs: delay }, 'handler failed; will retry');
          log.debug({ err: e, seq: m.info.streamSequence }, 'handler error');
          m.nak(delay);
          return 'retry';
        }
      }
    } finally {
      if (outageSince !== undefined) metrics?.held(-1);
    }
    if (outageSince !== undefined) log.info({ subject: m.subject, seq: m.info.streamSequence, retries, waitedMs: Date.now() - outageSince }, 'dependency back; message handled after retrying in place');
    m.ack();
    return 'acked';
  }

  /** One delivery from start to outcome, inside the message's trace: logged, timed and counted. */
  private async processDelivery(m: JsMsg): Promise<void> {
    const started = performance.now();
    const fields = { subject: m.subject, seq: m.info.streamSequence, deliveryCount: m.info.deliveryCount };
    // m.time is when the stream stored the message, i.e. its publish time.
    const ageSeconds = Math.max(0, (Date.now() - m.time.getTime()) / 1_000) || 0;
    this.metrics?.age(ageSeconds);
    this.log.info({ ...fields, ageMs: Math.round(ageSeconds * 1_000) }, 'message handling started');
    let outcome: Outcome;
    try {
      outcome = await this.handleDelivery(m);
    } catch (err) {
      // handleDelivery() handles every expected failure; this is a bug. Let the server redeliver.
      this.log.error({ err, seq: m.info.streamSequence }, 'unexpected failure while processing a message');
      m.nak(this.delayFor(m.info.deliveryCount));
      outcome = 'retry';
    }
    this.metrics?.delivered(outcome);
    this.log.info({ ...fields, outcome, durationMs: Math.round(performance.now() - started) }, 'message handling finished');
  }

  private dispatch(m: JsMsg): void {
    this.running++;
    const headers = headersToRecord(m.headers);
    runWithContext(contextFromTraceparent(headers[TRACEPARENT_HEADER]), () => this.processDelivery(m))
      .catch((err: unknown) => this.log.error({ err, seq: m.info.streamSequence }, 'unexpected failure after processing a message'))
      .finally(() => {
        this.running--;
        this.slotFreed?.();
        if (this.running === 0) this.allDone?.();
      });
  }

  private waitForSlots(): Promise<void> {
    return new Promise<void>((resolve) => {
      const ready = () => this.settings.concurrency - this.running >= this.refillAt || this.stopping;
      if (ready()) return resolve();
      this.slotFreed = () => { if (ready()) { this.slotFreed = undefined; resolve(); } };
    });
  }

  /** One provisioning at a time, beside the fetch loop. */
  private reprovision(): void {
    this.provisioning ??= this.provision()
      .catch((e: unknown) => this.log.error({ err: e }, 'could not ensure the consumer exists'))
      .finally(() => { this.provisioning = undefined; });
  }

  private pause(ms: number): Promise<void> {
    return new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, ms);
      this.loopAbort = () => { clearTimeout(timer); resolve(); };
    });
  }

  private roomDownstream(beforeFetch: () => Promise<void>): Promise<void> {
    return new Promise<void>((resolve) => {
      this.loopAbort = resolve;
      beforeFetch().then(resolve, (err: unknown) => {
        this.log.error({ err }, 'waiting for room downstream failed; fetching anyway');
        resolve();
      });
    });
  }

  private async fetchLoop(): Promise<void> {
    let failures = 0;
    while (!this.stopping) {
      await this.waitForSlots();
      if (this.stopping) break;
      if (this.options.beforeFetch) {
        await this.roomDownstream(this.options.beforeFetch);
        if (this.stopping) break;
      }
      const fetchedAt = Date.now();
      try {
        const batch = await this.consumer.fetch({
          max_messages: this.settings.concurrency - this.running, expires: this.settings.fetchExpiresMs, idle_heartbeat: this.settings.fetchHeartbeatMs,
        });
        this.currentBatch = batch;
        if (this.stopping) batch.stop(); // stop() ran while the pull request was being set up
        for await (const m of batch) {
          // Fetched after stop() was called: hand it straight back so another instance takes it.
          if (this.stopping) { m.nak(); continue; }
          this.dispatch(m);
        }
        failures = 0;
      } catch (err) {
        if (this.stopping) break;
        failures += 1;
        // soon after a leader change (the cluster answers again within a few hundred ms of an election),
        // less often while the failures go on (no leader yet, the connection down); a pull that failed
        // slowly (two missed heartbeats) has waited already
        const retryMs = Math.max(0, Math.min(FETCH_RETRY_MAX_MS, FETCH_RETRY_FIRST_MS * 2 ** Math.min(failures - 1, 10)) - (Date.now() - fetchedAt));
        this.log.error({ err, retryMs }, 'fetch failed; retrying');
        await this.pause(retryMs);
        // The durable consumer may have been deleted (the client reports "409 consumer deleted",
        // then "heartbeats missed"): ensureConsumer is idempotent, so just make sure it exists. Beside
        // the fetches, not before the next one: during an election it waits for the JetStream API's
        // timeout (5 s), which held every pull back that long after the new leader was there.
        if (this.settings.provision && !this.stopping) this.reprovision();
      } finally {
        this.currentBatch = undefined;
      }
    }
  }

  /**
   * Queue lag, read from the server's consumer info. Cheap (one request per poll), and a failure only
   * leaves the gauge at its last value: observing must never disturb consuming.
   */
  private pollPending(metrics: ConsumerMetrics): void {
    this.consumer.info()
      .then((info) => metrics.pending(info.num_pending + info.num_ack_pending))
      .catch((err: unknown) => this.log.debug({ err }, 'could not read the consumer info for the pending-messages gauge'))
      .finally(() => {
        if (!this.stopping) {
          this.pendingTimer = setTimeout(() => this.pollPending(metrics), this.options.pendingPollMs ?? 15_000);
          this.pendingTimer.unref();
        }
      });
  }
}
