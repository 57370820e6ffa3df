import type { MigrationObject, Options } from '@mikro-orm/postgresql';
import type { Express } from 'express';
import { authenticatedUser, verifierFromConfig, type AuthConfig, type TokenVerifier } from '../auth/index.js';
import { createCache, redisConnection, type Cache, type CacheType } from '../cache/index.js';
import type { PostgresAddress, RedisAddress } from '../config/index.js';
import { createHttpApp, listen, listenMetrics, OpenApiBuilder, type HttpApp, type HttpServerHandle, type ReadinessCheck, type RouteBodyLimit, type AnyMediaTypeRoute } from '../http/index.js';
import { connectNats, isNatsReady, type NatsHandle } from '../messaging/connection.js';
import { provisionCatalog } from '../messaging/provisioning.js';
import { JetStreamPublisher } from '../messaging/publisher.js';
import { createMetrics, type ServiceMetrics } from '../observability/metrics.js';
import { createLogger, type Logger } from '../observability/logger.js';
import { databaseConnection, openDatabase, OutboxMessageEntity, outboxMigration, type Database } from '../persistence/index.js';
import { OutboxRelay } from '../persistence/outbox/relay.js';
import { catalogForNamespace, type Catalog, type StreamLimitsProfile } from '#contracts/catalog.js';
import { adminWritesExceptProcessing } from './admin-writes.js';

/**
 * The common frame of a service process: logger, metrics, its PostgreSQL database (migrations applied),
 * NATS JetStream (streams provisioned from contracts/), the contract-checking publisher, the outbox
 * relay, the validate-code cache, and the HTTP app with health/readiness/metrics/OpenAPI and the
 * AuthenticatedUser policy on `/api`. A service adds its routes, consumers and jobs, then calls
 * `listen()`. On SIGTERM/SIGINT it shuts down in dependency order within `shutdown.grace-ms`:
 * stop accepting HTTP → stop consumers and jobs (they finish in-flight work) → last outbox relay pass →
 * drain NATS → close cache and database.
 */
export interface RuntimeConfig extends AuthConfig {
  httpPort: number;
  httpHost: string;
  httpJsonLimit: number;
  httpRawLimit: number;
  /** Separate listener for /metrics; unset = /metrics on the API port. */
  metricsPort?: number;
  docsEnabled: boolean;
  /** The API document only to authenticated users (docs.authenticated). */
  docsAuthenticated: boolean;
  dbUrl?: PostgresAddress;
  dbHost: string;
  dbPort: number;
  dbUser: string;
  dbPassword?: string;
  dbName: string;
  dbPoolMax: number;
  natsServers: readonly string[];
  natsUser?: string;
  natsPassword?: string;
  natsToken?: string;
  /** nats.namespace: the catalog of subjects and streams this installation uses (catalogForNamespace). */
  natsNamespace?: string;
  natsStreamReplicas: number;
  /** nats.provision: create/update the streams at start-up (off where the provisioning Job does it). */
  natsProvision: boolean;
  /** nats.stream-limits: how large the provisioned streams are (STREAM_LIMITS). */
  natsStreamLimits: StreamLimitsProfile;
  cacheType: CacheType;
  cacheValidateCodeTtl?: number;
  cacheMemoryMaxEntries: number;
  cacheServerUrl?: RedisAddress;
  cacheServerHost: string;
  cacheServerPort: number;
  cacheServerPassword?: string;
  cacheServerUsername?: string;
  cacheServerDatabase: number;
  logLevel: string;
  shutdownGraceMs: number;
  authAdminPermission: string;
}

export interface ServiceRuntimeOptions {
  serviceName: string;
  apiTitle: string;
  config: RuntimeConfig;
  entities: NonNullable<Options['entities']>;
  migrations: MigrationObject[];
  /** Namespace of the validate-code cache; omit for a service without one. */
  cacheNamespace?: string;
  /** Exact paths of POST routes that process without changing state (e.g. `/api/$validate`): need no admin permission. */
  processingRoutes?: readonly string[];
  /** Routes whose JSON bodies have their own size limit instead of `http.json-limit`. */
  routeBodyLimits?: readonly RouteBodyLimit[];
  /** Routes that read request bodies of any media type themselves (createHttpApp). */
  anyMediaTypeRoutes?: readonly AnyMediaTypeRoute[];
  /** Routes that read their bodies themselves with their own limits, after authentication (createHttpApp `ownBodyRoutes`). */
  ownBodyRoutes?: readonly AnyMediaTypeRoute[];
}

export type Stopper = () => Promise<void> | void;

export interface ServiceRuntime {
  readonly logger: Logger;
  readonly metrics: ServiceMetrics;
  readonly db: Database;
  readonly nats: NatsHandle;
  /** Subjects and streams of this installation (`nats.namespace`); the services take it from here, never the module default. */
  readonly catalog: Catalog;
  readonly publisher: JetStreamPublisher;
  readonly outbox: OutboxRelay;
  readonly cache?: Cache<unknown>;
  readonly openApi: OpenApiBuilder;
  readonly http: HttpApp;
  /** The app's `/api` routes are guarded by AuthenticatedUser and admin-only writes. */
  readonly api: Express;
  /** Registers work to stop on shutdown (consumers, schedulers); run before NATS and the database close. */
  onShutdown(stopper: Stopper): void;
  listen(): Promise<HttpServerHandle>;
  shutdown(reason: string): Promise<void>;
}

/**
 * The HTTP app of a service as the runtime builds it from its configuration: the AuthenticatedUser
 * policy and admin-only writes on `/api` BEFORE any body is read (an unauthenticated caller gets 401
 * without the service reading, buffering or parsing what it sent), then the body parsers, which
 * leave `ownBodyRoutes` to read their large bodies themselves.
 */
export function serviceHttpApp(options: Pick<ServiceRuntimeOptions, 'serviceName' | 'config' | 'processingRoutes' | 'routeBodyLimits' | 'anyMediaTypeRoutes' | 'ownBodyRoutes'> & {
  readonly logger: Logger;
  readonly metrics: ServiceMetrics;
  readonly openApi: OpenApiBuilder;
  readonly readiness?: readonly ReadinessCheck[];
  readonly verifier: TokenVerifier | undefined;
}): HttpApp {
  const { config, logger, metrics } = options;
  // One AuthenticatedUser policy for the API and, with docs.authenticated, its document.
  const authenticated = authenticatedUser({ mode: config.authMode, verifier: options.verifier, logger, metrics });
  return createHttpApp({
    serviceName: options.serviceName, logger, metrics, openApi: options.openApi, readiness: options.readiness,
    jsonLimit: config.httpJsonLimit, rawLimit: config.httpRawLimit,
    docs: config.docsEnabled, serveMetrics: config.metricsPort === undefined, routeBodyLimits: options.routeBodyLimits,
    anyMediaTypeRoutes: options.anyMediaTypeRoutes, ownBodyRoutes: options.ownBodyRoutes, ...(config.docsAuthenticated ? { docsGuard: authenticated } : {}),
    guard: { path: '/api', handlers: [authenticated, adminWritesExceptProcessing(config.authAdminPermission, options.processingRoutes ?? [])] },
  });
}

export async function startServiceRuntime(options: ServiceRuntimeOptions): Promise<ServiceRuntime> {
  const { config, serviceName } = options;
  const logger = createLogger(serviceName, config.logLevel);
  const metrics = createMetrics(serviceName);
  const verifier = verifierFromConfig(config, logger);

  const db = await openDatabase({
    ...databaseConnection(config), poolMax: config.dbPoolMax, logger,
    entities: [OutboxMessageEntity, ...options.entities],
    migrations: options.migrations.some((m) => m.name === outboxMigration.name) ? options.migrations : [outboxMigration, ...options.migrations],
  });
  const nats = await connectNats({
    servers: [...config.natsServers], user: config.natsUser, pass: config.natsPassword, token: config.natsToken, name: serviceName, logger,
  });
  const catalog = catalogForNamespace(config.natsNamespace, config.natsStreamLimits);
  if (config.natsProvision) {
    const provisioned = await provisionCatalog(nats.jsm, catalog, { replicas: config.natsStreamReplicas });
    logger.info({ streams: provisioned, subjectRoot: catalog.subjectRoot }, 'JetStream streams provisioned');
  } else {
    // The provisioning Job's user manages the streams; this service's user may only use them.
    logger.info({ subjectRoot: catalog.subjectRoot }, 'JetStream streams not provisioned here (nats.provision=false)');
  }
  const publisher = new JetStreamPublisher(nats.js, { catalog });

  const outboxPublished = metrics.counter({ name: 'outbox_published_total', help: 'Outbox messages published to JetStream', labelNames: ['subject'] });
  const outboxFailed = metrics.counter({ name: 'outbox_publish_failures_total', help: 'Failed outbox publish attempts', labelNames: ['subject'] });
  const outboxParked = metrics.gauge({ name: 'outbox_parked_messages', help: 'Outbox rows that can never be published (contract, size), parked until an operator releases or deletes them' });
  const outbox = new OutboxRelay({
    orm: db.orm, publisher, logger,
    onEvent: (event) => {
      if (event.kind === 'published') outboxPublished.inc({ subject: event.subject });
      if (event.kind === 'failed') outboxFailed.inc({ subject: event.subject });
      if (event.kind === 'parked-rows') outboxParked.set(event.count);
    },
  });
  outbox.start();

  const cache = options.cacheNamespace
    ? await createCache<unknown>({
      type: config.cacheType,
      namespace: options.cacheNamespace,
      ttlSeconds: config.cacheValidateCodeTtl,
      memoryMaxEntries: config.cacheMemoryMaxEntries,
      redis: redisConnection(config),
      logger,
      registry: metrics.registry,
    })
    : undefined;

  const openApi = new OpenApiBuilder({ title: options.apiTitle, version: '1.0.0' });
  const readiness = [
    { name: 'database', check: () => db.readinessCheck() },
    { name: 'nats', check: async () => { if (!(await isNatsReady(nats.nc))) throw new Error('NATS is not connected'); } },
    ...(cache && config.cacheType === 'distributed' ? [{ name: 'cache', check: () => cache.readinessCheck() }] : []),
  ];
  // No ORM RequestContext per request: every unit of work forks its own EntityManager (stores,
  // consumers), and a fork costs ~25 µs of CPU (MikroORM writes process.env on each), a tenth of a
  // facility look-up; code that used `orm.em` without forking is refused by allowGlobalContext false.
  const http = serviceHttpApp({ ...options, logger, metrics, openApi, readiness, verifier });

  const stoppers: Stopper[] = [];
  let server: HttpServerHandle | undefined;
  let metricsServer: HttpServerHandle | undefined;
  let shuttingDown: Promise<void> | undefined;

  const runtime: ServiceRuntime = {
    logger, metrics, db, nats, catalog, publisher, outbox, cache, openApi, http, api: http.app,
    onShutdown: (stopper) => { stoppers.push(stopper); },
    async listen() {
      server = await listen(http.finish(), config.httpPort, config.httpHost);
      if (config.metricsPort !== undefined) metricsServer = await listenMetrics(metrics.registry, config.metricsPort, config.httpHost);
      logger.info({ url: server.url, ...(metricsServer ? { metrics: `${metricsServer.url}/metrics` } : {}) }, `${serviceName} service listening`);
      return server;
    },
    shutdown(reason: string) {
      shuttingDown ??= (async () => {
        const started = Date.now();
        logger.info({ reason }, 'shutting down');
        const left = () => Math.max(0, config.shutdownGraceMs - (Date.now() - started));
        await server?.close(Math.min(left(), 5_000));
        await Promise.allSettled(stoppers.map((stop) => stop()));
        await outbox.stop();
        await nats.close();
        await cache?.close();
        await db.close();
        await metricsServer?.close(1_000); // last: the scraper sees the drain
        logger.info({ ms: Date.now() - started }, 'stopped');
      })();
      return shuttingDown;
    },
  };
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    process.once(signal, () => {
      // Hard stop if something hangs past the grace period: the orchestrator would kill us anyway.
      setTimeout(() => process.exit(1), config.shutdownGraceMs + 1_000).unref();
      void runtime.shutdown(signal).then(() => process.exit(0), () => process.exit(1));
    });
  }
  return runtime;
}
