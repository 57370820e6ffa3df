import express, { Router, type Request, type Response } from 'express';
import { z } from 'zod';
import { HttpProblem, limitParamLengths, sendAccepted, sendCreated, type AnyMediaTypeRoute, type OpenApiBuilder } from '#adapters/http/index.js';
import type { ArtifactService } from '../../application/artifact-service.js';
import { RESOURCE_ARTIFACT_TYPES } from '../../domain/artifacts/artifact.js';
import type { ValidationApiSchemas } from './schemas.js';
import { STORED_ID_LENGTH } from './stored-lengths.js';

const TypeNameParams = z.object({
  type: z.string().openapi({ description: 'RESOURCE or PACKAGE (any case)', example: 'PACKAGE' }),
  name: z.string().openapi({ description: 'FHIR resource id (RESOURCE) or NPM package id (PACKAGE)', example: 'hl7.fhir.us.core' }),
});
const PackageParams = z.object({ packageId: z.string().openapi({ example: 'gov.cdc.nhsn.measures' }) });

export interface ArtifactRouteOptions {
  /** Largest accepted upload in bytes (packages); default 50 MiB. */
  readonly uploadLimit?: number;
}

/**
 * The upload route reads its body whatever the media type: `curl --data-binary @package.tgz` sends a
 * package as application/x-www-form-urlencoded. The app must not refuse those bodies with 415.
 */
export const ARTIFACT_UPLOAD_ROUTES: readonly AnyMediaTypeRoute[] = [{ method: 'PUT', path: /^\/api\/artifact\/[^/]+\/[^/]+\/?$/i }];

/**
 * Artifacts. Paths kept from the specification: `PUT /api/artifact/{type}/{name}` and
 * `POST /api/aritfact/$initialize` (misspelt so; the correct spelling works too).
 */
export function artifactRoutes(openApi: OpenApiBuilder, schemas: ValidationApiSchemas, service: ArtifactService, options: ArtifactRouteOptions = {}): Router {
  const router = Router();
  limitParamLengths(router, { name: STORED_ID_LENGTH, packageId: STORED_ID_LENGTH });
  const tags = ['Artifacts'];
  const json = (schema: z.ZodType) => ({ content: { 'application/json': { schema } } });
  // Any content type the app's parsers did not read arrives as bytes (a .tgz sent as text/plain, say).
  const rawBody = express.raw({ type: () => true, limit: options.uploadLimit ?? 50 * 1024 * 1024 });

  openApi.registerPath({
    method: 'get', path: '/api/artifact', tags, summary: 'Get all artifacts (without content)',
    responses: { 200: { description: 'Artifacts by type and name', ...json(z.array(schemas.ArtifactSummary)) }, 204: { description: 'No artifacts' }, ...openApi.problemResponses(500) },
  });
  router.get('/api/artifact', async (_req, res) => {
    const artifacts = await service.list();
    if (artifacts.length === 0) res.status(204).end();
    else res.json(artifacts);
  });

  for (const path of ['/api/aritfact/$initialize', '/api/artifact/$initialize']) {
    openApi.registerPath({
      method: 'post', path, tags,
      summary: path.includes('aritfact') ? 'Create or update artifacts from bundled resources (path spelled as the specification has it)' : 'Create or update artifacts from bundled resources',
      description: 'Loads the IG packages embedded in the service (US Core, QI-Core, DEQM, NHSN measures and their dependencies) and every .tgz (PACKAGE) '
        + 'and .json (RESOURCE) file of the directory `artifact.init-dir` (`artifact.init-mode`: add, the default, loads both; replace only the directory). '
        + 'Idempotent (create or replace); the engine is rebuilt once afterwards. Files that cannot be read are listed under `failed`.',
      responses: { 200: { description: 'What was stored', ...json(schemas.InitializationReport) }, ...openApi.problemResponses(500) },
    });
    router.post(path, async (_req, res) => {
      res.json(await service.initialize());
    });
  }

  openApi.registerPath({
    method: 'get', path: '/api/artifact/$terminology-dependencies', tags, summary: 'Get terminology dependencies of all artifacts',
    description: 'Every value set bound by the profiles of all artifacts, and the code systems those value sets include, with whether each is available locally, remotely or not at all.',
    responses: { 200: { description: 'Dependencies', ...json(z.array(schemas.TerminologyDependency)) }, 204: { description: 'No dependencies' }, ...openApi.problemResponses(500) },
  });
  // Searches: 204 without results (shared API conventions, GET search).
  const sendDependencies = (res: Response, dependencies: readonly unknown[]) => {
    if (dependencies.length === 0) res.status(204).end();
    else res.json(dependencies);
  };
  router.get('/api/artifact/$terminology-dependencies', async (_req, res) => {
    sendDependencies(res, await service.terminologyDependencies());
  });

  openApi.registerPath({
    method: 'get', path: '/api/artifact/package/:packageId/terminology-dependencies', tags, summary: 'Get terminology dependencies of a package',
    request: { params: PackageParams },
    responses: { 200: { description: 'Dependencies', ...json(z.array(schemas.TerminologyDependency)) }, 204: { description: 'The package has none' }, ...openApi.problemResponses(404, 500) },
  });
  router.get('/api/artifact/package/:packageId/terminology-dependencies', async (req, res) => {
    sendDependencies(res, await service.terminologyDependencies(req.params.packageId));
  });

  openApi.registerPath({
    method: 'get', path: '/api/artifact/package/:packageId', tags, summary: 'Get details of a package',
    description: 'Same answer as GET /api/artifact/PACKAGE/{name}: the artifact with `details` (name, version, FHIR version, dependencies with present/missing, profiles, value sets, code systems).',
    request: { params: PackageParams },
    responses: { 200: { description: 'The package', ...json(schemas.ArtifactWithDetails) }, ...openApi.problemResponses(404, 500) },
  });
  openApi.registerPath({
    method: 'get', path: '/api/artifact/:type/:name', tags, summary: 'Get an artifact (without content; a package with its details)',
    request: { params: TypeNameParams },
    responses: { 200: { description: 'The artifact', ...json(schemas.ArtifactWithDetails) }, ...openApi.problemResponses(400, 404, 500) },
  });
  // One handler for both paths: routing is case-insensitive, so /package/{id} is /PACKAGE/{name}.
  router.get('/api/artifact/:type/:name', async (req, res) => {
    const { content: _content, ...artifact } = await service.get(req.params.type, req.params.name);
    res.json(artifact.type === 'PACKAGE' ? { ...artifact, details: await service.packageDetails(artifact.name) } : artifact);
  });

  openApi.registerPath({
    method: 'get', path: '/api/artifact/:type/:name/content', tags, summary: 'Get the content of an artifact',
    request: { params: TypeNameParams },
    responses: {
      200: { description: 'The package as application/gzip, or the resource as FHIR JSON', content: { 'application/gzip': { schema: z.string().openapi({ format: 'binary' }) }, 'application/fhir+json': { schema: z.record(z.string(), z.unknown()) } } },
      ...openApi.problemResponses(400, 404, 500),
    },
  });
  router.get('/api/artifact/:type/:name/content', async (req, res) => {
    const artifact = await service.get(req.params.type, req.params.name);
    if (artifact.type === 'PACKAGE') {
      // attachment() derives a type from the file name, so the explicit type comes after it.
      res.attachment(`${artifact.name}.tgz`).type('application/gzip').send(artifact.content);
    } else {
      res.type('application/fhir+json').send(artifact.content);
    }
  });

  openApi.registerPath({
    method: 'put', path: '/api/artifact/:type/:name', tags, summary: 'Create or update an artifact',
    description: 'Raw body: a FHIR NPM package (.tgz; application/gzip or application/octet-stream) for PACKAGE, named by its package id, '
      + `or one FHIR JSON resource (${RESOURCE_ARTIFACT_TYPES.join(', ')}) for RESOURCE, named by its resource id; another name is refused (400). `
      + 'The content is read and checked before it is stored; the engine reloads its definitions afterwards.',
    request: {
      params: TypeNameParams,
      body: { required: true, content: { 'application/gzip': { schema: z.string().openapi({ format: 'binary' }) }, 'application/fhir+json': { schema: z.record(z.string(), z.unknown()) } } },
    },
    responses: {
      201: { description: 'Created', headers: { Location: { description: '/api/artifact/{type}/{name}', schema: { type: 'string' } } }, ...json(schemas.ArtifactSummary) },
      202: { description: 'Replaced (shared API conventions, PUT)', ...json(schemas.ArtifactSummary) },
      ...openApi.problemResponses(400, 413, 500),
    },
  });
  router.put('/api/artifact/:type/:name', rawBody, async (req, res) => {
    const { artifact, created } = await service.save(req.params.type, req.params.name, bodyBytes(req));
    if (created) sendCreated(res, `/api/artifact/${artifact.type}/${encodeURIComponent(artifact.name)}`, artifact);
    else sendAccepted(res, artifact);
  });

  openApi.registerPath({
    method: 'delete', path: '/api/artifact/:type/:name', tags, summary: 'Delete an artifact',
    request: { params: TypeNameParams },
    responses: { 204: { description: 'Deleted' }, ...openApi.problemResponses(400, 404, 500) },
  });
  router.delete('/api/artifact/:type/:name', async (req, res) => {
    await service.delete(req.params.type, req.params.name);
    res.status(204).end();
  });

  return router;
}

/** The upload as bytes, whichever parser read it (JSON bodies are re-serialized). */
function bodyBytes(req: Request): Buffer {
  const body: unknown = req.body;
  if (Buffer.isBuffer(body)) return body;
  if (typeof body === 'object' && body !== null) return Buffer.from(JSON.stringify(body));
  if (typeof body === 'string') return Buffer.from(body);
  throw HttpProblem.badRequest('The request has no body; send the package (.tgz) or the FHIR JSON resource');
}
