import 'reflect-metadata';
import { exitOnConfigError, loadConfig } from '../../../adapters/config/index.js';
import { createLogger } from '../../../adapters/observability/logger.js';
import { startServiceRuntime } from '../../../adapters/runtime/service-runtime.js';
import { catalog } from '../../../contracts/catalog.js';
import { tenantServiceSchema } from './service-schema.js';
import { createSigningKeyModule, signingKeyEntities, signingKeyMigrations } from './signing-keys/index.js';
import { createTenantModule, tenantEntities, tenantMigrations } from './tenant-module.js';

/** Composition root of the tenant service. */
const config = exitOnConfigError(() => loadConfig(tenantServiceSchema), createLogger('tenant'));
const runtime = await exitOnConfigError(() => startServiceRuntime({
  serviceName: 'tenant',
  apiTitle: 'Tenant service API',
  config,
  entities: [...tenantEntities, ...signingKeyEntities],
  migrations: [...tenantMigrations, ...signingKeyMigrations.filter((m) => !tenantMigrations.some((t) => t.name === m.name))],
}), createLogger('tenant'));

const afterCommit = () => runtime.outbox.notify();
const tenant = createTenantModule({ orm: runtime.db.orm, config, logger: runtime.logger, nats: runtime.nats.nc, catalog, afterCommit });
const keys = createSigningKeyModule({ orm: runtime.db.orm, config, logger: runtime.logger, nats: runtime.nats.nc, catalog, afterCommit });

runtime.http.app.use(keys.jwksRouter); // public: EHRs fetch /.well-known/jwks.json without a token
tenant.register(runtime.api, runtime.openApi);
keys.registerOpenApi(runtime.openApi);
runtime.api.use(keys.router);

tenant.scheduler.instrument(runtime.metrics);
tenant.start();
keys.start();
runtime.onShutdown(() => tenant.stop());
runtime.onShutdown(() => keys.stop());
await runtime.listen();
