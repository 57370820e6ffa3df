import { Router, type Response } from 'express';
import { z } from 'zod';
import { limitParamLengths, pagedResult, renamedRoutes, PagingQueryFields, parsePaging, sendPaged, singleQueryValue, type OpenApiBuilder } from '#adapters/http/index.js';
import type { ResultService } from '../../application/result-service.js';
import type { ValidationApiSchemas } from './schemas.js';
import { STORED_ID_LENGTH } from './stored-lengths.js';

const ReportParams = z.object({ facilityId: z.string(), reportId: z.string() });
const PageQuery = z.object(PagingQueryFields);
const SeverityQuery = PageQuery.extend({
  severity: z.string().optional().openapi({ description: 'Minimum severity: information < warning < error < fatal (any case); unknown values are refused' }),
});

/**
 * Stored validation results of a facility's report, paged (204 when the page is empty).
 *
 * `/api/result/{facilityId}/{reportId}/{patientId}` is the original system's route: any segment
 * after the report is a patient id. The routes this project added under a report are therefore
 * `$`-named (`$categories`, `$validity`), as FHIR names operations: `$` is no character of a FHIR
 * id, so no patient (not even one with the id `categories` or `validity`) is shadowed by them
 * (specification, Routes, and the operation tables: every patient's results reachable).
 */
export function resultRoutes(openApi: OpenApiBuilder, schemas: ValidationApiSchemas, service: ResultService): Router {
  const router = Router();
  limitParamLengths(router, { facilityId: STORED_ID_LENGTH, reportId: STORED_ID_LENGTH, patientId: STORED_ID_LENGTH, categoryId: STORED_ID_LENGTH });
  const tags = ['Results'];
  const json = (schema: z.ZodType) => ({ content: { 'application/json': { schema } } });
  const send = (res: Response, found: { records: readonly unknown[]; totalCount: number }, paging: { pageSize: number; pageNumber: number }) =>
    sendPaged(res, pagedResult(found.records, found.totalCount, paging.pageSize, paging.pageNumber));

  openApi.registerPath({
    method: 'get', path: '/api/result/:facilityId/:reportId', tags, summary: 'Get results of a facility and report',
    request: { params: ReportParams, query: SeverityQuery },
    responses: { 200: { description: 'A page of results', ...json(schemas.PagedResults) }, 204: { description: 'No results on this page' }, ...openApi.problemResponses(400, 500) },
  });
  router.get('/api/result/:facilityId/:reportId', async (req, res) => {
    const minimum = service.parseMinimumSeverity(singleQueryValue(req.query, 'severity'));
    const paging = parsePaging(req.query);
    const { facilityId, reportId } = req.params;
    send(res, await service.find({ facilityId, reportId }, minimum, { offset: paging.offset, limit: paging.pageSize }), paging);
  });

  openApi.registerPath({
    method: 'get', path: '/api/result/:facilityId/:reportId/$categories', tags, summary: 'Get categories that have issues for a facility and report',
    description: 'With the number of issues in each (an issue in two categories counts in both); `uncategorized` counts issues without a category.',
    request: { params: ReportParams },
    responses: { 200: { description: 'Categories, most issues first', ...json(z.array(schemas.CategoryWithCount)) }, 204: { description: 'No results' }, ...openApi.problemResponses(500) },
  });
  router.get('/api/result/:facilityId/:reportId/$categories', async (req, res) => {
    const categories = await service.categoriesWithCounts(req.params.facilityId, req.params.reportId);
    if (categories.length === 0) res.status(204).end();
    else res.json(categories);
  });

  openApi.registerPath({
    method: 'get', path: '/api/result/:facilityId/:reportId/$categories/:categoryId', tags, summary: 'Get issues of one category for a facility and report',
    request: { params: ReportParams.extend({ categoryId: z.string() }), query: PageQuery },
    responses: { 200: { description: 'A page of results', ...json(schemas.PagedResults) }, 204: { description: 'No results on this page' }, ...openApi.problemResponses(400, 404, 500) },
  });
  router.get('/api/result/:facilityId/:reportId/$categories/:categoryId', async (req, res) => {
    const paging = parsePaging(req.query);
    const { facilityId, reportId, categoryId } = req.params;
    send(res, await service.issuesOfCategory(facilityId, reportId, categoryId, { offset: paging.offset, limit: paging.pageSize }), paging);
  });

  const validityDescription = 'Valid when no issue is in a category that is not acceptable and no error or fatal issue is uncategorized '
    + '(the rule ValidationComplete and the pre-qualification report use). 404 when nothing was validated: no results is no verdict.';
  const validityResponses = { 200: { description: 'The verdict with its counts', ...json(schemas.StoredValidity) }, ...openApi.problemResponses(404, 500) };
  openApi.registerPath({
    method: 'get', path: '/api/result/:facilityId/:reportId/$validity', tags, summary: 'Get the validity verdict of a report\'s stored results',
    description: validityDescription, request: { params: ReportParams }, responses: validityResponses,
  });
  router.get('/api/result/:facilityId/:reportId/$validity', async (req, res) => {
    res.json(await service.validity({ facilityId: req.params.facilityId, reportId: req.params.reportId }));
  });

  // The path a patient's verdict had before (it shadows no patient: it is one segment longer), kept
  // for one release. Mounted after the $categories routes, so a category `validity` stays theirs.
  router.use(renamedRoutes(openApi, [{ from: '/api/result/:facilityId/:reportId/:patientId/validity', to: '/api/result/:facilityId/:reportId/:patientId/$validity' }]));
  openApi.registerPath({
    method: 'get', path: '/api/result/:facilityId/:reportId/:patientId/$validity', tags, summary: 'Get the validity verdict of one patient\'s submission',
    description: validityDescription, request: { params: ReportParams.extend({ patientId: z.string() }) }, responses: validityResponses,
  });
  router.get('/api/result/:facilityId/:reportId/:patientId/$validity', async (req, res) => {
    const { facilityId, reportId, patientId } = req.params;
    res.json(await service.validity({ facilityId, reportId, patientId }));
  });

  openApi.registerPath({
    method: 'get', path: '/api/result/:facilityId/:reportId/:patientId', tags, summary: 'Get results of a facility, report and patient',
    request: { params: ReportParams.extend({ patientId: z.string() }), query: SeverityQuery },
    responses: { 200: { description: 'A page of results', ...json(schemas.PagedResults) }, 204: { description: 'No results on this page' }, ...openApi.problemResponses(400, 500) },
  });
  router.get('/api/result/:facilityId/:reportId/:patientId', async (req, res) => {
    const minimum = service.parseMinimumSeverity(singleQueryValue(req.query, 'severity'));
    const paging = parsePaging(req.query);
    const { facilityId, reportId, patientId } = req.params;
    send(res, await service.find({ facilityId, reportId, patientId }, minimum, { offset: paging.offset, limit: paging.pageSize }), paging);
  });

  return router;
}
