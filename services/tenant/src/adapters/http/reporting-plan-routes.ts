import { Router } from 'express';
import { z } from 'zod';
import {
  assertPutBody, limitParamLengths, requireUuidParams, pagedResult, pageOfList, PagingQueryFields, parseBody, parsePaging, parseSort, sendAccepted, sendCreated, sendPaged, type OpenApiBuilder,
} from '#adapters/http/index.js';
import { FACILITY_ID_MAX_LENGTH } from '../../domain/facility.js';
import type { ReportingPlanService } from '../../application/reporting-plan-service.js';
import { PLAN_SORT_FIELDS } from '../../domain/paging.js';
import { MEASURE_MAPPING_ID_MAX_LENGTH, MONTH_RANGE, YEAR_RANGE } from '../../domain/reporting-plan.js';
import { actorOf } from './actor.js';
import { booleanQueryValue, rangedIntegerQueryValue, toDomainOrder } from './query-values.js';
import { planRepresentation } from './representations.js';
import { pagedSchema, type TenantSchemas } from './schemas.js';

const IdParam = z.object({ id: z.string().uuid() });
const FacilityIdParam = z.object({ facilityId: z.string().openapi({ description: 'The organization identifier of the reporting facility as the tenant service knows it' }) });

/** Facility reporting plans: which measures a facility reports (isReporting) in which month. */
export function reportingPlanRoutes(openApi: OpenApiBuilder, schemas: TenantSchemas, service: ReportingPlanService): Router {
  const router = Router();
  // A plan's id column has the same length as a measure mapping's (450, the specification's record tables).
  limitParamLengths(router, { facilityId: FACILITY_ID_MAX_LENGTH, id: MEASURE_MAPPING_ID_MAX_LENGTH });
  requireUuidParams(router, ['id']);
  const json = (schema: z.ZodType) => ({ content: { 'application/json': { schema } } });
  const tags = ['Facility reporting plans'];

  openApi.registerPath({
    method: 'get', path: '/api/facility-reporting-plans', tags, summary: 'Get a paged list of every plan',
    request: {
      query: z.object({
        sortBy: z.enum(PLAN_SORT_FIELDS).optional().openapi({ description: 'Default Id; any other value is refused with 400' }),
        sortOrder: z.enum(['Ascending', 'Descending']).optional().openapi({ description: 'Default Descending' }),
        ...PagingQueryFields,
      }),
    },
    responses: { 200: { description: 'A page of plans', ...json(pagedSchema(schemas.ReportingPlan)) }, 204: { description: 'No plans' }, ...openApi.problemResponses(400, 500) },
  });
  router.get('/api/facility-reporting-plans', async (req, res) => {
    const paging = parsePaging(req.query);
    const sort = parseSort(req.query, { allowed: PLAN_SORT_FIELDS, defaultField: 'Id', defaultOrder: 'desc' });
    const page = await service.search({ by: sort.field, order: toDomainOrder(sort.order) }, paging);
    sendPaged(res, pagedResult(page.records.map(planRepresentation), page.totalCount, paging.pageSize, paging.pageNumber));
  });

  openApi.registerPath({
    method: 'post', path: '/api/facility-reporting-plans', tags, summary: 'Create a plan',
    request: { body: { required: true, ...json(schemas.ReportingPlanBody) } },
    responses: { 201: { description: 'Created', ...json(schemas.ReportingPlan) }, ...openApi.problemResponses(400, 409, 500) },
  });
  router.post('/api/facility-reporting-plans', async (req, res) => {
    const plan = await service.create(parseBody(schemas.ReportingPlanBody, req.body), actorOf(res));
    sendCreated(res, `/api/facility-reporting-plans/${plan.id}`, planRepresentation(plan));
  });

  openApi.registerPath({
    method: 'delete', path: '/api/facility-reporting-plans', tags, summary: 'Delete every plan',
    responses: { 204: { description: 'Deleted' }, ...openApi.problemResponses(500) },
  });
  router.delete('/api/facility-reporting-plans', async (_req, res) => {
    await service.removeAll(actorOf(res));
    res.status(204).end();
  });

  openApi.registerPath({
    method: 'get', path: '/api/facilities/:facilityId/reporting-plans', tags, summary: 'Get all plans of a facility',
    request: {
      params: FacilityIdParam,
      query: z.object({
        month: z.number().int().min(1).max(12).optional().openapi({ description: 'Omitted returns every month' }),
        year: z.number().int().min(2000).max(2100).optional().openapi({ description: 'Omitted returns every year' }),
        isReporting: z.boolean().optional().openapi({ description: 'true: measures the facility is enrolled in; false: withdrawn; omitted: both' }),
        ...PagingQueryFields,
      }),
    },
    responses: { 200: { description: 'A page of the plans', ...json(pagedSchema(schemas.ReportingPlan)) }, 204: { description: 'No plans match' }, ...openApi.problemResponses(400, 500) },
  });
  // A search (shared API conventions, GET search: the paged model, 204 when empty), though filtered by facility.
  router.get('/api/facilities/:facilityId/reporting-plans', async (req, res) => {
    const paging = parsePaging(req.query);
    const plans = await service.byFacility(req.params.facilityId, {
      month: rangedIntegerQueryValue(req.query, 'month', MONTH_RANGE.min, MONTH_RANGE.max),
      year: rangedIntegerQueryValue(req.query, 'year', YEAR_RANGE.min, YEAR_RANGE.max),
      isReporting: booleanQueryValue(req.query, 'isReporting'),
    });
    sendPaged(res, pageOfList(plans.map(planRepresentation), paging));
  });

  openApi.registerPath({
    method: 'delete', path: '/api/facilities/:facilityId/reporting-plans', tags, summary: 'Delete every plan of a facility',
    request: { params: FacilityIdParam },
    responses: { 204: { description: 'Deleted' }, ...openApi.problemResponses(500) },
  });
  router.delete('/api/facilities/:facilityId/reporting-plans', async (req, res) => {
    await service.removeByFacility(req.params.facilityId, actorOf(res));
    res.status(204).end();
  });

  openApi.registerPath({
    method: 'get', path: '/api/facility-reporting-plans/:id', tags, summary: 'Get a plan by id',
    request: { params: IdParam },
    responses: { 200: { description: 'The plan', ...json(schemas.ReportingPlan) }, ...openApi.problemResponses(404, 500) },
  });
  router.get('/api/facility-reporting-plans/:id', async (req, res) => {
    res.json(planRepresentation(await service.get(req.params.id)));
  });

  openApi.registerPath({
    method: 'put', path: '/api/facility-reporting-plans/:id', tags, summary: 'Update a plan',
    description: 'The body id must equal the URL id (a UUID; otherwise 400 Invalid Id format). Only an existing plan is updated.',
    request: { params: IdParam, body: { required: true, ...json(schemas.ReportingPlanBody) } },
    responses: { 202: { description: 'Updated', ...json(schemas.ReportingPlan) }, ...openApi.problemResponses(400, 404, 409, 500) },
  });
  router.put('/api/facility-reporting-plans/:id', async (req, res) => {
    assertPutBody(req.params.id, req.body, { uuid: true });
    const body = parseBody(schemas.ReportingPlanBody, req.body);
    sendAccepted(res, planRepresentation(await service.update(req.params.id, body, actorOf(res))));
  });

  openApi.registerPath({
    method: 'delete', path: '/api/facility-reporting-plans/:id', tags, summary: 'Delete a plan',
    request: { params: IdParam },
    responses: { 204: { description: 'Deleted' }, ...openApi.problemResponses(404, 500) },
  });
  router.delete('/api/facility-reporting-plans/:id', async (req, res) => {
    await service.remove(req.params.id, actorOf(res));
    res.status(204).end();
  });

  return router;
}
