import { isIP } from 'node:net';
import KeyvRedis, { createClient, Keyv } from '@keyv/redis';
import { cacheServerAddress, type CacheServerAddressSettings } from '../config/index.js';
import type { CacheStore } from './cache-store.js';

/** Plain data (it is handed to validation worker threads by structured clone). */
export interface RedisConnectionOptions {
  host: string;
  port: number;
  username?: string;
  password?: string;
  database?: number;
  /**
   * TLS (`rediss://`), verifying the certificate against Node's trust store (extend it for a private
   * CA with NODE_EXTRA_CA_CERTS) and the host name. Default false.
   */
  tls?: boolean;
}

/** The connection of a service's configuration: `data.cache-server.url` when set, else host/port/username/database; password always `data.cache-server.password`. */
export function redisConnection(config: CacheServerAddressSettings & { cacheServerPassword?: string }): RedisConnectionOptions {
  const address = cacheServerAddress(config);
  return {
    host: address.host, port: address.port, username: address.username, password: config.cacheServerPassword,
    database: address.database, tls: address.tls,
  };
}

export interface RedisStoreOptions {
  redis: RedisConnectionOptions;
  /** Full key prefix without the trailing separator, e.g. `nhsn:validation:prod:validate-code`. */
  prefix: string;
  /** Socket connect timeout; also how long `open` waits for the first connection. */
  connectTimeoutMs: number;
  /** Called for connection-level errors (the client retries in the background). */
  onConnectionError: (error: Error) => void;
}

/** The part of the node-redis client this store uses after handing it to keyv. */
interface RedisClientHandle {
  readonly isOpen: boolean;
  readonly isReady: boolean;
  close(): Promise<unknown>;
  destroy(): void;
  ping(): Promise<unknown>;
}

/**
 * Redis through keyv + @keyv/redis. The client is configured never to make a request wait for Redis:
 * `disableOfflineQueue` fails a command at once while disconnected (instead of queueing it until
 * Redis returns), while `reconnectStrategy` keeps reconnecting in the background with capped backoff.
 * Keyv is told to throw so that ResilientCache can count failures instead of seeing silent misses.
 */
export class RedisStore<V> implements CacheStore<V> {
  private constructor(
    private readonly client: RedisClientHandle,
    private readonly keyv: Keyv<V>,
  ) {}

  static async open<V>(options: RedisStoreOptions): Promise<RedisStore<V>> {
    const { redis } = options;
    const socket = {
      host: redis.host,
      port: redis.port,
      connectTimeout: options.connectTimeoutMs,
      reconnectStrategy: (retries: number) => Math.min(100 * 2 ** Math.min(retries, 10), 5000),
    };
    const client = createClient({
      // tls.connect verifies the chain and the host name by default (rejectUnauthorized); SNI only for DNS names.
      socket: redis.tls ? { ...socket, tls: true as const, ...(isIP(redis.host) === 0 ? { servername: redis.host } : {}) } : socket,
      username: redis.username,
      password: redis.password,
      database: redis.database ?? 0,
      disableOfflineQueue: true,
      // A server that accepts but never answers would otherwise pile up pending commands without limit.
      commandsQueueMaxLength: 10_000,
    });
    // Without a listener node-redis would crash the process on the first connection error.
    client.on('error', (error: Error) => options.onConnectionError(error));

    // Wait for the first connection, but not past its first failure (a refused connection would
    // otherwise keep start-up waiting through the reconnect attempts) nor past the connect timeout.
    const firstConnect = client.connect();
    firstConnect.catch(() => undefined);
    let timer: NodeJS.Timeout | undefined;
    let onFirstError: (() => void) | undefined;
    await Promise.race([
      firstConnect.then(() => undefined, () => undefined),
      new Promise<void>((resolve) => { timer = setTimeout(resolve, options.connectTimeoutMs); }),
      new Promise<void>((resolve) => { onFirstError = resolve; client.once('error', resolve); }),
    ]);
    clearTimeout(timer);
    if (onFirstError) client.off('error', onFirstError);

    const store = new KeyvRedis<V>(client as never, {
      namespace: options.prefix,
      keyPrefixSeparator: ':',
      throwOnConnectError: false,
      throwOnErrors: true,
      useUnlink: true,
    });
    const keyv = new Keyv<V>({ store, namespace: options.prefix, useKeyPrefix: false, throwOnErrors: true });
    // Failures also arrive as thrown errors, where they are counted; the events would only duplicate them.
    keyv.on('error', () => undefined);
    return new RedisStore(client, keyv);
  }

  async get(key: string): Promise<V | undefined> {
    const value = await this.keyv.get(key);
    return value ?? undefined;
  }

  async set(key: string, value: V, ttlMs: number | undefined): Promise<void> {
    const stored = await this.keyv.set(key, value, ttlMs);
    if (stored === false) throw new Error('redis refused the write');
  }

  async delete(key: string): Promise<void> {
    await this.keyv.delete(key);
  }

  async clear(): Promise<void> {
    await this.keyv.clear();
  }

  async close(): Promise<void> {
    if (this.client.isReady) {
      await this.client.close().catch(() => this.client.destroy());
    } else if (this.client.isOpen) {
      this.client.destroy();
    }
  }

  async ping(): Promise<void> {
    await this.client.ping();
  }
}
