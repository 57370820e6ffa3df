/**
 * Publishes ReadyForValidation events, as the report service does when a patient's submission is
 * ready: for operators (re-validate a patient by hand, try an installation) and for the demo.
 *
 *   npm run publish:ready -- --facility <id> --report <id> --patient <id> [--patient <id>]...
 *                            [--report-type <measure>]... [--payload-uri <uri>] [--msg-id <id>]
 *   node dist/services/validation/src/cli/publish-ready-for-validation.js --facility ... (in the image)
 *
 * NATS settings as the services read them: NATS_SERVERS, NATS_USER, NATS_PASSWORD, NATS_TOKEN and
 * NATS_NAMESPACE (publish to that installation's subjects). The payload is checked against the
 * contract before anything is sent. Each event gets a random Nats-Msg-Id unless --msg-id is given
 * (then JetStream drops a repeat within its 2-minute duplicate window; with several patients the
 * patient id is appended). Prints one JSON line per event: subject, stream, sequence, duplicate.
 * Exit code 0 when every event was stored, 2 for bad arguments, 78 for a bad setting, 1 otherwise.
 */
import { randomUUID } from 'node:crypto';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import type { JetStreamClient } from '@nats-io/jetstream';
import { exitOnConfigError, loadConfig, loggingSettings, natsSettings } from '#adapters/config/index.js';
import { connectNats } from '#adapters/messaging/connection.js';
import { JetStreamPublisher } from '#adapters/messaging/publisher.js';
import type { PublishAck } from '#adapters/messaging/publisher-port.js';
import { createLogger } from '#adapters/observability/logger.js';
import { catalogForNamespace, type Catalog } from '#contracts/catalog.js';
import type { ReadyForValidation } from '#contracts/types.js';

export const publisherSchema = { ...natsSettings(), ...loggingSettings() };

export interface ReadyForValidationRequest {
  readonly facilityId: string;
  readonly reportId: string;
  readonly patientId: string;
  readonly reportTypes?: readonly string[];
  readonly payloadUri?: string;
  readonly msgId?: string;
}

/** The README's command-line section quotes it (a test keeps them equal). */
export const USAGE = 'usage: npm run publish:ready -- --facility <id> --report <id> --patient <id> [--patient <id>]... '
  + '[--report-type <measure>]... [--payload-uri <uri>] [--msg-id <id>]';

export class UsageError extends Error {
  override readonly name = 'UsageError';
}

/** One event on the catalog's ReadyForValidation subject, checked against its contract. */
export async function publishReadyForValidation(js: JetStreamClient, catalog: Catalog, request: ReadyForValidationRequest): Promise<PublishAck & { subject: string }> {
  const contract = catalog.byName('ReadyForValidation');
  const payload: ReadyForValidation = {
    schemaVersion: contract.version,
    facilityId: request.facilityId,
    patientId: request.patientId,
    reportTrackingId: request.reportId,
    reportTypes: [...(request.reportTypes ?? [])],
    ...(request.payloadUri ? { payloadUri: request.payloadUri } : {}),
  };
  const ack = await new JetStreamPublisher(js, { catalog }).publish(contract.subject, payload, { msgId: request.msgId ?? randomUUID() });
  return { subject: contract.subject, ...ack };
}

/** The events the arguments ask for; UsageError when one is missing or unknown. */
export function parseRequests(args: string[]): ReadyForValidationRequest[] {
  let values;
  try {
    ({ values } = parseArgs({
      args, allowPositionals: false, strict: true,
      options: {
        facility: { type: 'string' }, report: { type: 'string' }, patient: { type: 'string', multiple: true },
        'report-type': { type: 'string', multiple: true }, 'payload-uri': { type: 'string' }, 'msg-id': { type: 'string' },
      },
    }));
  } catch (error) {
    throw new UsageError(`${error instanceof Error ? error.message : String(error)}\n${USAGE}`);
  }
  const { facility, report, patient: patients } = values;
  const missing = (['facility', 'report', 'patient'] as const).filter((name) => !values[name] || (Array.isArray(values[name]) && values[name].length === 0));
  if (missing.length > 0 || !facility || !report || !patients) throw new UsageError(`missing ${missing.map((m) => `--${m}`).join(', ')}\n${USAGE}`);
  if (values['payload-uri'] && patients.length > 1) throw new UsageError(`--payload-uri names one patient's submission: give one --patient\n${USAGE}`);
  return patients.map((patientId) => ({
    facilityId: facility, reportId: report, patientId,
    reportTypes: values['report-type'] ?? [],
    ...(values['payload-uri'] ? { payloadUri: values['payload-uri'] } : {}),
    ...(values['msg-id'] ? { msgId: patients.length > 1 ? `${values['msg-id']}-${patientId}` : values['msg-id'] } : {}),
  }));
}

async function main(args: string[]): Promise<void> {
  let requests: ReadyForValidationRequest[];
  try {
    requests = parseRequests(args);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    process.stderr.write(`${error.message}\n`);
    process.exitCode = 2;
    return;
  }
  const config = exitOnConfigError(() => loadConfig(publisherSchema), createLogger('publish-ready-for-validation'));
  const logger = createLogger('publish-ready-for-validation', config.logLevel === 'info' ? 'warn' : config.logLevel);
  const catalog = catalogForNamespace(config.natsNamespace, config.natsStreamLimits);
  const nats = await connectNats({
    servers: [...config.natsServers], user: config.natsUser, pass: config.natsPassword, token: config.natsToken, name: 'publish-ready-for-validation', logger,
  });
  try {
    for (const request of requests) {
      const ack = await publishReadyForValidation(nats.js, catalog, request);
      process.stdout.write(`${JSON.stringify({ facilityId: request.facilityId, reportId: request.reportId, patientId: request.patientId, ...ack })}\n`);
    }
  } finally {
    await nats.close();
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main(process.argv.slice(2)).catch((error: unknown) => {
    process.stderr.write(`Publishing failed: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  });
}
