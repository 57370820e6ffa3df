/**
 * The NATS connection of a service: reconnects forever (a broker restart must never take a
 * service down), logs every status change, and exposes JetStream and its manager.
 */
import { jetstream, jetstreamManager, type JetStreamClient, type JetStreamManager } from '@nats-io/jetstream';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import type { Logger } from '../observability/logger.js';

export interface NatsConnectionOptions {
  /** 'nats://127.0.0.1:4222' or several, comma-separated or as an array. */
  servers: string | string[];
  user?: string;
  pass?: string;
  token?: string;
  /** Client name shown by the server (monitoring, `nats server report connections`). */
  name: string;
  logger: Logger;
  /** Delay between reconnect attempts; default 2 s. */
  reconnectTimeWaitMs?: number;
  /** Timeout of the first connection attempt; default 5 s. */
  connectTimeoutMs?: number;
}

/**
 * The inbox prefix of a connection that authenticates as `user`: `_INBOX_<user>` instead of the
 * shared `_INBOX`. Replies to its requests, JetStream API answers and pulled messages arrive there,
 * so the NATS server can let each user subscribe to its own inboxes only (deploy/nats-accounts):
 * no other client can read the signed client assertions or anything else it is answered.
 */
export function inboxPrefixFor(user: string | undefined): string | undefined {
  return user ? `_INBOX_${user}` : undefined;
}

export interface NatsHandle {
  nc: NatsConnection;
  js: JetStreamClient;
  jsm: JetStreamManager;
  /** Drains subscriptions and pending publishes, then closes. Safe to call twice. */
  close(): Promise<void>;
}

export async function connectNats(options: NatsConnectionOptions): Promise<NatsHandle> {
  const servers = Array.isArray(options.servers) ? options.servers : options.servers.split(',').map((s) => s.trim()).filter(Boolean);
  const nc = await connect({
    servers,
    name: options.name,
    user: options.user,
    pass: options.pass,
    token: options.token,
    ...(inboxPrefixFor(options.user) ? { inboxPrefix: inboxPrefixFor(options.user) } : {}),
    reconnect: true,
    maxReconnectAttempts: -1,
    reconnectTimeWait: options.reconnectTimeWaitMs ?? 2_000,
    timeout: options.connectTimeoutMs ?? 5_000,
    // Without this the client builds an Error (a captured stack) for every request and every
    // subscription timer, to have the caller's stack if it fails: with a JetStream publish per
    // announcement and a pull request per fetch, that was ~4 % of the validation service's main
    // thread in bench:flow's profile. A failed request is still reported with its subject and
    // cause, and our logs name the operation that made it.
    noAsyncTraces: true,
  });
  const log = options.logger.child({ component: 'nats', connection: options.name });
  log.info({ server: nc.getServer() }, 'connected to NATS');
  void watchStatus(nc, log);

  const js = jetstream(nc);
  const jsm = await jetstreamManager(nc);
  let closing: Promise<void> | undefined;
  return {
    nc, js, jsm,
    close() {
      closing ??= (async () => {
        if (nc.isClosed()) return;
        try {
          await nc.drain();
        } catch (err) {
          // Drain fails if the connection is already closing; close is what we want anyway.
          log.warn({ err }, 'drain failed, closing');
          await nc.close();
        }
        log.info('NATS connection closed');
      })();
      return closing;
    },
  };
}

async function watchStatus(nc: NatsConnection, log: Logger): Promise<void> {
  for await (const s of nc.status()) {
    switch (s.type) {
      case 'disconnect': log.warn({ server: s.server }, 'NATS disconnected'); break;
      case 'reconnecting': log.info('NATS reconnecting'); break;
      case 'reconnect': log.info({ server: s.server }, 'NATS reconnected'); break;
      case 'error': log.error({ err: s.error }, 'NATS error'); break;
      case 'staleConnection': log.warn('NATS connection stale'); break;
      case 'slowConsumer': log.warn({ sub: s.sub.getSubject() }, 'NATS slow consumer'); break;
      default: log.debug({ status: s.type }, 'NATS status');
    }
  }
}

/**
 * Readiness: the connection is open and a round trip to the server succeeds within the timeout.
 * (A reconnecting client is not ready: requests would wait or fail.)
 */
export async function isNatsReady(nc: NatsConnection, timeoutMs = 2_000): Promise<boolean> {
  if (nc.isClosed() || nc.isDraining()) return false;
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      nc.rtt(),
      new Promise((_, reject) => { timer = setTimeout(() => reject(new Error('timeout')), timeoutMs); }),
    ]);
    return true;
  } catch {
    return false;
  } finally {
    clearTimeout(timer);
  }
}
