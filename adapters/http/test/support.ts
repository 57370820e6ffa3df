import express, { Router } from 'express';
import { z } from 'zod';
import { pino } from 'pino';
import { silentLogger, type Logger } from '../../observability/logger.js';
import { currentContext } from '../../observability/request-context.js';
import { UpstreamError } from '../../outbound-http/upstream-error.js';
import {
  HttpProblem, OpenApiBuilder, assertPutBody, createHttpApp, pagedResult, parseBody, parsePaging, parseSort,
  requireContentType, requireUuidParams, sendAccepted, sendCreated, sendPaged, type ReadinessCheck,
} from '../index.js';

export const FacilitySchema = z.object({
  id: z.string().uuid(),
  facilityName: z.string().min(1),
  timeZone: z.string().min(1),
  tags: z.array(z.string().min(1)).optional(),
}).openapi('Facility');

/** A pino line as the tests read it: the fields asserted on typed, the rest as logged. */
export interface LogLine { level?: number; msg?: string; err?: { message?: string }; [field: string]: unknown }

export interface LogCapture { logger: Logger; lines: LogLine[] }

/** A logger whose lines are collected in memory (for asserting what gets logged). */
export function capturingLogger(): LogCapture {
  const lines: LogLine[] = [];
  const logger = pino({ level: 'debug' }, { write: (line: string) => { lines.push(JSON.parse(line) as LogLine); } });
  return { logger, lines };
}

const ALL = Array.from({ length: 23 }, (_, index) => ({ id: index + 1, name: `facility ${index + 1}` }));

/** A small service built the way real services are: routers under a prefix, then finish(). */
export function buildTestApp(options: { readiness?: ReadinessCheck[]; logger?: Logger; jsonLimit?: string; rawLimit?: string } = {}) {
  const openApi = new OpenApiBuilder({ title: 'Test API', version: '1.2.3' });
  const http = createHttpApp({
    serviceName: 'http-test', logger: options.logger ?? silentLogger(), openApi, readiness: options.readiness,
    jsonLimit: options.jsonLimit ?? '1kb', rawLimit: options.rawLimit,
    anyMediaTypeRoutes: [{ method: 'PUT', path: /^\/api\/blobs\/[^/]+$/ }],
  });
  const router = Router();
  requireUuidParams(router, ['planId']);

  openApi.registerPath({
    method: 'put', path: '/configs/facilities/:facilityId',
    request: { params: z.object({ facilityId: z.string().uuid() }), body: { content: { 'application/json': { schema: FacilitySchema } } } },
    responses: { 202: { description: 'Updated', content: { 'application/json': { schema: FacilitySchema } } }, ...openApi.problemResponses(400, 404) },
  });

  router.get('/facilities', (req, res) => {
    const paging = parsePaging(req.query);
    const sort = parseSort(req.query, { allowed: ['Id', 'FacilityName', 'CreateDate'], defaultField: 'Id', defaultOrder: 'desc' });
    const empty = req.query.empty === 'true';
    const records = empty ? [] : ALL.slice(paging.offset, paging.offset + paging.pageSize);
    res.setHeader('X-Sort', `${sort.field} ${sort.order}`);
    sendPaged(res, pagedResult(records, empty ? 0 : ALL.length, paging.pageSize, paging.pageNumber));
  });
  router.post('/facilities', (req, res) => {
    const facility = parseBody(FacilitySchema, req.body);
    sendCreated(res, `/api/facilities/${facility.id}`, facility);
  });
  router.get('/facilities/:facilityId', (req) => {
    throw HttpProblem.notFound(`Facility ${req.params.facilityId} not found`);
  });
  router.put('/facilities/:facilityId', (req, res) => {
    const body = assertPutBody(req.params.facilityId, req.body, { uuid: true });
    sendAccepted(res, parseBody(FacilitySchema, body));
  });
  router.delete('/facilities/:facilityId', (_req, res) => {
    res.status(204).end();
  });
  router.post('/packages', requireContentType('application/gzip', 'application/x-tar'), (req, res) => {
    const body = req.body as Buffer;
    res.json({ bytes: body.length, firstByte: body[0] });
  });
  router.put('/blobs/:name', express.raw({ type: () => true }), (req, res) => {
    res.json({ bytes: (req.body as Buffer).length });
  });
  router.get('/plans/:planId', (req, res) => {
    res.json({ id: req.params.planId });
  });
  router.delete('/plans/:planId', (_req, res) => {
    res.status(204).end();
  });
  router.post('/fhir', (req, res) => {
    res.json({ resourceType: (req.body as { resourceType?: string }).resourceType, context: currentContext() ?? null });
  });
  router.get('/boom', async () => {
    await Promise.resolve();
    throw new Error('secret database password is hunter2');
  });
  router.get('/upstream', () => {
    throw new UpstreamError('report service answered 503', 'GET', 'http://report/api/x', 503, 3);
  });
  router.get('/context', async (_req, res) => {
    await new Promise((resolve) => setTimeout(resolve, 1));
    res.json(currentContext() ?? null);
  });
  http.app.use('/api', router);
  return { ...http, openApi, app: http.finish() };
}
