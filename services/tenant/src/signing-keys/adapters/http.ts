import { readFile } from 'node:fs/promises';
import { Router, type Response } from 'express';
import { z } from 'zod';
import { ANONYMOUS_PRINCIPAL } from '#adapters/auth/index.js';
import {
  assertPutBody, HttpProblem, limitParamLengths, requireUuidParams, pagedResult, PagingQueryFields, parseBody, parsePaging, parseSort, sendAccepted, sendCreated, sendPaged,
  singleQueryValue, type OpenApiBuilder, type Query,
} from '#adapters/http/index.js';
import { ASSERTION_LIFETIME_SECONDS } from '../domain/client-assertion.js';
import type { JwksDocument } from '../domain/jwks.js';
import { KEY_STATUSES, SIGNING_ALGORITHMS, type SigningKey } from '../domain/model.js';
import { KEY_SORT_FIELDS } from '../domain/ports/signing-key-repository.js';
import { SYSTEM_ACTOR, type Actor, type SigningKeyService } from '../application/signing-key-service.js';

/** `Cache-Control` of the JWKS; see the module documentation (index.ts) for why five minutes. */
export const JWKS_CACHE_CONTROL = 'public, max-age=300';
export const JWKS_PATH = '/.well-known/jwks.json';

export function keyRepresentation(key: SigningKey) {
  return {
    kid: key.kid,
    algorithm: key.algorithm,
    status: key.status,
    primary: key.primary,
    createdAt: key.createdAt.toISOString(),
    statusChangedAt: key.statusChangedAt.toISOString(),
    expiresAt: key.expiresAt?.toISOString() ?? null,
    publicJwk: { ...key.publicJwk },
  };
}

/** Who is making the request, for audit events (the AuthenticatedUser principal, else SystemUser). */
function actorOf(res: Response): Actor {
  const principal = res.locals.principal;
  if (!principal?.subject || principal === ANONYMOUS_PRINCIPAL) return SYSTEM_ACTOR;
  const claims = principal.claims ?? {};
  const display = [claims.email, claims.name, claims.preferred_username].find((value: unknown): value is string => typeof value === 'string' && value !== '');
  return { userId: principal.subject, user: display ?? principal.subject };
}

const DateTime = z.string().datetime({ offset: true });
const KidParam = z.object({ kid: z.string().uuid().openapi({ description: 'Key id (UUID), as in the JWKS and JWT headers' }) });
const FacilityIdParam = z.object({ facilityId: z.string().openapi({ example: 'Hospital-123' }) });

const CreateKeyBody = z.object({
  algorithm: z.enum(SIGNING_ALGORITHMS).openapi({ description: 'RS384 and ES384 are the algorithms SMART Backend Services requires EHRs to support' }),
  primary: z.boolean().optional().openapi({ description: 'Make this the primary key (the one previously primary loses the flag)' }),
  expiresAt: DateTime.nullish().openapi({ description: 'When the key becomes expired (ISO 8601); in the future' }),
}).strict();

const UpdateKeyBody = z.object({
  kid: z.string().openapi({ description: 'Must equal the kid in the URL' }),
  status: z.enum(KEY_STATUSES).openapi({ description: 'active or disabled (expired is reached through expiresAt and is final)' }),
  primary: z.boolean(),
  expiresAt: DateTime.nullish(),
  // Read-only members of the representation may be sent back unchanged (GET → edit → PUT).
  algorithm: z.enum(SIGNING_ALGORITHMS).optional(),
  createdAt: z.string().optional(),
  statusChangedAt: z.string().optional(),
  publicJwk: z.record(z.string(), z.string()).optional(),
});

const AssignBody = z.object({
  facilityId: z.string().openapi({ description: 'Must equal the facilityId in the URL' }),
  kid: z.string().min(1).max(255).nullable().openapi({ description: 'The key the facility signs with; null removes the reference' }),
}).strict();

const ClientAssertionBody = z.object({
  connection: z.string().min(1).max(64).optional().openapi({ description: 'Name of the facility\'s EHR connection (ehrConnections) to sign for; may be left out when it has exactly one', example: 'epic-prod' }),
  clientId: z.string().min(1).max(255).optional().openapi({ description: 'Deprecated: must equal the chosen connection\'s configured client id (403 otherwise)' }),
  tokenUrl: z.string().min(1).max(2048).optional().openapi({ description: 'Deprecated: picks the configured connection with this token endpoint; any other URL is refused (403)' }),
}).strict();

/**
 * Registers the registry's operator routes and the JWKS route in the service's OpenAPI document.
 */
export function registerSigningKeyOpenApi(openApi: OpenApiBuilder): void {
  const json = (schema: z.ZodType) => ({ content: { 'application/json': { schema } } });
  const tags = ['Signing keys'];

  const PublicJwkSchema = openApi.register('PublicJwk', z.record(z.string(), z.string()).openapi({
    description: 'Public JWK: kty, kid, alg, use and the bare-key members (n, e / crv, x, y / crv, x). Never private members.',
  }));
  const SigningKeySchema = openApi.register('SigningKey', z.object({
    kid: z.string().uuid(), algorithm: z.enum(SIGNING_ALGORITHMS), status: z.enum(KEY_STATUSES), primary: z.boolean(),
    createdAt: z.string().datetime(), statusChangedAt: z.string().datetime(), expiresAt: z.string().datetime().nullable(), publicJwk: PublicJwkSchema,
  }).openapi({ description: 'A key of the registry. The private key is encrypted at rest and never returned.' }));
  const FacilityKeySchema = openApi.register('FacilitySigningKey', z.object({ facilityId: z.string(), kid: z.string().nullable() }));
  const ClientAssertionSchema = openApi.register('ClientAssertion', z.object({
    clientAssertion: z.string().openapi({ description: 'The signed JWT' }),
    clientAssertionType: z.literal('urn:ietf:params:oauth:client-assertion-type:jwt-bearer'),
    kid: z.string(), alg: z.enum(SIGNING_ALGORITHMS), jti: z.string(), expiresAt: z.string().datetime(),
    connection: z.string().openapi({ description: 'The configured EHR connection the assertion was signed for' }),
    clientId: z.string().openapi({ description: 'Its client id (iss and sub)' }),
    tokenUrl: z.string().openapi({ description: 'Its token endpoint (aud): POST the assertion there' }),
  }));
  const paged = z.object({
    records: z.array(SigningKeySchema),
    metadata: z.object({ pageSize: z.number().int(), pageNumber: z.number().int(), totalCount: z.number().int(), totalPages: z.number().int() }),
  });

  openApi.registerPath({
    method: 'get', path: '/api/signing-keys', tags, summary: 'Get signing keys (paged)',
    request: {
      query: z.object({
        status: z.enum(KEY_STATUSES).optional(), algorithm: z.enum(SIGNING_ALGORITHMS).optional(), primary: z.boolean().optional(),
        sortBy: z.enum(KEY_SORT_FIELDS).optional().openapi({ description: 'Default CreatedAt' }),
        sortOrder: z.enum(['Ascending', 'Descending']).optional().openapi({ description: 'Default Descending' }),
        ...PagingQueryFields,
      }),
    },
    responses: { 200: { description: 'A page of keys', ...json(paged) }, 204: { description: 'No key matches' }, ...openApi.problemResponses(400, 500) },
  });
  openApi.registerPath({
    method: 'post', path: '/api/signing-keys', tags, summary: 'Create a signing key',
    description: 'Generates a key pair for the algorithm, encrypts the private key under the master key and publishes the public key in the JWKS. 503 when no master key is configured (signing-keys.master-keys).',
    request: { body: { required: true, ...json(CreateKeyBody) } },
    responses: { 201: { description: 'Created; Location holds its URI', ...json(SigningKeySchema) }, ...openApi.problemResponses(400, 409, 500, 503) },
  });
  openApi.registerPath({
    method: 'get', path: '/api/signing-keys/:kid', tags, summary: 'Get a signing key',
    request: { params: KidParam },
    responses: { 200: { description: 'The key (status accounts for expiry)', ...json(SigningKeySchema) }, ...openApi.problemResponses(404, 500) },
  });
  openApi.registerPath({
    method: 'put', path: '/api/signing-keys/:kid', tags, summary: 'Change a key\'s status, primary flag or expiry',
    description: 'The body\'s kid must equal the URL\'s. Disabling a key an active facility uses gives 409 with the facilities (Problem member `facilities`). A disabled key signs no more at once and stays in the JWKS for signing-keys.disabled-retention (at least 5 minutes, the lifetime of the assertions it signed plus clock skew).',
    request: { params: KidParam, body: { required: true, ...json(UpdateKeyBody) } },
    responses: { 202: { description: 'Updated', ...json(SigningKeySchema) }, ...openApi.problemResponses(400, 404, 409, 500) },
  });
  openApi.registerPath({
    method: 'delete', path: '/api/signing-keys/:kid', tags, summary: 'Delete a signing key',
    description: 'Removes the key and drops it from the JWKS at once (rotation step 3). 409 with the facilities while an active facility uses it.',
    request: { params: KidParam },
    responses: { 204: { description: 'Deleted' }, ...openApi.problemResponses(404, 409, 500) },
  });
  openApi.registerPath({
    method: 'get', path: '/api/facilities/:facilityId/signing-key', tags, summary: 'Get the key a facility signs with',
    request: { params: FacilityIdParam },
    responses: { 200: { description: 'The facility\'s kid (null when it has none)', ...json(FacilityKeySchema) }, ...openApi.problemResponses(404, 500) },
  });
  openApi.registerPath({
    method: 'put', path: '/api/facilities/:facilityId/signing-key', tags, summary: 'Associate a facility with a signing key',
    description: 'Rotation step 2. The key must be active; it is in the JWKS before the association commits. Changing the reference does not change any key.',
    request: { params: FacilityIdParam, body: { required: true, ...json(AssignBody) } },
    responses: { 202: { description: 'Associated', ...json(FacilityKeySchema) }, ...openApi.problemResponses(400, 404, 409, 500) },
  });
  openApi.registerPath({
    method: 'post', path: '/api/facilities/:facilityId/$client-assertion', tags, summary: 'Sign a client assertion for an EHR token endpoint',
    description: `SMART Backend Services private_key_jwt for one of the facility's configured EHR connections (facility configuration ehrConnections): header alg, kid, typ JWT; iss = sub = the connection's clientId, aud = its tokenUrl, exp = iat + ${ASSERTION_LIFETIME_SECONDS} s, unique jti. The body only picks a connection; a client id or token URL the facility has not configured gives 403. 409 when the facility has no key, no EHR connection, or its key is not active.`,
    request: { params: FacilityIdParam, body: { required: false, ...json(ClientAssertionBody) } },
    responses: { 200: { description: 'The signed assertion', ...json(ClientAssertionSchema) }, ...openApi.problemResponses(400, 403, 404, 409, 500, 503) },
  });

  openApi.registerPath({
    method: 'get', path: JWKS_PATH, tags, summary: 'The platform\'s JSON Web Key Set (public keys only)',
    description: 'Not under /api and not authenticated: EHRs fetch it to verify client assertions.',
    responses: { 200: { description: `Published keys; Cache-Control: ${JWKS_CACHE_CONTROL}`, ...json(z.object({ keys: z.array(PublicJwkSchema) })) } },
  });
}

/**
 * The registry's operator routes, to mount under the service's `/api` (AuthenticatedUser; writes
 * need the admin permission, the client assertion included since it is a credential).
 */
export function signingKeyRouter(service: SigningKeyService): Router {
  const router = Router();
  // kid: a UUID in a 36-character column; facilityId: the facility table's 100 characters.
  limitParamLengths(router, { kid: 36, facilityId: 100 });
  requireUuidParams(router, ['kid']);
  router.get('/api/signing-keys', async (req, res) => {
    const paging = parsePaging(req.query);
    const sort = parseSort(req.query, { allowed: KEY_SORT_FIELDS, defaultField: 'CreatedAt', defaultOrder: 'desc' });
    const status = enumQueryValue(req.query, 'status', KEY_STATUSES);
    const algorithm = enumQueryValue(req.query, 'algorithm', SIGNING_ALGORITHMS);
    const primary = enumQueryValue(req.query, 'primary', ['true', 'false'] as const);
    const page = await service.list({
      ...(status ? { status } : {}), ...(algorithm ? { algorithm } : {}),
      ...(primary ? { primary: primary === 'true' } : {}),
    }, { field: sort.field, order: sort.order }, { limit: paging.pageSize, offset: paging.offset });
    sendPaged(res, pagedResult(page.records.map(keyRepresentation), page.totalCount, paging.pageSize, paging.pageNumber));
  });
  router.post('/api/signing-keys', async (req, res) => {
    const body = parseBody(CreateKeyBody, req.body);
    const key = await service.create({
      algorithm: body.algorithm, primary: body.primary ?? false, expiresAt: body.expiresAt ? new Date(body.expiresAt) : null,
    }, actorOf(res));
    sendCreated(res, `/api/signing-keys/${key.kid}`, keyRepresentation(key));
  });
  router.get('/api/signing-keys/:kid', async (req, res) => {
    res.json(keyRepresentation(await service.get(req.params.kid)));
  });
  router.put('/api/signing-keys/:kid', async (req, res) => {
    assertPutBody(req.params.kid, req.body, { uuid: true, idField: 'kid' });
    const body = parseBody(UpdateKeyBody, req.body);
    const key = await service.update(req.params.kid.toLowerCase(), {
      status: body.status, primary: body.primary, expiresAt: body.expiresAt ? new Date(body.expiresAt) : null,
    }, actorOf(res));
    sendAccepted(res, keyRepresentation(key));
  });
  router.delete('/api/signing-keys/:kid', async (req, res) => {
    await service.remove(req.params.kid, actorOf(res));
    res.status(204).end();
  });
  router.get('/api/facilities/:facilityId/signing-key', async (req, res) => {
    res.json(await service.keyOfFacility(req.params.facilityId));
  });
  router.put('/api/facilities/:facilityId/signing-key', async (req, res) => {
    assertPutBody(req.params.facilityId, req.body, { idField: 'facilityId' });
    const body = parseBody(AssignBody, req.body);
    sendAccepted(res, await service.assign(req.params.facilityId, body.kid, actorOf(res)));
  });
  router.post('/api/facilities/:facilityId/$client-assertion', async (req, res) => {
    const body = parseBody(ClientAssertionBody, req.body ?? {});
    const signed = await service.clientAssertion(req.params.facilityId, {
      ...(body.connection !== undefined ? { connection: body.connection } : {}),
      ...(body.clientId !== undefined ? { clientId: body.clientId } : {}),
      ...(body.tokenUrl !== undefined ? { tokenUrl: body.tokenUrl } : {}),
    });
    res.setHeader('Cache-Control', 'no-store');
    res.json({
      clientAssertion: signed.assertion, clientAssertionType: 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer',
      kid: signed.kid, alg: signed.alg, jti: signed.jti, expiresAt: signed.expiresAt.toISOString(),
      connection: signed.connection.name, clientId: signed.connection.clientId, tokenUrl: signed.connection.tokenUrl,
    });
  });
  return router;
}

/**
 * `GET /.well-known/jwks.json`: the JWKS file as written (what the proxy exposes), regenerated from
 * the registry when it does not exist yet. Public, outside `/api`: EHRs fetch it without credentials.
 */
export function jwksRouter(jwksPath: string, regenerate: () => Promise<JwksDocument>): Router {
  const router = Router();
  router.get(JWKS_PATH, async (_req, res) => {
    let body: string;
    try {
      body = await readFile(jwksPath, 'utf8');
    } catch (error) {
      if (!(error instanceof Error && 'code' in error && error.code === 'ENOENT')) throw error;
      body = JSON.stringify(await regenerate());
    }
    res.setHeader('Cache-Control', JWKS_CACHE_CONTROL);
    res.type('application/json').send(body);
  });
  return router;
}

function enumQueryValue<V extends string>(query: Query, name: string, allowed: readonly V[]): V | undefined {
  const raw = singleQueryValue(query, name)?.trim();
  if (raw === undefined || raw === '') return undefined;
  const found = allowed.find((value) => value.toLowerCase() === raw.toLowerCase());
  if (!found) throw HttpProblem.badRequest(`Query parameter ${name} must be one of ${allowed.join(', ')}`, [{ field: name, message: `must be one of ${allowed.join(', ')}` }]);
  return found;
}
