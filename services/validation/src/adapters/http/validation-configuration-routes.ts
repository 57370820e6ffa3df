import { Router } from 'express';
import { z } from 'zod';
import {
  assertPutBody, limitParamLengths, pagedResult, PagingQueryFields, parseBody, parsePaging, renamedRoutes, sendAccepted, sendCreated, sendPaged, type OpenApiBuilder,
} from '#adapters/http/index.js';
import type { ValidationConfigurationService } from '../../application/validation-configuration-service.js';
import { SETTINGS } from '../../domain/engine/settings-input.js';
import { CONFIGURATION_NAME_LENGTH, STORED_ID_LENGTH } from './stored-lengths.js';

const PageQuery = z.object(PagingQueryFields);
const NameParams = z.object({ name: z.string().openapi({ example: 'nhsn-ig-1.1' }) });
const FacilityParams = z.object({ facilityId: z.string().openapi({ example: 'facility-1' }) });
const AssignBody = z.object({ name: z.string().min(1).max(CONFIGURATION_NAME_LENGTH).openapi({ description: 'Name of an existing validation configuration', example: 'nhsn-ig-1.1' }) });

const location = (name: string) => `/api/validation-configurations/${encodeURIComponent(name)}`;

/**
 * Per-facility validation configurations (which IG packages, with versions, and which RESOURCE
 * artifacts a facility's submissions are validated against) and their assignment to facilities.
 * A facility without one validates against all artifacts. Assignments reach the validation flow
 * within the scopes' cache time (10 s) in every instance. The use case refuses with the shared
 * vocabulary's errors; the app's error handler answers them (400 naming the field, 404, 409).
 */
export function validationConfigurationRoutes(openApi: OpenApiBuilder, configurations: ValidationConfigurationService): Router {
  const router = Router();
  limitParamLengths(router, { name: CONFIGURATION_NAME_LENGTH, facilityId: STORED_ID_LENGTH });
  // Routes of this project, named by the conventions (plural nouns); the singular paths they had answer for one release.
  router.use(renamedRoutes(openApi, [
    { from: '/api/validation-configuration', to: '/api/validation-configurations' },
    { from: '/api/validation-configuration/:name', to: '/api/validation-configurations/:name' },
    { from: '/api/facility/:facilityId/validation-configuration', to: '/api/facilities/:facilityId/validation-configuration' },
  ]));
  const tags = ['Validation configurations'];
  const json = (schema: z.ZodType) => ({ content: { 'application/json': { schema } } });

  const PackagePin = z.object({ name: z.string().min(1), version: z.string().min(1) });
  const Configuration = openApi.register('ValidationConfiguration', z.object({
    name: z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/).openapi({ example: 'nhsn-ig-1.1' }),
    packages: z.array(PackagePin).openapi({ description: 'Packages that apply, with their versions (R4 core always applies)' }),
    resources: z.array(z.string().min(1)).optional().openapi({ description: 'RESOURCE artifacts that apply, by canonical URL or id; absent = all' }),
    exclusive: z.boolean().optional().openapi({
      description: 'true (default): only the listed packages (and core) are visible, so list the dependencies too; '
        + 'false: the listed versions win over other versions of the same packages, other packages stay visible',
    }),
    settings: z.object(Object.fromEntries(SETTINGS.map((s) => [s.name, z.unknown().optional().openapi({ description: `${s.description} (HL7 ${s.flag})` })])))
      .optional().openapi({ description: 'The HL7 validator\'s settings for the facilities\' submissions (docs/validator-settings.md); absent: the engine\'s defaults' }),
  }));
  const PagedConfigurations = openApi.register('PagedValidationConfigurations', z.object({
    records: z.array(Configuration),
    metadata: z.object({ pageSize: z.number().int(), pageNumber: z.number().int(), totalCount: z.number().int(), totalPages: z.number().int() }),
  }));

  openApi.registerPath({
    method: 'get', path: '/api/validation-configurations', tags, summary: 'Get validation configurations (paged)',
    request: { query: PageQuery },
    responses: { 200: { description: 'A page of configurations, by name', ...json(PagedConfigurations) }, 204: { description: 'None on this page' }, ...openApi.problemResponses(400, 500) },
  });
  router.get('/api/validation-configurations', async (req, res) => {
    const paging = parsePaging(req.query);
    const page = await configurations.page(paging.offset, paging.pageSize);
    sendPaged(res, pagedResult(page.records, page.totalCount, paging.pageSize, paging.pageNumber));
  });

  openApi.registerPath({
    method: 'post', path: '/api/validation-configurations', tags, summary: 'Create a validation configuration',
    description: 'An invalid definition (e.g. a package without a version) is refused with 400 naming the field; an existing name with 409.',
    request: { body: { required: true, ...json(Configuration) } },
    responses: { 201: { description: 'Created', ...json(Configuration) }, ...openApi.problemResponses(400, 409, 500) },
  });
  router.post('/api/validation-configurations', async (req, res) => {
    const scope = await configurations.create(req.body);
    sendCreated(res, location(scope.name), scope);
  });

  openApi.registerPath({
    method: 'get', path: '/api/validation-configurations/:name', tags, summary: 'Get a validation configuration',
    request: { params: NameParams },
    responses: { 200: { description: 'The configuration', ...json(Configuration) }, ...openApi.problemResponses(404, 500) },
  });
  router.get('/api/validation-configurations/:name', async (req, res) => {
    res.json(await configurations.get(req.params.name));
  });

  openApi.registerPath({
    method: 'put', path: '/api/validation-configurations/:name', tags, summary: 'Replace a validation configuration',
    description: 'Only an existing configuration (404 otherwise); the body name must equal the URL name (400). '
      + 'Facilities assigned it validate against the new definition within 10 s.',
    request: { params: NameParams, body: { required: true, ...json(Configuration) } },
    responses: { 202: { description: 'Replaced', ...json(Configuration) }, ...openApi.problemResponses(400, 404, 500) },
  });
  router.put('/api/validation-configurations/:name', async (req, res) => {
    const body = assertPutBody(req.params.name, req.body, { idField: 'name' });
    sendAccepted(res, await configurations.replace(req.params.name, body));
  });

  openApi.registerPath({
    method: 'delete', path: '/api/validation-configurations/:name', tags, summary: 'Delete a validation configuration',
    description: 'Refused (409 `validation-configuration-in-use`, its `facilities` member listing them) while facilities are assigned it: unassign them first, '
      + 'so that no facility is silently moved back to all artifacts.',
    request: { params: NameParams },
    responses: { 204: { description: 'Deleted' }, ...openApi.problemResponses(404, 409, 500) },
  });
  router.delete('/api/validation-configurations/:name', async (req, res) => {
    await configurations.delete(req.params.name);
    res.status(204).end();
  });

  openApi.registerPath({
    method: 'get', path: '/api/facilities/:facilityId/validation-configuration', tags, summary: 'Get the validation configuration of a facility',
    request: { params: FacilityParams },
    responses: { 200: { description: 'The assigned configuration', ...json(Configuration) }, ...openApi.problemResponses(404, 500) },
  });
  router.get('/api/facilities/:facilityId/validation-configuration', async (req, res) => {
    res.json(await configurations.ofFacility(req.params.facilityId));
  });

  openApi.registerPath({
    method: 'put', path: '/api/facilities/:facilityId/validation-configuration', tags, summary: 'Assign a validation configuration to a facility',
    description: 'Replaces any previous assignment; effective within 10 s in every instance. 404 when the configuration does not exist.',
    request: { params: FacilityParams, body: { required: true, ...json(AssignBody) } },
    responses: { 202: { description: 'Assigned; the body is the configuration', ...json(Configuration) }, ...openApi.problemResponses(400, 404, 500) },
  });
  router.put('/api/facilities/:facilityId/validation-configuration', async (req, res) => {
    const { name } = parseBody(AssignBody, req.body);
    sendAccepted(res, await configurations.assign(req.params.facilityId, name));
  });

  openApi.registerPath({
    method: 'delete', path: '/api/facilities/:facilityId/validation-configuration', tags, summary: 'Unassign the validation configuration of a facility',
    description: 'The facility validates against all artifacts again (within 10 s). Idempotent.',
    request: { params: FacilityParams },
    responses: { 204: { description: 'Unassigned' }, ...openApi.problemResponses(500) },
  });
  router.delete('/api/facilities/:facilityId/validation-configuration', async (req, res) => {
    await configurations.unassign(req.params.facilityId);
    res.status(204).end();
  });

  return router;
}
