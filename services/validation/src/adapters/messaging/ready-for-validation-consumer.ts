/**
 * The durable JetStream consumer of ReadyForValidation, shared by every instance of the
 * validation service (one durable name: JetStream hands each message to one instance at a time).
 *
 * Delivery outcomes come from the platform runner (adapters/messaging/consumer-runner.ts):
 * contract violations and invalid JSON → dead letter at once; the report service unavailable (or
 * any other thrown error) → nak with `backoffMs`, dead letter after `maxDeliver` deliveries; a
 * crash → redelivered after the ack wait. Long validations send progress acks (ctx.working()).
 */
import type { JetStreamClient } from '@nats-io/jetstream';
import type { Catalog } from '../../../../../contracts/catalog.js';
import { DeadLetterQueue } from '../../../../../adapters/messaging/dead-letter.js';
import { startConsumer, type ConsumerRunner } from '../../../../../adapters/messaging/consumer-runner.js';
import type { Logger } from '../../../../../adapters/observability/logger.js';
import type { ServiceMetrics } from '../../../../../adapters/observability/metrics.js';
import type { ReadyForValidationEvent, ValidationFlow } from '../../application/validation-flow/index.js';

export const READY_FOR_VALIDATION_DURABLE = 'validation-ready-for-validation';

export interface ReadyForValidationConsumerOptions {
  readonly js: JetStreamClient;
  readonly catalog: Catalog;
  readonly flow: Pick<ValidationFlow, 'handle'>;
  readonly logger: Logger;
  /** validation.max-deliveries */
  readonly maxDeliver: number;
  /** validation.consumer-concurrency */
  readonly concurrency: number;
  /** Delays before redeliveries after failures; default 2 s, 10 s, 30 s, 60 s. */
  readonly backoffMs?: number[];
  readonly ackWaitMs?: number;
  readonly durable?: string;
  readonly fetchExpiresMs?: number;
  /** Delivery outcomes, dead letters and queue lag of the consumer (see consumer-runner.ts). */
  readonly metrics?: ServiceMetrics;
}

export async function startReadyForValidationConsumer(options: ReadyForValidationConsumerOptions): Promise<ConsumerRunner> {
  const contract = options.catalog.byName('ReadyForValidation');
  const jsm = await options.js.jetstreamManager();
  const log = options.logger.child({ component: 'ready-for-validation' });
  return startConsumer<ReadyForValidationEvent>({
    js: options.js,
    stream: contract.stream!,
    durable: options.durable ?? READY_FOR_VALIDATION_DURABLE,
    filterSubject: contract.subject,
    catalog: options.catalog,
    deadLetter: new DeadLetterQueue(options.js, jsm, options.catalog),
    concurrency: options.concurrency,
    maxDeliver: options.maxDeliver,
    backoffMs: options.backoffMs ?? [2_000, 10_000, 30_000, 60_000],
    ackWaitMs: options.ackWaitMs ?? 60_000,
    fetchExpiresMs: options.fetchExpiresMs,
    logger: options.logger,
    metrics: options.metrics,
    handler: async (event, ctx) => {
      const result = await options.flow.handle(event, { working: ctx.working, headers: ctx.headers });
      log.info({
        facilityId: result.key.facilityId, reportId: result.key.reportId, valid: result.valid, issues: result.counts.total,
        resources: result.resourceCount, announced: result.announced, delivery: ctx.deliveryCount,
      }, 'submission validated');
    },
  });
}
