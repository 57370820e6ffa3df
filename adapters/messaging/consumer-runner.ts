/**
 * The durable pull-consumer runner every service uses to consume events and commands.
 *
 * Guarantees:
 * - at-least-once: a message is acked only after its handler resolved; handlers must be idempotent
 *   (ctx.msgId and ctx.streamSequence help);
 * - bounded concurrency: at most `concurrency` handlers run at once (the runner never fetches more
 *   messages than it has free slots);
 * - nothing is silently dropped: a message that cannot be processed is copied to the dead-letter
 *   stream (see dead-letter.ts) BEFORE the original is terminated; if that copy fails, the original
 *   is nak'ed and retried instead;
 * - graceful stop: stop() stops fetching, waits (bounded) for in-flight handlers, then resolves;
 * - self-healing: if the durable consumer is deleted, it is re-created (from the start of the
 *   stream, like any new consumer: handlers are idempotent, so this costs time, not correctness).
 *
 * What happens to a delivery:
 * | situation                                        | outcome                                        |
 * |--------------------------------------------------|------------------------------------------------|
 * | handler resolves                                 | ack                                            |
 * | handler throws PermanentError                    | dead letter now, term original                 |
 * | handler throws anything else, delivery < max     | nak with backoffMs[delivery-1] (last repeats)  |
 * | handler throws anything else, delivery = max     | dead letter (error, deliveries), term original |
 * | body is not JSON / fails the subject's contract  | dead letter now, term original                 |
 * | subject has no contract in the catalog           | dead letter now, term original                 |
 * | delivery > max (previous attempt crashed/timed   | dead letter without calling the handler        |
 * |   out: the server allows max+1 deliveries)       |                                                |
 *
 * The server-side consumer gets max_deliver = maxDeliver + 1 for that last row: if a process dies
 * during the final attempt, the message still comes back once more and is dead-lettered instead of
 * being abandoned by the server. term() is used without a reason: nats-server 2.9 ignores
 * term(reason) and would redeliver.
 */
import type { JetStreamClient, JsMsg } from '@nats-io/jetstream';
import { catalog as defaultCatalog, type Catalog } from '../../contracts/catalog.js';
import { validateAgainst } from '../../contracts/validate.js';
import type { Logger } from '../observability/logger.js';
import type { DeadLetterQueue, FailedDelivery } from './dead-letter.js';
import { PermanentError } from './errors.js';
import { headersToRecord, MSG_ID_HEADER, TRACEPARENT_HEADER } from './headers.js';
import { ensureConsumer } from './provisioning.js';

export interface MessageContext {
  subject: string;
  /** Catalog name of the message, e.g. 'ReadyForValidation'. */
  messageName: string;
  /** The producer's Nats-Msg-Id, if it set one (the natural idempotency key). */
  msgId: string | undefined;
  /** 1 on the first delivery. */
  deliveryCount: number;
  streamSequence: number;
  headers: Record<string, string>;
  traceparent: string | undefined;
  /** Tells the server the handler is still working (+WPI), restarting the ack-wait timer. Call it more often than ackWait during long work. */
  working(): void;
}

export type MessageHandler<T = any> = (payload: T, ctx: MessageContext) => Promise<void>;

export interface ConsumerRunnerOptions<T = any> {
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
  /** Long-poll duration of one fetch; default 5 s (minimum 1 s). stop() does not wait for it. */
  fetchExpiresMs?: number;
  /** How long stop() waits for in-flight handlers by default; default 30 s. */
  stopTimeoutMs?: number;
}

export interface ConsumerRunner {
  /** Stops fetching, waits for in-flight handlers (up to timeoutMs), resolves. Idempotent. */
  stop(timeoutMs?: number): Promise<void>;
  /** Handlers running right now. */
  readonly inFlight: number;
}

type Outcome = 'acked' | 'retry' | 'dead-lettered';

export async function startConsumer<T = any>(options: ConsumerRunnerOptions<T>): Promise<ConsumerRunner> {
  const concurrency = Math.max(1, options.concurrency ?? 1);
  const maxDeliver = Math.max(1, options.maxDeliver ?? 5);
  const backoffMs = options.backoffMs && options.backoffMs.length > 0 ? options.backoffMs : [1_000, 5_000, 30_000];
  const ackWaitMs = options.ackWaitMs ?? 30_000;
  const fetchExpiresMs = Math.max(1_000, options.fetchExpiresMs ?? 5_000);
  const catalog = options.catalog ?? defaultCatalog;
  const { js, stream, durable, handler, deadLetter } = options;
  const log = options.logger.child({ component: 'consumer', stream, durable });

  const provision = options.provision ?? true;
  const provisionConsumer = async () => {
    const jsm = await js.jetstreamManager();
    await ensureConsumer(jsm, stream, {
      durable, filterSubject: options.filterSubject, maxDeliver: maxDeliver + 1, ackWaitMs, maxAckPending: options.maxAckPending,
    });
  };
  if (provision) await provisionConsumer();
  const consumer = await js.consumers.get(stream, durable);

  let stopping = false;
  let inFlight = 0;
  let slotFreed: (() => void) | undefined;
  let allDone: (() => void) | undefined;
  let currentBatch: { stop(): void } | undefined;
  let loopAbort: (() => void) | undefined;

  const delayFor = (deliveryCount: number) => backoffMs[Math.min(deliveryCount, backoffMs.length) - 1]!;

  async function sendToDeadLetter(m: JsMsg, kind: string, reason: string): Promise<Outcome> {
    const failed: FailedDelivery = {
      subject: m.subject, data: m.data, headers: m.headers, stream: m.info.stream,
      streamSequence: m.info.streamSequence, deliveryCount: m.info.deliveryCount, consumer: durable,
    };
    try {
      const dl = await deadLetter.deadLetter(failed, reason);
      m.term();
      // The reason may quote payload content (patient data): full text only at debug.
      log.warn({ kind, subject: m.subject, seq: m.info.streamSequence, deliveries: m.info.deliveryCount, deadLetterSeq: dl.seq }, 'message dead-lettered');
      log.debug({ reason, seq: m.info.streamSequence }, 'dead-letter reason');
      return 'dead-lettered';
    } catch (err) {
      // Never drop: without a stored dead letter the original must come back.
      log.error({ err, subject: m.subject, seq: m.info.streamSequence }, 'could not dead-letter message; will retry it');
      m.nak(delayFor(m.info.deliveryCount));
      return 'retry';
    }
  }

  async function handleDelivery(m: JsMsg): Promise<Outcome> {
    const deliveryCount = m.info.deliveryCount;
    if (deliveryCount > maxDeliver) {
      return sendToDeadLetter(m, 'no-outcome', `no outcome after ${maxDeliver} deliveries (the last attempt crashed or timed out); delivery ${deliveryCount}`);
    }
    const contract = catalog.bySubject(m.subject);
    if (!contract) return sendToDeadLetter(m, 'unknown-subject', `no contract in the catalog for subject ${m.subject}`);
    let payload: unknown;
    try {
      payload = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(m.data));
    } catch (err) {
      return sendToDeadLetter(m, 'invalid-json', `invalid JSON: ${(err as Error).message}`);
    }
    const check = validateAgainst(contract.payload.schema, payload);
    if (!check.ok) return sendToDeadLetter(m, 'contract-violation', `contract violation (${contract.name} ${contract.version}): ${check.errors}`);

    const headers = headersToRecord(m.headers);
    const ctx: MessageContext = {
      subject: m.subject, messageName: contract.name, msgId: headers[MSG_ID_HEADER], deliveryCount,
      streamSequence: m.info.streamSequence, headers, traceparent: headers[TRACEPARENT_HEADER], working: () => m.working(),
    };
    try {
      await handler(payload as T, ctx);
    } catch (err) {
      const e = err instanceof Error ? err : new Error(String(err));
      if (e instanceof PermanentError) return sendToDeadLetter(m, 'permanent-error', `permanent error: ${e.message}`);
      if (deliveryCount >= maxDeliver) {
        return sendToDeadLetter(m, 'max-deliveries', `handler failed on all ${deliveryCount} deliveries; last error: ${e.name}: ${e.message}`);
      }
      const delay = delayFor(deliveryCount);
      log.warn({ errName: e.name, subject: m.subject, seq: m.info.streamSequence, deliveryCount, retryInMs: delay }, 'handler failed; will retry');
      log.debug({ err: e, seq: m.info.streamSequence }, 'handler error');
      m.nak(delay);
      return 'retry';
    }
    m.ack();
    return 'acked';
  }

  function dispatch(m: JsMsg): void {
    inFlight++;
    handleDelivery(m)
      .catch((err: unknown) => {
        // handleDelivery() handles every expected failure; this is a bug. Let the server redeliver.
        log.error({ err, seq: m.info.streamSequence }, 'unexpected failure while processing a message');
        m.nak(delayFor(m.info.deliveryCount));
      })
      .finally(() => {
        inFlight--;
        slotFreed?.();
        if (inFlight === 0) allDone?.();
      });
  }

  const waitForSlot = () => new Promise<void>((resolve) => {
    if (inFlight < concurrency || stopping) return resolve();
    slotFreed = () => { slotFreed = undefined; resolve(); };
  });
  const pause = (ms: number) => new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, ms);
    loopAbort = () => { clearTimeout(timer); resolve(); };
  });

  const loop = (async () => {
    while (!stopping) {
      await waitForSlot();
      if (stopping) break;
      try {
        const batch = await consumer.fetch({ max_messages: concurrency - inFlight, expires: fetchExpiresMs });
        currentBatch = batch;
        if (stopping) batch.stop(); // stop() ran while the pull request was being set up
        for await (const m of batch) {
          // Fetched after stop() was called: hand it straight back so another instance takes it.
          if (stopping) { m.nak(); continue; }
          dispatch(m);
        }
      } catch (err) {
        if (stopping) break;
        log.error({ err }, 'fetch failed; retrying in 1 s');
        await pause(1_000);
        // The durable consumer may have been deleted (the client reports "409 consumer deleted",
        // then "heartbeats missed"): ensureConsumer is idempotent, so just make sure it exists.
        if (provision && !stopping) {
          await provisionConsumer().catch((e: unknown) => log.error({ err: e }, 'could not ensure the consumer exists'));
        }
      } finally {
        currentBatch = undefined;
      }
    }
  })();

  let stopped: Promise<void> | undefined;
  return {
    get inFlight() { return inFlight; },
    stop(timeoutMs = options.stopTimeoutMs ?? 30_000) {
      stopped ??= (async () => {
        stopping = true;
        slotFreed?.();
        loopAbort?.();
        currentBatch?.stop();
        await loop;
        if (inFlight > 0) {
          let timer: NodeJS.Timeout | undefined;
          const drained = new Promise<boolean>((resolve) => { allDone = () => resolve(true); });
          const timedOut = new Promise<boolean>((resolve) => { timer = setTimeout(() => resolve(false), timeoutMs); });
          const ok = await Promise.race([drained, timedOut]);
          clearTimeout(timer);
          if (!ok) log.warn({ inFlight }, 'stop timed out with handlers still running; their messages will be redelivered');
        }
        log.info('consumer stopped');
      })();
      return stopped;
    },
  };
}
