import 'reflect-metadata';
import { exitOnConfigError, loadConfig } from '../../../adapters/config/index.js';
import { createLogger } from '../../../adapters/observability/logger.js';
import { startServiceRuntime } from '../../../adapters/runtime/service-runtime.js';
import { buildTenantContainer, TOKENS } from './composition.js';
import { tenantServiceSchema } from './service-schema.js';
import { signingKeyEntities, signingKeyMigrations } from './signing-keys/index.js';
import { tenantEntities, tenantMigrations } from './tenant-module.js';

/** Entry point of the tenant service: objects from the container (composition.ts), started and stopped here in order. */
const config = exitOnConfigError(() => loadConfig(tenantServiceSchema), createLogger('tenant'));
const runtime = await exitOnConfigError(() => startServiceRuntime({
  serviceName: 'tenant',
  apiTitle: 'Tenant service API',
  config,
  entities: [...tenantEntities, ...signingKeyEntities],
  migrations: [...tenantMigrations, ...signingKeyMigrations.filter((m) => !tenantMigrations.some((t) => t.name === m.name))],
}), createLogger('tenant'));

const container = buildTenantContainer(config, runtime);
const tenant = container.get(TOKENS.tenantModule);
const keys = container.get(TOKENS.signingKeyModule);

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
