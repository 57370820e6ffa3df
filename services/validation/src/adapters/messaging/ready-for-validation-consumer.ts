/**
 * The durable JetStream consumer of ReadyForValidation, shared by every instance of the
 * validation service (one durable name: JetStream hands each message to one instance at a time).
 *
 * Delivery outcomes come from the platform runner (adapters/messaging/consumer-runner.ts):
 * contract violations and invalid JSON → dead letter at once; the report service unavailable
 * (SubmissionUnavailableError, the shared vocabulary's UnavailableError) or the database
 * unreachable → the message is held and retried in place for up to `outageHorizonMs`
 * (validation.outage-retry-horizon) without using up deliveries; any other thrown error → nak with
 * `backoffMs`, dead letter after `maxDeliver` deliveries; a crash → redelivered after the ack wait.
 * Long validations send progress acks (ctx.working()). The consumer's settings are
 * `readyForValidationConsumer` below, shared with the provisioning Job.
 */
import type { JetStreamClient, JetStreamManager } from '@nats-io/jetstream';
import type { Catalog } from '#contracts/catalog.js';
import { DeadLetterQueue } from '#adapters/messaging/dead-letter.js';
import { startConsumer, type ConsumerRunner } from '#adapters/messaging/consumer-runner.js';
import { ensureConsumer, runnerConsumerSpec, type ProvisionAction } from '#adapters/messaging/provisioning.js';
import type { Logger } from '#adapters/observability/logger.js';
import type { ServiceMetrics } from '#adapters/observability/metrics.js';
import type { ReadyForValidationEvent, ValidationFlow } from '../../application/validation-flow/index.js';

export const READY_FOR_VALIDATION_DURABLE = 'validation-ready-for-validation';

/** What decides the durable consumer's settings (everything else comes from the catalog). */
export interface ReadyForValidationConsumerSettings {
  /** validation.max-deliveries */
  readonly maxDeliver: number;
  /** Delays before redeliveries after failures; default 2 s, 10 s, 30 s, 60 s. */
  readonly backoffMs?: number[];
  readonly ackWaitMs?: number;
  readonly durable?: string;
}

/**
 * THE definition of the ReadyForValidation durable consumer: the service consumes with it and the
 * provisioning Job (cli/provision-jetstream.ts) creates it from it, so the two cannot disagree.
 */
export function readyForValidationConsumer(catalog: Catalog, settings: ReadyForValidationConsumerSettings) {
  const contract = catalog.byName('ReadyForValidation');
  const { stream } = contract;
  if (stream === undefined) throw new Error('ReadyForValidation has no stream in the catalog');
  return {
    stream,
    durable: settings.durable ?? READY_FOR_VALIDATION_DURABLE,
    filterSubject: contract.subject,
    maxDeliver: settings.maxDeliver,
    backoffMs: settings.backoffMs ?? [2_000, 10_000, 30_000, 60_000],
    ackWaitMs: settings.ackWaitMs ?? 60_000,
  };
}

/** Creates the durable consumer, or updates the settings that differ (never its position): at service start and in the provisioning Job. */
export function ensureReadyForValidationConsumer(
  jsm: JetStreamManager, catalog: Catalog, settings: ReadyForValidationConsumerSettings,
): Promise<ProvisionAction> {
  const definition = readyForValidationConsumer(catalog, settings);
  return ensureConsumer(jsm, definition.stream, runnerConsumerSpec(definition));
}

/**
 * validation.consumer-concurrency when it is 0: twelve submissions in flight per validation worker.
 * A submission spends longer outside its worker (report-service call, the commit and its gathering
 * wait, the ack) than in it, so with one in flight per worker the workers wait. Measured with
 * bench:flow (one instance, two workers, 2 cores), before the flow store gathered commits: 4 in
 * flight kept the machine 85 % busy, 8 93 %, 12 94 %. With the gathering (pg-flow-store.ts), whose
 * commits hold up to two groups of slots (one gathering, one being written; groupLimitFor): 8 in
 * flight 0.65 of engine-only; 16 0.68–0.74 (nine runs) with the machine 91–94 % busy; 24 0.72–0.74
 * (five runs) with it 93–96 % busy.
 */
export function defaultConsumerConcurrency(workers: number): number {
  return Math.min(256, 12 * Math.max(1, workers));
}

/** The concurrency an instance runs with: validation.consumer-concurrency, or the default for its workers when it is 0. */
export function consumerConcurrency(setting: number, workers: number): number {
  return setting > 0 ? setting : defaultConsumerConcurrency(workers);
}

export interface ReadyForValidationConsumerOptions extends ReadyForValidationConsumerSettings {
  readonly js: JetStreamClient;
  readonly catalog: Catalog;
  readonly flow: Pick<ValidationFlow, 'handle'>;
  readonly logger: Logger;
  /** validation.consumer-concurrency */
  readonly concurrency: number;
  readonly fetchExpiresMs?: number;
  /** Delivery outcomes, dead letters and queue lag of the consumer (see consumer-runner.ts). */
  readonly metrics?: ServiceMetrics;
  /** Awaited before each fetch: resolves when the validation workers have room (EngineHost.whenRoom). */
  readonly beforeFetch?: () => Promise<void>;
  /** nats.provision: create or update the durable consumer (default true); false where the provisioning Job owns it. */
  readonly provision?: boolean;
  /** validation.outage-retry-horizon: how long a message is held while a dependency is unavailable (default 1 h). */
  readonly outageHorizonMs?: number;
  /** Delays between in-place retries during an outage (validation.outage-retry-max-delay caps them; default 1 s … 30 s). */
  readonly outageBackoff?: { initialMs?: number; maxMs?: number };
}

export async function startReadyForValidationConsumer(options: ReadyForValidationConsumerOptions): Promise<ConsumerRunner> {
  const definition = readyForValidationConsumer(options.catalog, options);
  const jsm = await options.js.jetstreamManager();
  const log = options.logger.child({ component: 'ready-for-validation' });
  // The runner ensures the durable consumer from this definition (runnerConsumerSpec, as
  // ensureReadyForValidationConsumer does for the Job) and re-creates it if it is deleted while running.
  return startConsumer<ReadyForValidationEvent>({
    js: options.js,
    ...definition,
    catalog: options.catalog,
    deadLetter: new DeadLetterQueue(options.js, jsm, options.catalog),
    concurrency: options.concurrency,
    fetchExpiresMs: options.fetchExpiresMs,
    logger: options.logger,
    metrics: options.metrics,
    beforeFetch: options.beforeFetch,
    provision: options.provision,
    outageHorizonMs: options.outageHorizonMs,
    outageBackoff: options.outageBackoff,
    handler: async (event, ctx) => {
      // The report service not answering (SubmissionUnavailableError, an UnavailableError) holds the
      // message until it is back: the submission is fine.
      // The stored message is the event: its redeliveries are answered once, another event always.
      const result = await options.flow.handle(event, { working: ctx.working, headers: ctx.headers, eventId: ctx.storedMessageId });
      log.info({
        facilityId: result.key.facilityId, reportId: result.key.reportId, valid: result.valid, issues: result.counts.total,
        resources: result.resourceCount, announced: result.announced, delivery: ctx.deliveryCount,
      }, 'submission validated');
    },
  });
}
