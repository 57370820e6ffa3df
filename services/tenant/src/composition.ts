import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import type { MigrationObject, MikroORM } from '@mikro-orm/postgresql';
import type { NatsConnection } from '@nats-io/transport-node';
import type { Router } from 'express';
import type { Container } from 'inversify';
import type { ConfigOf } from '#adapters/config/index.js';
import type { OpenApiBuilder } from '#adapters/http/index.js';
import type { QueryServer } from '#adapters/messaging/request-reply.js';
import type { Logger } from '#adapters/observability/logger.js';
import type { ServiceMetrics } from '#adapters/observability/metrics.js';
import { createServiceContainer, RUNTIME_TOKENS, token, type RuntimeParts } from '#adapters/runtime/container.js';
import { catalog as defaultCatalog, type Catalog } from '#contracts/catalog.js';
import { serveTenantQueries } from './adapters/messaging/query-handlers.js';
import { tenantEntities } from './adapters/persistence/entities.js';
import { tenantMigrations } from './adapters/persistence/migrations.js';
import { MikroTenantStore } from './adapters/persistence/tenant-store.js';
import type { ServiceInfo } from './adapters/http/service-info.js';
import { tenantRouter, type TenantServices } from './adapters/http/tenant-routes.js';
import type { TenantContext } from './application/context.js';
import { FacilityService } from './application/facility-service.js';
import { MeasureMappingService } from './application/measure-mapping-service.js';
import { ReportScheduler } from './application/report-scheduler.js';
import { ReportingPlanService } from './application/reporting-plan-service.js';
import { VendorService } from './application/vendor-service.js';
import { systemClock, type Clock } from './domain/clock.js';
import type { IdGenerator } from './domain/ports/id-generator.js';
import type { TenantStore } from './domain/ports/tenant-store.js';
import type { TenantConfig } from './config.js';
import type { tenantServiceSchema } from './service-schema.js';
import {
  checkMasterKeyCoverage, jwksRouter, KeyExpiryJob, keyringFromConfig, MikroSigningKeyStore, registerSigningKeyOpenApi, serveSigningKeyQueries,
  signingKeyEntities, signingKeyMigrations, signingKeyRouter, SigningKeyService, writeJwksFile,
  type JwksDocument, type MasterKeyConfig, type MasterKeyCoverage, type MasterKeyring, type SigningKeyConfig,
} from './signing-keys/index.js';

export type TenantServiceConfig = ConfigOf<typeof tenantServiceSchema>;

/**
 * The tenant service's composition root: the one place where its use cases (facilities, reporting
 * plans, measure mappings, vendors, the scheduler, the signing-key registry) are built on their ports
 * and handed to the routers, NATS handlers and jobs that call them. main.ts only starts, mounts and
 * stops what the container gives it; tests build the same units with createTenantModule and
 * createSigningKeyModule below.
 *
 * The store and the clock are the ports worth swapping: the use cases and the scheduler of the tenant
 * module and the signing-key registry all take them from here, so one rebinding (e.g.
 * `container.rebind(TOKENS.clock).toConstantValue(new ManualClock(…))`, before anything is resolved)
 * moves time for the whole service.
 */
export const TOKENS = {
  ...RUNTIME_TOKENS,
  config: token<TenantServiceConfig>('TenantServiceConfig'),
  tenantStore: token<TenantStore>('TenantStore'),
  clock: token<Clock>('Clock'),
  /** Facilities, plans, mappings, vendors: use cases, routes, NATS queries and the scheduler. */
  tenantModule: token<TenantModule>('TenantModule'),
  facilityService: token<FacilityService>('FacilityService'),
  reportingPlanService: token<ReportingPlanService>('ReportingPlanService'),
  measureMappingService: token<MeasureMappingService>('MeasureMappingService'),
  vendorService: token<VendorService>('VendorService'),
  scheduler: token<ReportScheduler>('ReportScheduler'),
  /** The signing-key registry: its use cases (SigningKeyService), routes, query handler and expiry job. */
  signingKeyModule: token<SigningKeyModule>('SigningKeyModule'),
  signingKeyService: token<SigningKeyService>('SigningKeyService'),
} as const;

export function buildTenantContainer(config: TenantServiceConfig, runtime: RuntimeParts): Container {
  const container = createServiceContainer(runtime);
  container.bind(TOKENS.config).toConstantValue(config);
  container.bind(TOKENS.clock).toConstantValue(systemClock);
  container.bind(TOKENS.tenantStore).toDynamicValue((ctx) => {
    const outbox = ctx.get(TOKENS.outbox);
    return new MikroTenantStore({ orm: ctx.get(TOKENS.orm), catalog: ctx.get(TOKENS.catalog), afterCommit: () => outbox.notify() });
  });
  container.bind(TOKENS.tenantModule).toDynamicValue((ctx) => {
    const outbox = ctx.get(TOKENS.outbox);
    return createTenantModule({
      orm: ctx.get(TOKENS.orm), config, logger: ctx.get(TOKENS.logger), metrics: ctx.get(TOKENS.metrics), nats: ctx.get(TOKENS.nats).nc,
      catalog: ctx.get(TOKENS.catalog), clock: ctx.get(TOKENS.clock), store: ctx.get(TOKENS.tenantStore),
      afterCommit: () => outbox.notify(),
    });
  });
  container.bind(TOKENS.facilityService).toDynamicValue((ctx) => ctx.get(TOKENS.tenantModule).services.facilities);
  container.bind(TOKENS.reportingPlanService).toDynamicValue((ctx) => ctx.get(TOKENS.tenantModule).services.plans);
  container.bind(TOKENS.measureMappingService).toDynamicValue((ctx) => ctx.get(TOKENS.tenantModule).services.mappings);
  container.bind(TOKENS.vendorService).toDynamicValue((ctx) => ctx.get(TOKENS.tenantModule).services.vendors);
  container.bind(TOKENS.scheduler).toDynamicValue((ctx) => ctx.get(TOKENS.tenantModule).scheduler);
  container.bind(TOKENS.signingKeyModule).toDynamicValue((ctx) => {
    const outbox = ctx.get(TOKENS.outbox);
    const clock = ctx.get(TOKENS.clock);
    return createSigningKeyModule({
      orm: ctx.get(TOKENS.orm), config, logger: ctx.get(TOKENS.logger), nats: ctx.get(TOKENS.nats).nc,
      catalog: ctx.get(TOKENS.catalog), afterCommit: () => outbox.notify(), now: () => clock.now(),
    });
  });
  container.bind(TOKENS.signingKeyService).toDynamicValue((ctx) => ctx.get(TOKENS.signingKeyModule).service);
  return container;
}

// ---- the tenant module: facilities, reporting plans, measure mappings, vendors, the scheduler ----

export interface TenantModuleOptions {
  /** The tenant database, opened with `tenantEntities` and `tenantMigrations`. */
  readonly orm: MikroORM;
  readonly config: Pick<TenantConfig,
    'checkIfMeasureExists' | 'schedulerEnabled' | 'schedulerPollIntervalMs' | 'schedulerBatchSize' | 'schedulerInstanceId' | 'serviceName' | 'serviceVersion'>;
  readonly logger: Logger;
  /** Where the scheduler's counters go (ReportScheduler.instrument); without it it counts nothing. */
  readonly metrics?: ServiceMetrics;
  /** For the queries; without it `start()` serves none. */
  readonly nats?: NatsConnection;
  /** Default: the production catalog. */
  readonly catalog?: Catalog;
  readonly clock?: Clock;
  readonly newId?: IdGenerator;
  /** Default: MikroTenantStore on `orm` (the composition root passes the one it binds). */
  readonly store?: TenantStore;
  /** Called after each committed write, e.g. `() => runtime.outbox.notify()` so events leave at once. */
  readonly afterCommit?: () => void;
}

export interface TenantModule {
  readonly entities: typeof tenantEntities;
  readonly migrations: typeof tenantMigrations;
  readonly services: TenantServices;
  readonly scheduler: ReportScheduler;
  readonly serviceInfo: ServiceInfo;
  /** Mounts every tenant route on `app` (before the HTTP adapter's `finish()`) and registers it in OpenAPI. */
  register(app: { use(router: Router): unknown }, openApi: OpenApiBuilder): void;
  /** Serves GetFacilitiesList, GetFacilityConfig and GetServiceInfo over NATS request-reply. */
  serveQueries(): QueryServer[];
  /** Starts the scheduler (when enabled) and the query handlers (when NATS was given). */
  start(): void;
  /** Stops both, waiting for work in progress. */
  stop(): Promise<void>;
}

/**
 * The tenant module as one unit: persistence store, use cases, HTTP routes, NATS queries and the
 * clustered scheduler, wired from the given infrastructure (the container binds it; tests call it).
 *
 * ```ts
 * const config = exitOnConfigError(() => loadConfig(tenantSchema));
 * const runtime = await startServiceRuntime({ serviceName: 'tenant', apiTitle: 'Tenant API', config, entities: tenantEntities, migrations: tenantMigrations });
 * const tenant = createTenantModule({ orm: runtime.db.orm, config, logger: runtime.logger, nats: runtime.nats.nc, afterCommit: () => runtime.outbox.notify() });
 * tenant.register(runtime.api, runtime.openApi);
 * tenant.start();
 * runtime.onShutdown(() => tenant.stop());
 * await runtime.listen();
 * ```
 */
export function createTenantModule(options: TenantModuleOptions): TenantModule {
  const catalog = options.catalog ?? defaultCatalog;
  const clock = options.clock ?? systemClock;
  const context: TenantContext = {
    store: options.store ?? new MikroTenantStore({ orm: options.orm, catalog, ...(options.afterCommit ? { afterCommit: options.afterCommit } : {}) }),
    clock,
    newId: options.newId ?? randomUUID,
    settings: { checkIfMeasureExists: options.config.checkIfMeasureExists },
  };
  const services: TenantServices = {
    facilities: new FacilityService(context),
    plans: new ReportingPlanService(context),
    mappings: new MeasureMappingService(context),
    vendors: new VendorService(context),
  };
  const instanceId = options.config.schedulerInstanceId ?? `${hostname()}-${String(process.pid)}`;
  const scheduler = new ReportScheduler({
    store: context.store, clock, logger: options.logger.child({ component: 'report-scheduler' }), instanceId,
    batchSize: options.config.schedulerBatchSize, pollIntervalMs: options.config.schedulerPollIntervalMs,
    ...(options.metrics ? { metrics: options.metrics } : {}),
  });
  const serviceInfo: ServiceInfo = {
    name: options.config.serviceName, version: options.config.serviceVersion, instanceId, startedAt: new Date().toISOString(),
  };
  let queryServers: QueryServer[] = [];

  const module: TenantModule = {
    entities: tenantEntities,
    migrations: tenantMigrations,
    services,
    scheduler,
    serviceInfo,
    register(app, openApi) {
      app.use(tenantRouter(openApi, services, serviceInfo));
    },
    serveQueries() {
      if (!options.nats) throw new Error('createTenantModule: no NATS connection given, so no queries can be served');
      return serveTenantQueries(options.nats, { facilities: services.facilities, info: serviceInfo, logger: options.logger, catalog });
    },
    start() {
      if (options.config.schedulerEnabled) scheduler.start();
      if (options.nats && queryServers.length === 0) queryServers = module.serveQueries();
    },
    async stop() {
      await Promise.all([scheduler.stop(), ...queryServers.map((server) => server.stop())]);
      queryServers = [];
    },
  };
  return module;
}

// ---- the signing-key registry (signing-keys/index.ts describes it) ----

export interface SigningKeyModuleDeps {
  /** The tenant database, opened with `signingKeyEntities` and `signingKeyMigrations` among the service's. */
  readonly orm: MikroORM;
  readonly config: Pick<SigningKeyConfig, 'signingKeysJwksPath' | 'signingKeysDisabledRetentionMs' | 'signingKeysExpiryIntervalMs'> & MasterKeyConfig;
  readonly logger: Logger;
  /** For SignClientAssertion; without it `start()` serves no query. */
  readonly nats?: NatsConnection;
  /** For the query subject and audit events; default: the production catalog for queries, and audit events off when omitted. */
  readonly catalog?: Catalog;
  /** Called after each committed change, e.g. `() => runtime.outbox.notify()` so audit events leave at once. */
  readonly afterCommit?: () => void;
  readonly now?: () => Date;
  /** Where a JWKS document goes; default: written atomically to `signing-keys.jwks-path`. */
  readonly writeJwks?: (document: JwksDocument) => Promise<void>;
}

export interface SigningKeyModule {
  readonly service: SigningKeyService;
  /** The configured master keys; undefined when none is. */
  readonly masterKeys: MasterKeyring | undefined;
  /** Operator routes with paths starting `/api/` (mount on the guarded app). */
  readonly router: Router;
  /** `GET /.well-known/jwks.json` (mount on the public app, outside the `/api` guard). */
  readonly jwksRouter: Router;
  registerOpenApi(openApi: OpenApiBuilder): void;
  readonly entities: typeof signingKeyEntities;
  readonly migrations: MigrationObject[];
  /** SignClientAssertion over NATS request-reply. */
  serveQueries(): QueryServer[];
  /**
   * Opens every stored private key with the configured master keys; throws ConfigError naming the
   * master key ids that are missing or wrong (main.ts turns it into exit code 78 before listening).
   */
  checkMasterKeys(): Promise<MasterKeyCoverage>;
  /** Writes the JWKS once, starts the expiry job and (with NATS) the query handler. */
  start(): void;
  stop(): Promise<void>;
}

/**
 * The signing-key registry as one unit (the container binds it; tests call it). Throws ConfigError when the master-key settings do not
 * describe a usable keyring (a file that cannot be read, no current key among several).
 *
 * ```ts
 * const keys = createSigningKeyModule({ orm: runtime.db.orm, config, logger: runtime.logger, nats: runtime.nats.nc, catalog, afterCommit: () => runtime.outbox.notify() });
 * await exitOnConfigError(() => keys.checkMasterKeys());
 * keys.registerOpenApi(runtime.openApi);
 * runtime.api.use(keys.router);        // /api/signing-keys..., /api/facilities/{id}/signing-key, /$client-assertion
 * runtime.http.app.use(keys.jwksRouter); // /.well-known/jwks.json, public
 * keys.start();
 * runtime.onShutdown(() => keys.stop());
 * ```
 */
export function createSigningKeyModule(deps: SigningKeyModuleDeps): SigningKeyModule {
  const logger = deps.logger.child({ component: 'signing-keys' });
  const masterKeys = keyringFromConfig(deps.config);
  const store = new MikroSigningKeyStore({ orm: deps.orm, ...(deps.catalog ? { catalog: deps.catalog } : {}), ...(deps.afterCommit ? { afterCommit: deps.afterCommit } : {}) });
  const service = new SigningKeyService({
    store,
    masterKeys,
    disabledRetentionMs: deps.config.signingKeysDisabledRetentionMs,
    writeJwks: deps.writeJwks ?? ((document) => writeJwksFile(deps.config.signingKeysJwksPath, document)),
    logger,
    ...(deps.now ? { now: deps.now } : {}),
  });
  const job = new KeyExpiryJob(service, deps.config.signingKeysExpiryIntervalMs, logger);
  let queryServers: QueryServer[] = [];

  const module: SigningKeyModule = {
    service,
    masterKeys,
    router: signingKeyRouter(service),
    jwksRouter: jwksRouter(deps.config.signingKeysJwksPath, () => service.regenerateJwks()),
    registerOpenApi: registerSigningKeyOpenApi,
    entities: signingKeyEntities,
    migrations: signingKeyMigrations,
    async checkMasterKeys() {
      const coverage = await checkMasterKeyCoverage(store, masterKeys);
      if (coverage.checked > 0) logger.info({ ...coverage, current: masterKeys?.currentId }, 'every stored private key decrypts with the configured master keys');
      return coverage;
    },
    serveQueries() {
      if (!deps.nats) throw new Error('createSigningKeyModule: no NATS connection given, so no queries can be served');
      return serveSigningKeyQueries(deps.nats, service, { logger, ...(deps.catalog ? { catalog: deps.catalog } : {}) });
    },
    start() {
      if (!masterKeys) {
        logger.warn('no master key is configured (signing-keys.master-keys): signing keys cannot be created and client assertions cannot be signed');
      }
      job.start();
      if (deps.nats && queryServers.length === 0) queryServers = module.serveQueries();
    },
    async stop() {
      await Promise.all([job.stop(), ...queryServers.map((server) => server.stop())]);
      queryServers = [];
    },
  };
  return module;
}
