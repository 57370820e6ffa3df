import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import type { MikroORM } from '@mikro-orm/postgresql';
import type { NatsConnection } from '@nats-io/transport-node';
import type { Router } from 'express';
import type { OpenApiBuilder } from '#adapters/http/index.js';
import type { QueryServer } from '#adapters/messaging/request-reply.js';
import type { Logger } from '#adapters/observability/logger.js';
import { catalog as defaultCatalog, type Catalog } from '#contracts/catalog.js';
import type { TenantContext } from './application/context.js';
import { FacilityService } from './application/facility-service.js';
import { MeasureMappingService } from './application/measure-mapping-service.js';
import { ReportScheduler } from './application/report-scheduler.js';
import { ReportingPlanService } from './application/reporting-plan-service.js';
import { VendorService } from './application/vendor-service.js';
import { serveTenantQueries } from './adapters/messaging/query-handlers.js';
import { tenantEntities } from './adapters/persistence/entities.js';
import { tenantMigrations } from './adapters/persistence/migrations.js';
import { MikroTenantStore } from './adapters/persistence/tenant-store.js';
import type { ServiceInfo } from './adapters/http/service-info.js';
import { tenantRouter, type TenantServices } from './adapters/http/tenant-routes.js';
import { systemClock, type Clock } from './domain/clock.js';
import type { IdGenerator } from './domain/ports/id-generator.js';
import type { TenantStore } from './domain/ports/tenant-store.js';
import type { TenantConfig } from './config.js';

export { tenantEntities, tenantMigrations };

export interface TenantModuleOptions {
  /** The tenant database, opened with `tenantEntities` and `tenantMigrations`. */
  readonly orm: MikroORM;
  readonly config: Pick<TenantConfig,
    'checkIfMeasureExists' | 'schedulerEnabled' | 'schedulerPollIntervalMs' | 'schedulerBatchSize' | 'schedulerInstanceId' | 'serviceName' | 'serviceVersion'>;
  readonly logger: Logger;
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
 * The tenant service as one unit for the composition root (main.ts): persistence store, use cases,
 * HTTP routes, NATS queries and the clustered scheduler, wired from the given infrastructure.
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
  const instanceId = options.config.schedulerInstanceId ?? `${hostname()}-${process.pid}`;
  const scheduler = new ReportScheduler({
    store: context.store, clock, logger: options.logger.child({ component: 'report-scheduler' }), instanceId,
    batchSize: options.config.schedulerBatchSize, pollIntervalMs: options.config.schedulerPollIntervalMs,
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
