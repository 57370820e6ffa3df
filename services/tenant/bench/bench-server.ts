/**
 * The tenant HTTP routes on the standard app, over an existing database, in a process of their own
 * so the load generator does not share the server's event loop. The middleware is the service
 * runtime's (adapters/runtime/service-runtime.ts): request logging at info (to /dev/null), metrics,
 * JWT authentication (BENCH_JWK, BENCH_ISSUER, BENCH_AUDIENCE) and the admin write guard; only NATS,
 * the outbox relay and the scheduler are left out. Started by
 * tenant-bench.ts with BENCH_DB_NAME; prints `listening <port>` when ready; stops on SIGTERM.
 */
import { randomUUID } from 'node:crypto';
import { pino } from 'pino';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { authenticatedUser, createTokenVerifier } from '#adapters/auth/index.js';
import { createHttpApp, OpenApiBuilder } from '#adapters/http/index.js';
import { createLogger } from '#adapters/observability/logger.js';
import { openDatabase } from '#adapters/persistence/index.js';
import { adminWritesExceptProcessing } from '#adapters/runtime/admin-writes.js';
import { buildCatalog } from '#contracts/catalog.js';
import type { TenantContext } from '#tenant/application/context.js';
import { FacilityService } from '#tenant/application/facility-service.js';
import { MeasureMappingService } from '#tenant/application/measure-mapping-service.js';
import { ReportingPlanService } from '#tenant/application/reporting-plan-service.js';
import { VendorService } from '#tenant/application/vendor-service.js';
import { tenantRouter } from '#tenant/adapters/http/tenant-routes.js';
import { tenantEntities } from '#tenant/adapters/persistence/entities.js';
import { tenantMigrations } from '#tenant/adapters/persistence/migrations.js';
import { MikroTenantStore } from '#tenant/adapters/persistence/tenant-store.js';

const dbName = process.env.BENCH_DB_NAME;
if (!dbName) throw new Error('BENCH_DB_NAME is required');
const logger = createLogger('tenant-bench', 'info', {}, pino.destination('/dev/null'));
const database = await openDatabase({
  host: process.env.PGHOST ?? '127.0.0.1', port: Number(process.env.PGPORT ?? 5432), user: process.env.PGUSER ?? 'postgres',
  dbName, poolMax: 20, entities: tenantEntities, migrations: tenantMigrations, logger,
});
const context: TenantContext = {
  store: new MikroTenantStore({ orm: database.orm, catalog: buildCatalog({ subjectRoot: 'bench' }) }),
  clock: { now: () => new Date() }, newId: randomUUID, settings: { checkIfMeasureExists: false },
};
const openApi = new OpenApiBuilder({ title: 'Tenant bench', version: 'bench' });
const http = createHttpApp({ serviceName: 'tenant-bench', logger, openApi });
const verifier = createTokenVerifier({ issuer: process.env.BENCH_ISSUER!, audience: process.env.BENCH_AUDIENCE!, jwks: { keys: [JSON.parse(process.env.BENCH_JWK!)] } });
http.app.use('/api', authenticatedUser({ mode: 'jwt', verifier, logger, metrics: http.metrics }), adminWritesExceptProcessing('IsLinkAdmin', []));
http.app.use(tenantRouter(openApi, {
  facilities: new FacilityService(context), plans: new ReportingPlanService(context), mappings: new MeasureMappingService(context), vendors: new VendorService(context),
}, { name: 'bench', version: 'bench', instanceId: 'bench', startedAt: new Date().toISOString() }));
const server = createServer(http.finish());
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
console.log(`listening ${(server.address() as AddressInfo).port}`);
process.once('SIGTERM', () => {
  server.close(() => void database.close().then(() => process.exit(0)));
});
