import 'reflect-metadata';
import { exitOnConfigError, loadConfig } from '#adapters/config/index.js';
import { createLogger } from '#adapters/observability/logger.js';
import { startServiceRuntime } from '#adapters/runtime/service-runtime.js';
import { buildTenantContainer, TOKENS } from './composition.js';
import { tenantServiceEntities, tenantServiceMigrations } from './database-schema.js';
import { tenantServiceSchema } from './service-schema.js';
import { keyringFromConfig } from './signing-keys/index.js';

/** Entry point of the tenant service: objects from the container (composition.ts), started and stopped here in order. */
const config = exitOnConfigError(() => loadConfig(tenantServiceSchema), createLogger('tenant'));
// Master-key settings that describe no usable keyring (unreadable file, no current key among several) stop it before it connects anywhere.
exitOnConfigError(() => keyringFromConfig(config), createLogger('tenant'));
const runtime = await exitOnConfigError(() => startServiceRuntime({
  serviceName: 'tenant',
  apiTitle: 'Tenant service API',
  config,
  entities: tenantServiceEntities,
  migrations: tenantServiceMigrations,
}), createLogger('tenant'));

const container = buildTenantContainer(config, runtime);
const tenant = container.get(TOKENS.tenantModule);
// A master-key setting that describes no usable keyring, or stored keys that no configured master
// key opens, stop the service here (exit code 78, naming the master key ids), before it serves.
const keys = exitOnConfigError(() => container.get(TOKENS.signingKeyModule), runtime.logger);
await exitOnConfigError(() => keys.checkMasterKeys(), runtime.logger);

runtime.http.app.use(keys.jwksRouter); // public: EHRs fetch /.well-known/jwks.json without a token
tenant.register(runtime.api, runtime.openApi);
keys.registerOpenApi(runtime.openApi);
runtime.api.use(keys.router);

tenant.start();
keys.start();
runtime.onShutdown(() => tenant.stop());
runtime.onShutdown(() => keys.stop());
await runtime.listen();
