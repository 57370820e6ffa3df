import { Router } from 'express';
import { z } from 'zod';
import { limitParamLengths, parseBody, requireUuidParams, sendAccepted, sendCreated, type OpenApiBuilder } from '#adapters/http/index.js';
import { MEASURE_MAPPING_ID_MAX_LENGTH } from '../../domain/reporting-plan.js';
import type { MeasureMappingService } from '../../application/measure-mapping-service.js';
import { actorOf } from './actor.js';
import { mappingRepresentation } from './representations.js';
import type { TenantSchemas } from './schemas.js';

const IdParam = z.object({ id: z.string() });

/** Measure mappings (measure ↔ dQM id ↔ frequency); the reference list for CheckIfMeasureExists. */
export function measureMappingRoutes(openApi: OpenApiBuilder, schemas: TenantSchemas, service: MeasureMappingService): Router {
  const router = Router();
  limitParamLengths(router, { id: MEASURE_MAPPING_ID_MAX_LENGTH });
  // The service gives mappings UUIDs: any other id is 400 'Invalid Id format' (shared API conventions, PUT id format), not 404.
  requireUuidParams(router, ['id']);
  const json = (schema: z.ZodType) => ({ content: { 'application/json': { schema } } });
  const tags = ['Measure mappings'];

  openApi.registerPath({
    method: 'get', path: '/api/measure-mappings', tags, summary: 'Get every measure mapping',
    responses: { 200: { description: 'Mappings ordered by measure', ...json(z.array(schemas.MeasureMapping)) }, 204: { description: 'No mappings' }, ...openApi.problemResponses(500) },
  });
  router.get('/api/measure-mappings', async (_req, res) => {
    const mappings = await service.list();
    if (mappings.length === 0) {
      res.status(204).end();
      return;
    }
    res.json(mappings.map(mappingRepresentation));
  });

  openApi.registerPath({
    method: 'post', path: '/api/measure-mappings', tags, summary: 'Create a measure mapping',
    request: { body: { required: true, ...json(schemas.MeasureMappingBody) } },
    responses: { 201: { description: 'Created', ...json(schemas.MeasureMapping) }, ...openApi.problemResponses(400, 409, 500) },
  });
  router.post('/api/measure-mappings', async (req, res) => {
    const mapping = await service.create(parseBody(schemas.MeasureMappingBody, req.body), actorOf(res));
    sendCreated(res, `/api/measure-mappings/${encodeURIComponent(mapping.id)}`, mappingRepresentation(mapping));
  });

  openApi.registerPath({
    method: 'delete', path: '/api/measure-mappings', tags, summary: 'Delete every measure mapping',
    responses: { 204: { description: 'Deleted' }, ...openApi.problemResponses(500) },
  });
  router.delete('/api/measure-mappings', async (_req, res) => {
    await service.removeAll(actorOf(res));
    res.status(204).end();
  });

  openApi.registerPath({
    method: 'get', path: '/api/measure-mappings/:id', tags, summary: 'Get a measure mapping by id',
    request: { params: IdParam },
    responses: { 200: { description: 'The mapping', ...json(schemas.MeasureMapping) }, ...openApi.problemResponses(400, 404, 500) },
  });
  router.get('/api/measure-mappings/:id', async (req, res) => {
    res.json(mappingRepresentation(await service.get(req.params.id)));
  });

  openApi.registerPath({
    method: 'put', path: '/api/measure-mappings/:id', tags, summary: 'Update a measure mapping',
    description: 'The route id wins over any id in the body (specification). Only an existing mapping is updated. A route id that is not a UUID: 400 Invalid Id format.',
    request: { params: IdParam, body: { required: true, ...json(schemas.MeasureMappingBody) } },
    responses: { 202: { description: 'Updated', ...json(schemas.MeasureMapping) }, ...openApi.problemResponses(400, 404, 409, 500) },
  });
  router.put('/api/measure-mappings/:id', async (req, res) => {
    const body = parseBody(schemas.MeasureMappingBody, req.body);
    sendAccepted(res, mappingRepresentation(await service.update(req.params.id, body, actorOf(res))));
  });

  openApi.registerPath({
    method: 'delete', path: '/api/measure-mappings/:id', tags, summary: 'Delete a measure mapping',
    request: { params: IdParam },
    responses: { 204: { description: 'Deleted' }, ...openApi.problemResponses(400, 404, 500) },
  });
  router.delete('/api/measure-mappings/:id', async (req, res) => {
    await service.remove(req.params.id, actorOf(res));
    res.status(204).end();
  });

  return router;
}
