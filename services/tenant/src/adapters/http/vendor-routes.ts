import { Router } from 'express';
import { z } from 'zod';
import {
  assertPutBody, limitParamLengths, pageOfList, PagingQueryFields, parseBody, parsePaging, requireUuidParams, sendAccepted, sendCreated, sendPaged, type OpenApiBuilder,
} from '#adapters/http/index.js';
import type { VendorService } from '../../application/vendor-service.js';
import type { Actor } from '../../domain/audit.js';
import { actorOf } from './actor.js';
import { textQueryValue } from './query-values.js';
import { pagedSchema, type TenantSchemas } from './schemas.js';

const IdParam = z.object({ id: z.string().uuid() });

/** Vendors and vendor versions (UUID ids). */
export function vendorRoutes(openApi: OpenApiBuilder, schemas: TenantSchemas, service: VendorService): Router {
  const router = Router();
  // UUIDs, stored in 36 characters.
  limitParamLengths(router, { id: 36 });
  requireUuidParams(router, ['id']);
  const json = (schema: z.ZodType) => ({ content: { 'application/json': { schema } } });

  const crud = <T extends { id: string }, B extends z.ZodType>(config: {
    path: string; tag: string; noun: string; schema: z.ZodType; bodySchema: B;
    list: (query: Record<string, unknown>) => Promise<T[]>; listQuery?: z.ZodRawShape;
    get: (id: string) => Promise<T>; create: (body: z.output<B>, actor: Actor) => Promise<T>; update: (id: string, body: z.output<B>, actor: Actor) => Promise<T>;
    remove: (id: string, actor: Actor) => Promise<void>;
  }) => {
    const tags = [config.tag];
    openApi.registerPath({
      method: 'get', path: config.path, tags, summary: `List ${config.noun}s`,
      request: { query: z.object({ ...config.listQuery, ...PagingQueryFields }) },
      responses: { 200: { description: `A page of the ${config.noun}s`, ...json(pagedSchema(config.schema)) }, 204: { description: 'None' }, ...openApi.problemResponses(400, 500) },
    });
    // A search (shared API conventions, GET search: the paged model, 204 when empty).
    router.get(config.path, async (req, res) => {
      const paging = parsePaging(req.query);
      sendPaged(res, pageOfList(await config.list(req.query), paging));
    });
    openApi.registerPath({
      method: 'post', path: config.path, tags, summary: `Create a ${config.noun}`,
      request: { body: { required: true, ...json(config.bodySchema) } },
      responses: { 201: { description: 'Created', ...json(config.schema) }, ...openApi.problemResponses(400, 409, 500) },
    });
    router.post(config.path, async (req, res) => {
      const created = await config.create(parseBody(config.bodySchema, req.body), actorOf(res));
      sendCreated(res, `${config.path}/${created.id}`, created);
    });
    openApi.registerPath({
      method: 'get', path: `${config.path}/:id`, tags, summary: `Get a ${config.noun}`, request: { params: IdParam },
      responses: { 200: { description: `The ${config.noun}`, ...json(config.schema) }, ...openApi.problemResponses(404, 500) },
    });
    router.get(`${config.path}/:id`, async (req, res) => {
      res.json(await config.get(req.params.id));
    });
    openApi.registerPath({
      method: 'put', path: `${config.path}/:id`, tags, summary: `Update a ${config.noun}`,
      request: { params: IdParam, body: { required: true, ...json(config.bodySchema) } },
      responses: { 202: { description: 'Updated', ...json(config.schema) }, ...openApi.problemResponses(400, 404, 409, 500) },
    });
    router.put(`${config.path}/:id`, async (req, res) => {
      assertPutBody(req.params.id, req.body, { uuid: true });
      sendAccepted(res, await config.update(req.params.id, parseBody(config.bodySchema, req.body), actorOf(res)));
    });
    openApi.registerPath({
      method: 'delete', path: `${config.path}/:id`, tags, summary: `Delete a ${config.noun}`, request: { params: IdParam },
      responses: { 204: { description: 'Deleted' }, ...openApi.problemResponses(404, 409, 500) },
    });
    router.delete(`${config.path}/:id`, async (req, res) => {
      await config.remove(req.params.id, actorOf(res));
      res.status(204).end();
    });
  };

  crud({
    path: '/api/vendors', tag: 'Vendors', noun: 'vendor', schema: schemas.Vendor, bodySchema: schemas.VendorBody,
    list: () => service.listVendors(),
    get: (id) => service.getVendor(id),
    create: (body, actor) => service.createVendor(body, actor),
    update: (id, body, actor) => service.updateVendor(id, body, actor),
    remove: (id, actor) => service.removeVendor(id, actor),
  });
  crud({
    path: '/api/vendor-versions', tag: 'Vendors', noun: 'vendor version', schema: schemas.VendorVersion, bodySchema: schemas.VendorVersionBody,
    listQuery: { vendorId: z.string().optional().openapi({ description: 'Only the versions of this vendor' }) },
    list: (query) => service.listVersions(textQueryValue(query, 'vendorId')),
    get: (id) => service.getVersion(id),
    create: (body, actor) => service.createVersion(body, actor),
    update: (id, body, actor) => service.updateVersion(id, body, actor),
    remove: (id, actor) => service.removeVersion(id, actor),
  });

  return router;
}
