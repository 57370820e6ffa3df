import { connect, type NatsConnection } from '@nats-io/transport-node';
import { inboxPrefixFor } from '#adapters/messaging/connection.js';
import type { Logger } from '#adapters/observability/logger.js';

/**
 * The NATS connection the terminology commands travel on (`terminology.transport` nats). Plain data:
 * the settings are cloned into every validation worker thread, and each thread opens one connection
 * of its own on its first remote question (a NatsConnection cannot cross threads). The service's own
 * NATS credentials (nats.user / nats.password / nats.token), never a caller's; replies arrive on the
 * user's own inbox prefix, which the NATS accounts let only that user read.
 */
export interface NatsTerminologyConnectionSettings {
  servers: string[];
  user?: string;
  pass?: string;
  token?: string;
  /** nats.namespace: decides the subjects (catalogForNamespace). */
  namespace?: string;
}

const connections = new Map<string, Promise<NatsConnection>>();

/** This thread's connection for the settings, opened once; a failed attempt is forgotten so the next question tries again. */
export function natsTerminologyConnection(settings: NatsTerminologyConnectionSettings, logger: Logger): Promise<NatsConnection> {
  const key = JSON.stringify([settings.servers, settings.user, settings.pass, settings.token]);
  let connection = connections.get(key);
  if (!connection) {
    connection = connect({
      servers: settings.servers,
      name: 'validation-terminology',
      user: settings.user, pass: settings.pass, token: settings.token,
      ...(inboxPrefixFor(settings.user) ? { inboxPrefix: inboxPrefixFor(settings.user) } : {}),
      reconnect: true, maxReconnectAttempts: -1, reconnectTimeWait: 2_000, timeout: 5_000,
    });
    connections.set(key, connection);
    connection.then(
      (nc) => logger.info({ server: nc.getServer() }, 'terminology: connected to NATS'),
      (error: unknown) => {
        connections.delete(key);
        logger.warn({ err: error instanceof Error ? error.message : String(error) }, 'terminology: cannot connect to NATS');
      },
    );
  }
  return connection;
}

/** Closes this thread's terminology connections (tests; a worker thread simply ends). */
export async function closeNatsTerminologyConnections(): Promise<void> {
  const open = [...connections.values()];
  connections.clear();
  await Promise.allSettled(open.map(async (connection) => (await connection).drain()));
}
