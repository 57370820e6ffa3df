import type { Express } from 'express';
import { createHttpApp, OpenApiBuilder } from '#adapters/http/index.js';
import { silentLogger } from '#adapters/observability/logger.js';
import { FacilityService } from '#tenant/application/facility-service.js';
import { MeasureMappingService } from '#tenant/application/measure-mapping-service.js';
import { ReportingPlanService } from '#tenant/application/reporting-plan-service.js';
import { VendorService } from '#tenant/application/vendor-service.js';
import { tenantRouter } from '#tenant/adapters/http/tenant-routes.js';
import type { TenantTestDatabase } from './tenant-database.js';

/** The tenant routes on the standard app of adapters/http, over a test database. */
export function buildTenantApp(db: TenantTestDatabase): { app: Express; openApi: OpenApiBuilder } {
  const openApi = new OpenApiBuilder({ title: 'Tenant API', version: 'test' });
  const http = createHttpApp({ serviceName: 'tenant-test', logger: silentLogger(), openApi });
  http.app.use(tenantRouter(openApi, {
    facilities: new FacilityService(db.context),
    plans: new ReportingPlanService(db.context),
    mappings: new MeasureMappingService(db.context),
    vendors: new VendorService(db.context),
  }, { name: 'Link Tenant Service', version: 'test', instanceId: 'test-instance', startedAt: '2026-01-01T00:00:00.000Z' }));
  return { app: http.finish(), openApi };
}
