import { Router } from 'express';
import type { OpenApiBuilder } from '#adapters/http/index.js';
import { ServiceInfoSchema } from './schemas.js';

export interface ServiceInfo {
  readonly name: string;
  readonly version: string;
  readonly instanceId: string;
  readonly startedAt: string;
}

export function serviceInfoRoutes(openApi: OpenApiBuilder, info: ServiceInfo): Router {
  const router = Router();
  openApi.registerPath({
    method: 'get', path: '/api/service-info', tags: ['Service'], summary: 'Name and version of the service',
    responses: { 200: { description: 'Service information', content: { 'application/json': { schema: ServiceInfoSchema } } } },
  });
  router.get('/api/service-info', (_req, res) => {
    res.json(info);
  });
  return router;
}
