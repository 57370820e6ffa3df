/**
 * Provisions the platform's JetStream objects with the code the services run at start-up: every
 * stream of contracts/catalog.ts (the dead-letter stream included) and the validation service's
 * durable ReadyForValidation consumer. Creates what is missing, updates what differs, never deletes;
 * a second run changes nothing. The Kubernetes Job deploy/base/validation/provision-job.yaml runs it
 * with the validation image and configuration:
 *
 *     node dist/services/validation/src/cli/provision-jetstream.js
 *     npx tsx services/validation/src/cli/provision-jetstream.ts
 *
 * Configuration as the validation service reads it: nats.servers, nats.user, nats.password,
 * nats.token, nats.namespace (NATS_SERVERS, NATS_USER, NATS_PASSWORD, NATS_TOKEN, NATS_NAMESPACE),
 * nats.stream-replicas (NATS_STREAM_REPLICAS: copies of every stream, 3 on the production cluster; an
 * existing stream is scaled to it) and validation.max-deliveries (VALIDATION_MAX_DELIVERIES); other
 * variables of the ConfigMap are ignored.
 * Prints one JSON line with what was done to each stream and the consumer. Exit code 0 when done,
 * 78 for a bad configuration value, 1 otherwise (NATS unreachable, a change refused, unknown arguments).
 *
 * `--subject-root <root> --stream-suffix <suffix>` provision an isolated copy of the catalog (tests;
 * the services use the catalog of their nats.namespace, so never set them for a real installation).
 */
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import type { JetStreamManager } from '@nats-io/jetstream';
import { exitOnConfigError, loadConfig, loggingSettings, natsSettings } from '#adapters/config/index.js';
import { connectNats } from '#adapters/messaging/connection.js';
import { provisionCatalog, type ProvisionAction } from '#adapters/messaging/provisioning.js';
import { createLogger } from '#adapters/observability/logger.js';
import { buildCatalog, catalogForNamespace, type Catalog } from '#contracts/catalog.js';
import { ensureReadyForValidationConsumer, readyForValidationConsumer } from '../adapters/messaging/ready-for-validation-consumer.js';
import { validationSchema } from '../config.js';

/** The validation service's own declarations of the settings this tool reads (same names, defaults and checks). */
export const provisioningSchema = {
  ...natsSettings(),
  validationMaxDeliveries: validationSchema.validationMaxDeliveries,
  ...loggingSettings(),
};

export interface ProvisioningReport {
  streams: Record<string, ProvisionAction>;
  /** `<stream>/<durable>` → action. */
  consumers: Record<string, ProvisionAction>;
}

/** Every stream of the catalog (with `replicas` copies each), then the durable consumer (its stream must exist first). */
export async function provisionJetStream(jsm: JetStreamManager, catalog: Catalog, maxDeliver: number, replicas?: number): Promise<ProvisioningReport> {
  const streams = await provisionCatalog(jsm, catalog, { replicas });
  const consumer = readyForValidationConsumer(catalog, { maxDeliver });
  const action = await ensureReadyForValidationConsumer(jsm, catalog, { maxDeliver });
  return { streams, consumers: { [`${consumer.stream}/${consumer.durable}`]: action } };
}

async function main(args: string[]): Promise<void> {
  const config = exitOnConfigError(() => loadConfig(provisioningSchema), createLogger('jetstream-provisioning'));
  const logger = createLogger('jetstream-provisioning', config.logLevel);
  const { values } = parseArgs({ args, options: { 'subject-root': { type: 'string' }, 'stream-suffix': { type: 'string' } }, strict: true, allowPositionals: false });
  const catalog = values['subject-root'] !== undefined || values['stream-suffix'] !== undefined
    ? buildCatalog({ subjectRoot: values['subject-root'], streamSuffix: values['stream-suffix'], streamLimits: config.natsStreamLimits })
    : catalogForNamespace(config.natsNamespace, config.natsStreamLimits);

  const nats = await connectNats({
    servers: [...config.natsServers], user: config.natsUser, pass: config.natsPassword, token: config.natsToken,
    name: 'jetstream-provisioning', logger,
  });
  try {
    const report = await provisionJetStream(nats.jsm, catalog, config.validationMaxDeliveries, config.natsStreamReplicas);
    // The outcome, also for `kubectl logs job/jetstream-provisioning`.
    process.stdout.write(`${JSON.stringify(report)}\n`);
  } finally {
    await nats.close();
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main(process.argv.slice(2)).catch((error: unknown) => {
    process.stderr.write(`JetStream provisioning failed: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  });
}
