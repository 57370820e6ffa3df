import { Router } from 'express';
import type { OpenApiBuilder } from '#adapters/http/index.js';
import type { FacilityService } from '../../application/facility-service.js';
import type { MeasureMappingService } from '../../application/measure-mapping-service.js';
import type { ReportingPlanService } from '../../application/reporting-plan-service.js';
import type { VendorService } from '../../application/vendor-service.js';
import { facilityRoutes } from './facility-routes.js';
import { measureMappingRoutes } from './measure-mapping-routes.js';
import { reportingPlanRoutes } from './reporting-plan-routes.js';
import { registerTenantSchemas } from './schemas.js';
import { serviceInfoRoutes, type ServiceInfo } from './service-info.js';
import { vendorRoutes } from './vendor-routes.js';

export interface TenantServices {
  readonly facilities: FacilityService;
  readonly plans: ReportingPlanService;
  readonly mappings: MeasureMappingService;
  readonly vendors: VendorService;
}

/**
 * Every tenant route, registered in the OpenAPI document, in one router to mount on the app
 * created by adapters/http (before `finish()`). Domain errors become Problem Details in the app's
 * error handler (adapters/http/domain-problems.ts).
 */
export function tenantRouter(openApi: OpenApiBuilder, services: TenantServices, info: ServiceInfo): Router {
  const schemas = registerTenantSchemas(openApi);
  const router = Router();
  router.use(facilityRoutes(openApi, schemas, services.facilities));
  router.use(reportingPlanRoutes(openApi, schemas, services.plans));
  router.use(measureMappingRoutes(openApi, schemas, services.mappings));
  router.use(vendorRoutes(openApi, schemas, services.vendors));
  router.use(serviceInfoRoutes(openApi, info));
  return router;
}
