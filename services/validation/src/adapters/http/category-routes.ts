import { Router, type Request, type Response } from 'express';
import { z } from 'zod';
import { HttpProblem, integerQueryValue, limitParamLengths, sendAccepted, sendCreated, type OpenApiBuilder } from '#adapters/http/index.js';
import type { CategoryService } from '../../application/category-service.js';
import { booleanQuery } from './errors.js';
import type { ValidationApiSchemas } from './schemas.js';
import { STORED_ID_LENGTH } from './stored-lengths.js';

const IdParams = z.object({ id: z.string().openapi({ example: 'missing_required_element' }) });
const RuleIdParams = z.object({ ruleId: z.string().openapi({ description: 'int64 rule id (from the latest rule or the history)', example: '42' }) });

/** Categories and their versioned rules. `POST /api/category/$initialize` is the specification's path. */
export function categoryRoutes(openApi: OpenApiBuilder, schemas: ValidationApiSchemas, service: CategoryService): Router {
  const router = Router();
  limitParamLengths(router, { id: STORED_ID_LENGTH });
  const tags = ['Categories'];
  const json = (schema: z.ZodType) => ({ content: { 'application/json': { schema } } });

  openApi.registerPath({
    method: 'get', path: '/api/category', tags, summary: 'Get all categories',
    responses: { 200: { description: 'Categories by id, each with its current matcher', ...json(z.array(schemas.CategoryWithMatcher)) }, 204: { description: 'No categories' }, ...openApi.problemResponses(500) },
  });
  router.get('/api/category', async (_req, res) => {
    const categories = await service.representations();
    if (categories.length === 0) res.status(204).end();
    else res.json(categories);
  });

  openApi.registerPath({
    method: 'post', path: '/api/category/$initialize', tags, summary: 'Create or update categories from bundled resources',
    description: 'Loads the bundled default categories: creates or updates them and adds a rule only where the matcher changed (idempotent). Categories created by users are kept.',
    responses: { 200: { description: 'What changed', ...json(schemas.ImportOutcome) }, ...openApi.problemResponses(500) },
  });
  router.post('/api/category/$initialize', async (_req, res) => {
    res.json(await service.initialize());
  });

  openApi.registerPath({
    method: 'get', path: '/api/category/$export', tags, summary: 'Export categories and rules',
    description: 'Every category that has a rule, with its latest matcher, in the editable shape that $import accepts.',
    responses: { 200: { description: 'Snapshots', ...json(z.array(schemas.CategorySnapshot)) }, ...openApi.problemResponses(500) },
  });
  router.get('/api/category/$export', async (_req, res) => {
    res.json(await service.exportAll());
  });

  openApi.registerPath({
    method: 'post', path: '/api/category/$import', tags, summary: 'Import categories and rules',
    description: 'All or nothing, in one transaction. Each category is created or updated and gets a new rule when its matcher differs from the latest. '
      + 'The first invalid item is named by index and field (400); duplicate ids are refused. With replaceAll=true, categories not in the list are deleted.',
    request: { query: z.object({ replaceAll: z.enum(['true', 'false']).optional() }), body: { required: true, ...json(z.array(schemas.CategorySnapshot)) } },
    responses: { 200: { description: 'What changed', ...json(schemas.ImportOutcome) }, ...openApi.problemResponses(400, 500) },
  });
  router.post('/api/category/$import', async (req, res) => {
    res.json(await service.importAll(req.body, { replaceAll: booleanQuery(req.query, 'replaceAll') }));
  });

  openApi.registerPath({
    method: 'delete', path: '/api/category/rule/:ruleId', tags, summary: 'Delete a category rule',
    request: { params: RuleIdParams },
    responses: { 204: { description: 'Deleted; the previous rule becomes the latest' }, ...openApi.problemResponses(400, 404, 500) },
  });
  router.delete('/api/category/rule/:ruleId', async (req, res) => {
    const ruleId = integerQueryValue({ ruleId: req.params.ruleId }, 'ruleId');
    if (ruleId === undefined || ruleId < 1) throw HttpProblem.badRequest('ruleId must be a positive integer', [{ field: 'ruleId', message: 'must be a positive integer' }]);
    await service.deleteRule(ruleId);
    res.status(204).end();
  });

  openApi.registerPath({
    method: 'get', path: '/api/category/:id', tags, summary: 'Get a category',
    request: { params: IdParams },
    responses: { 200: { description: 'The category with its current matcher', ...json(schemas.CategoryWithMatcher) }, ...openApi.problemResponses(404, 500) },
  });
  router.get('/api/category/:id', async (req, res) => {
    res.json(await service.representation(req.params.id));
  });

  openApi.registerPath({
    method: 'put', path: '/api/category/:id', tags, summary: 'Create or update a category',
    description: 'The body id must equal the URL id. `uncategorized` is reserved. A `matcher` in the body becomes the category\'s latest rule '
      + '(a new rule unless the latest already is that matcher); without one the rules stay as they are. '
      + 'Created: 201 with Location; updated: 202 (shared API conventions, PUT).',
    request: { params: IdParams, body: { required: true, ...json(schemas.CategoryInput) } },
    responses: {
      201: { description: 'Created', headers: { Location: { description: '/api/category/{id}', schema: { type: 'string' } } }, ...json(schemas.CategoryWithMatcher) },
      202: { description: 'Updated', ...json(schemas.CategoryWithMatcher) },
      ...openApi.problemResponses(400, 500),
    },
  });
  router.put('/api/category/:id', async (req, res) => {
    const { category, created } = await service.save(req.params.id, req.body);
    if (created) sendCreated(res, `/api/category/${encodeURIComponent(category.id)}`, category);
    else sendAccepted(res, category);
  });

  openApi.registerPath({
    method: 'delete', path: '/api/category/:id', tags, summary: 'Delete a category with its rules',
    description: 'Stored results lose their link to it (no dangling links).',
    request: { params: IdParams },
    responses: { 204: { description: 'Deleted' }, ...openApi.problemResponses(404, 500) },
  });
  router.delete('/api/category/:id', async (req, res) => {
    await service.delete(req.params.id);
    res.status(204).end();
  });

  openApi.registerPath({
    method: 'get', path: '/api/category/:id/rule', tags, summary: 'Get the latest rule of a category',
    request: { params: IdParams },
    responses: { 200: { description: 'The current rule', ...json(schemas.CategoryRule) }, ...openApi.problemResponses(404, 500) },
  });
  router.get('/api/category/:id/rule', async (req, res) => {
    res.json(await service.latestRule(req.params.id));
  });

  const createRule = async (req: Request<{ id: string }>, res: Response) => {
    const rule = await service.addRule(req.params.id, req.body);
    res.status(201).location(`/api/category/${encodeURIComponent(rule.categoryId)}/rule`).json(rule);
  };
  for (const method of ['post', 'put'] as const) {
    openApi.registerPath({
      method, path: '/api/category/:id/rule', tags,
      summary: method === 'post' ? 'Create a rule for a category' : 'Create a rule for a category (PUT, as the original service accepted)',
      description: 'The body is the matcher. Every rule is kept; the new one becomes the latest. A regex RE2 cannot compile is refused (400).',
      request: { params: IdParams, body: { required: true, ...json(schemas.Matcher) } },
      responses: { 201: { description: 'The new rule', ...json(schemas.CategoryRule) }, ...openApi.problemResponses(400, 404, 500) },
    });
  }
  router.post('/api/category/:id/rule', createRule);
  router.put('/api/category/:id/rule', createRule);

  openApi.registerPath({
    method: 'get', path: '/api/category/:id/rule/history', tags, summary: 'Get all historical rules of a category',
    request: { params: IdParams },
    responses: { 200: { description: 'Rules, newest first', ...json(z.array(schemas.CategoryRule)) }, ...openApi.problemResponses(404, 500) },
  });
  router.get('/api/category/:id/rule/history', async (req, res) => {
    res.json(await service.ruleHistory(req.params.id));
  });

  return router;
}
