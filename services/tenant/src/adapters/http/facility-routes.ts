import { Router } from 'express';
import { z } from 'zod';
import {
  HttpProblem, limitParamLengths, pagedResult, PagingQueryFields, parseBody, parsePaging, parseSort, sendAccepted, sendCreated, sendPaged, type OpenApiBuilder,
} from '#adapters/http/index.js';
import { FACILITY_ID_MAX_LENGTH } from '../../domain/facility.js';
import type { FacilityService } from '../../application/facility-service.js';
import { FACILITY_SORT_FIELDS } from '../../domain/paging.js';
import { actorOf } from './actor.js';
import { facilityRepresentation } from './representations.js';
import {
  FacilityListItemSchema, GenerateReportBodySchema, NextRunSchema, RegenerateReportBodySchema, ReportIdSchema, pagedSchema, type TenantSchemas,
} from './schemas.js';
import { booleanQueryValue, rangedIntegerQueryValue, textQueryValue, toDomainOrder } from './query-values.js';

const FacilityIdParam = z.object({ facilityId: z.string().openapi({ example: 'Hospital-123' }) });

/**
 * Facility routes. The specification fixes one path, `DELETE /api/Facility/softDelete/{facilityId}`
 * (routing is case-insensitive, so `/api/facility/softdelete/...` works as well); the others follow
 * the conventions: lower case, hyphens, plural nouns, `$operation` for actions that are not CRUD.
 */
export function facilityRoutes(openApi: OpenApiBuilder, schemas: TenantSchemas, service: FacilityService): Router {
  const router = Router();
  limitParamLengths(router, { facilityId: FACILITY_ID_MAX_LENGTH });
  const json = (schema: z.ZodType) => ({ content: { 'application/json': { schema } } });
  const tags = ['Facilities'];

  openApi.registerPath({
    method: 'get', path: '/api/facilities', tags, summary: 'Get facilities (paged)',
    request: {
      query: z.object({
        facilityId: z.string().optional(), facilityName: z.string().optional().openapi({ description: 'Case-insensitive substring' }),
        timeZone: z.string().optional(), sortBy: z.enum(FACILITY_SORT_FIELDS).optional().openapi({ description: 'Default FacilityId' }),
        sortOrder: z.enum(['Ascending', 'Descending']).optional().openapi({ description: 'Default Ascending' }),
        ...PagingQueryFields, includeDeleted: z.boolean().optional(),
      }),
    },
    responses: { 200: { description: 'A page of facilities', ...json(pagedSchema(schemas.Facility)) }, 204: { description: 'No facility matches' }, ...openApi.problemResponses(400, 500) },
  });
  router.get('/api/facilities', async (req, res) => {
    const paging = parsePaging(req.query);
    const sort = parseSort(req.query, { allowed: FACILITY_SORT_FIELDS, defaultField: 'FacilityId', defaultOrder: 'asc' });
    const page = await service.search({
      facilityId: textQueryValue(req.query, 'facilityId'),
      facilityName: textQueryValue(req.query, 'facilityName'),
      timeZone: textQueryValue(req.query, 'timeZone'),
      includeDeleted: booleanQueryValue(req.query, 'includeDeleted') ?? false,
    }, { by: sort.field, order: toDomainOrder(sort.order) }, paging);
    sendPaged(res, pagedResult(page.records.map(facilityRepresentation), page.totalCount, paging.pageSize, paging.pageNumber));
  });

  openApi.registerPath({
    method: 'post', path: '/api/facilities', tags, summary: 'Create a facility configuration',
    request: { body: { required: true, ...json(schemas.FacilityBody) } },
    responses: { 201: { description: 'Created; Location holds its URI', ...json(schemas.Facility) }, ...openApi.problemResponses(400, 409, 500) },
  });
  router.post('/api/facilities', async (req, res) => {
    const body = parseBody(schemas.FacilityBody, req.body);
    const facility = await service.create(body, actorOf(res));
    sendCreated(res, `/api/facilities/${encodeURIComponent(facility.facilityId)}`, facilityRepresentation(facility));
  });

  openApi.registerPath({
    method: 'get', path: '/api/facilities/list', tags, summary: 'Get a list of all facilities',
    request: { query: z.object({ search: z.string().optional().openapi({ description: 'Case-insensitive substring of name or id' }), includeDeleted: z.boolean().optional() }) },
    responses: { 200: { description: 'Facilities ordered by facilityId', ...json(z.array(FacilityListItemSchema)) }, 204: { description: 'No facility matches' }, ...openApi.problemResponses(400, 500) },
  });
  router.get('/api/facilities/list', async (req, res) => {
    const list = await service.list(textQueryValue(req.query, 'search'), booleanQueryValue(req.query, 'includeDeleted') ?? false);
    if (list.length === 0) {
      res.status(204).end();
      return;
    }
    res.json(list.map((facility) => ({ facilityId: facility.facilityId, facilityName: facility.facilityName, isDeleted: facility.isDeleted })));
  });

  openApi.registerPath({
    method: 'get', path: '/api/facilities/:facilityId', tags, summary: 'Get a facility configuration by facilityId',
    request: { params: FacilityIdParam },
    responses: { 200: { description: 'The facility (soft-deleted ones carry isDeleted true)', ...json(schemas.Facility) }, ...openApi.problemResponses(404, 500) },
  });
  router.get('/api/facilities/:facilityId', async (req, res) => {
    res.json(facilityRepresentation(await service.get(req.params.facilityId)));
  });

  openApi.registerPath({
    method: 'put', path: '/api/facilities/:facilityId', tags, summary: 'Update a facility configuration',
    description: 'Only an existing facility is updated. The body\'s facilityId must equal the URL\'s; the facilityId itself cannot change. A change of time zone or scheduled reports reschedules at once.',
    request: { params: FacilityIdParam, body: { required: true, ...json(schemas.FacilityBody) } },
    responses: { 202: { description: 'Updated', ...json(schemas.Facility) }, ...openApi.problemResponses(400, 404, 500) },
  });
  router.put('/api/facilities/:facilityId', async (req, res) => {
    const body = parseBody(schemas.FacilityBody, req.body);
    if (body.facilityId !== req.params.facilityId) {
      throw HttpProblem.badRequest('Body facilityId must equal the facilityId in the URL', [{ field: 'facilityId', message: 'must equal the facilityId in the URL' }]);
    }
    sendAccepted(res, facilityRepresentation(await service.update(req.params.facilityId, body, actorOf(res))));
  });

  openApi.registerPath({
    method: 'delete', path: '/api/facilities/:facilityId', tags, summary: 'Delete a facility configuration',
    description: 'Removes the facility, its reporting plans and its schedules for good. Use soft delete to keep them.',
    request: { params: FacilityIdParam },
    responses: { 204: { description: 'Deleted' }, ...openApi.problemResponses(404, 500) },
  });
  router.delete('/api/facilities/:facilityId', async (req, res) => {
    await service.remove(req.params.facilityId, actorOf(res));
    res.status(204).end();
  });

  openApi.registerPath({
    method: 'delete', path: '/api/Facility/softDelete/:facilityId', tags, summary: 'Soft delete a facility',
    description: 'Sets isDeleted: the configuration and history are kept, the facility leaves every list unless includeDeleted, and its schedules stop.',
    request: { params: FacilityIdParam },
    responses: { 200: { description: 'The updated facility configuration', ...json(schemas.Facility) }, ...openApi.problemResponses(400, 404, 500) },
  });
  router.delete('/api/Facility/softDelete/:facilityId', async (req, res) => {
    res.json(facilityRepresentation(await service.softDelete(req.params.facilityId, actorOf(res))));
  });

  openApi.registerPath({
    method: 'post', path: '/api/facilities/:facilityId/$restore', tags, summary: 'Restore a soft-deleted facility configuration',
    request: { params: FacilityIdParam },
    responses: { 200: { description: 'The facility, active again', ...json(schemas.Facility) }, ...openApi.problemResponses(400, 404, 500) },
  });
  router.post('/api/facilities/:facilityId/$restore', async (req, res) => {
    res.json(facilityRepresentation(await service.restore(req.params.facilityId, actorOf(res))));
  });

  openApi.registerPath({
    method: 'post', path: '/api/facilities/:facilityId/$generate-report', tags, summary: 'Generate a report now',
    description: 'Sends GenerateReportRequested (new report id, the period, the measures, optional patient ids) and answers the report id.',
    request: { params: FacilityIdParam, body: { required: true, ...json(GenerateReportBodySchema) } },
    responses: { 200: { description: 'The new report id', ...json(ReportIdSchema) }, ...openApi.problemResponses(400, 404, 500) },
  });
  router.post('/api/facilities/:facilityId/$generate-report', async (req, res) => {
    const body = parseBody(GenerateReportBodySchema, req.body);
    const result = await service.generateReport(req.params.facilityId, {
      startDate: new Date(body.startDate), endDate: new Date(body.endDate), measures: body.measures, patientIds: body.patientIds, bypassSubmission: body.bypassSubmission,
    }, actorOf(res));
    res.json(result);
  });

  openApi.registerPath({
    method: 'post', path: '/api/facilities/:facilityId/$regenerate-report', tags, summary: 'Regenerate an existing report',
    request: { params: FacilityIdParam, body: { required: true, ...json(RegenerateReportBodySchema) } },
    responses: { 200: { description: 'The report id', ...json(ReportIdSchema) }, ...openApi.problemResponses(400, 404, 500) },
  });
  router.post('/api/facilities/:facilityId/$regenerate-report', async (req, res) => {
    const body = parseBody(RegenerateReportBodySchema, req.body);
    res.json(await service.regenerateReport(req.params.facilityId, body.reportId, { bypassSubmission: body.bypassSubmission }, actorOf(res)));
  });

  openApi.registerPath({
    method: 'get', path: '/api/facilities/:facilityId/next-runs', tags, summary: 'Show the facility\'s next scheduled report runs',
    request: { params: FacilityIdParam, query: z.object({ count: z.number().int().min(1).max(50).optional().openapi({ description: 'Periods per frequency; default 3' }) }) },
    responses: { 200: { description: 'Per scheduled frequency: the next firing and the next periods', ...json(z.array(NextRunSchema)) }, ...openApi.problemResponses(400, 404, 500) },
  });
  router.get('/api/facilities/:facilityId/next-runs', async (req, res) => {
    const count = rangedIntegerQueryValue(req.query, 'count', 1, 50) ?? 3;
    res.json(await service.nextRuns(req.params.facilityId, count));
  });

  return router;
}
