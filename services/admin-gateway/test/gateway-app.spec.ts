import { expect } from 'chai';
import express from 'express';
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey } from 'jose';
import type { RequestListener, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import request from 'supertest';
import { createTokenVerifier } from '#adapters/auth/index.js';
import { createHttpApp, DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE, pagedResult, parsePaging, sendPaged } from '#adapters/http/index.js';
import { silentLogger } from '#adapters/observability/logger.js';
import { createGatewayApp, mergedDocument } from '#gateway/gateway-app.js';
import { GATEWAY_MAX_PAGE_SIZE } from '#gateway/proxy/pagination.js';

describe('admin gateway app', () => {
  let upstream: Server;
  let upstreamUrl: string;
  let privateKey: CryptoKey;
  let publicKey: CryptoKey;
  const publicKeyOf = async () => publicKey;
  let seenAuthorization: string | undefined;
  let docsAuthorization: string | undefined;
  let gateway: RequestListener;

  const token = (aud = 'nhsn') => new SignJWT({ permissions: ['IsLinkAdmin'] }).setProtectedHeader({ alg: 'ES256', kid: 'g1', typ: 'at+jwt' })
    .setSubject('operator').setIssuer('https://idp.test').setAudience(aud).setExpirationTime('5m').sign(privateKey);

  before(async () => {
    const pair = await generateKeyPair('ES256', { extractable: true });
    privateKey = pair.privateKey;
    publicKey = pair.publicKey;
    const jwk = { ...(await exportJWK(pair.publicKey)), kid: 'g1', alg: 'ES256' };
    const service = express();
    service.get('/api-docs', (req, res) => { docsAuthorization = req.headers.authorization; res.json({ openapi: '3.1.0', info: { title: 't', version: '1' }, paths: { '/api/facilities': { get: {} }, '/health': { get: {} } } }); });
    service.get('/.well-known/jwks.json', (_req, res) => { res.setHeader('cache-control', 'public, max-age=300'); res.json({ keys: [{ kid: 'k', kty: 'EC' }] }); });
    service.get('/api/facilities', (req, res) => { seenAuthorization = req.headers.authorization; res.json({ records: [], metadata: { pageSize: 10, pageNumber: 1, totalCount: 0, totalPages: 0 } }); });
    upstream = await new Promise<Server>((resolve) => { const s = service.listen(0, '127.0.0.1', () => resolve(s)); });
    upstreamUrl = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;
    gateway = createGatewayApp({
      upstreams: { tenant: upstreamUrl },
      upstreamTimeoutMs: 2000,
      jwksUpstream: upstreamUrl,
      authMode: 'jwt',
      verifier: createTokenVerifier({ issuer: 'https://idp.test', audience: 'nhsn', jwks: { keys: [jwk] } }),
      logger: silentLogger(),
    }).finish();
  });

  after(() => new Promise<void>((resolve) => { upstream.closeAllConnections(); upstream.close(() => resolve()); }));

  it('answers 401 with WWW-Authenticate when no token is given, and never reaches the service', async () => {
    seenAuthorization = 'untouched';
    const res = await request(gateway).get('/api/tenant/facilities');
    expect(res.status).to.equal(401);
    expect(res.headers['www-authenticate']).to.match(/^Bearer realm=/);
    expect(res.body).to.include({ status: 401, title: 'Unauthorized' });
    expect(res.body.traceId).to.be.a('string').that.has.length.greaterThan(0);
    expect(seenAuthorization).to.equal('untouched');
  });

  it('answers 401 invalid_token for a token meant for another audience', async () => {
    const res = await request(gateway).get('/api/tenant/facilities').set('authorization', `Bearer ${await token('other')}`);
    expect(res.status).to.equal(401);
    expect(res.headers['www-authenticate']).to.contain('error="invalid_token"');
  });

  it('proxies an authenticated request and passes the same Authorization header on', async () => {
    const bearer = `Bearer ${await token()}`;
    const res = await request(gateway).get('/api/tenant/facilities?pageSize=100').set('authorization', bearer);
    expect(res.status).to.equal(200);
    expect(seenAuthorization).to.equal(bearer);
    expect(JSON.parse(res.headers['x-pagination'] ?? '{}')).to.deep.equal({ pageSize: 10, pageNumber: 1, totalCount: 0, totalPages: 0 });
  });

  it('serves each service document with external paths for the one Swagger UI', async () => {
    const res = await request(gateway).get('/docs/tenant.json');
    expect(res.status).to.equal(200);
    expect(Object.keys(res.body.paths)).to.deep.equal(['/api/tenant/facilities', '/health']);
    const ui = await request(gateway).get('/swagger/');
    expect(ui.status).to.equal(200);
    expect(ui.text).to.contain('swagger');
  });

  it('sends a visitor of the bare address to the one Swagger UI', async () => {
    await request(gateway).get('/').expect(302).expect('Location', '/swagger');
  });

  it('serves /api-docs: every service document merged on the gateway\'s paths, with the bearer scheme for Authorize', async () => {
    const res = await request(gateway).get('/api-docs');
    expect(res.status).to.equal(200);
    expect(res.body.openapi).to.equal('3.1.0');
    expect(Object.keys(res.body.paths)).to.include('/api/tenant/facilities');
    expect(res.body.components.securitySchemes.bearerAuth).to.include({ type: 'http', scheme: 'bearer' });
    expect(res.body.security).to.deep.equal([{ bearerAuth: [] }]);
    const init = await request(gateway).get('/swagger/swagger-ui-init.js');
    expect(init.text).to.contain('"persistAuthorization": true');
  });

  it('spec line 81 (each API carries interactive documentation), production: behind the same AuthenticatedUser policy, under /api so the Ingress reaches it', async () => {
    let documentAuthorization: string | undefined;
    const guardedService = express();
    guardedService.get('/api-docs', (req, res) => {
      documentAuthorization = req.headers.authorization;
      if (!req.headers.authorization) { res.status(401).end(); return; }
      res.json({ openapi: '3.1.0', info: { title: 't', version: '1' }, paths: { '/api/facilities': { get: {} } } });
    });
    const server = await new Promise<Server>((resolve) => { const s = guardedService.listen(0, '127.0.0.1', () => resolve(s)); });
    try {
      const guarded = createGatewayApp({
        upstreams: { tenant: `http://127.0.0.1:${(server.address() as AddressInfo).port}` }, upstreamTimeoutMs: 2000, authMode: 'jwt',
        verifier: createTokenVerifier({ issuer: 'https://idp.test', audience: 'nhsn', jwks: { keys: [{ ...(await exportJWK((await generateKeyPair('ES256', { extractable: true })).publicKey)), kid: 'other' }] } }),
        logger: silentLogger(), docs: true, docsAuthenticated: true,
      }).finish();
      for (const path of ['/api/docs/tenant.json', '/api/docs/openapi.json', '/docs/tenant.json', '/api-docs']) {
        const refused = await request(guarded).get(path);
        expect(refused.status, path).to.equal(401);
        expect(refused.headers['www-authenticate'], path).to.match(/^Bearer/);
        expect(refused.body.traceId, path).to.be.a('string');
      }
      expect(documentAuthorization, 'nothing reached the service').to.equal(undefined);
      // The UI shell (swagger-ui-dist, nothing about the API) loads, and asks for the token for what it fetches.
      const ui = await request(guarded).get('/api/docs/');
      expect(ui.status).to.equal(200);
      const init = await request(guarded).get('/api/docs/swagger-ui-init.js');
      expect(init.text).to.contain('requestInterceptor').and.contain('sessionStorage').and.contain('"url": "tenant.json"');
    } finally {
      await new Promise<void>((resolve) => { server.closeAllConnections(); server.close(() => resolve()); });
    }
  });

  it('with docs.authenticated, a valid token reads the documents, and the service gets the caller\'s Authorization', async () => {
    const authenticated = createGatewayApp({
      upstreams: { tenant: upstreamUrl }, upstreamTimeoutMs: 2000, authMode: 'jwt',
      verifier: createTokenVerifier({ issuer: 'https://idp.test', audience: 'nhsn', jwks: { keys: [{ ...(await exportJWK(await publicKeyOf())), kid: 'g1', alg: 'ES256' }] } }),
      logger: silentLogger(), docs: true, docsAuthenticated: true,
    }).finish();
    const bearer = `Bearer ${await token()}`;
    const document = await request(authenticated).get('/api/docs/tenant.json').set('authorization', bearer).expect(200);
    expect(Object.keys(document.body.paths)).to.include('/api/tenant/facilities');
    expect(docsAuthorization).to.equal(bearer);
    expect((await request(authenticated).get('/api/docs/openapi.json').set('authorization', bearer).expect(200)).body.openapi).to.equal('3.1.0');
  });

  it('keeps apart two services\' components of one name but different content', () => {
    const problem = { type: 'object', properties: { type: { type: 'string' } } };
    const ref = (name: string) => ({ get: { responses: { 200: { content: { 'application/json': { schema: { $ref: `#/components/schemas/${name}` } } } } } } });
    const merged = mergedDocument([
      { component: 'validation', document: { paths: { '/api/validation/x': ref('Item') }, components: { schemas: { Item: { type: 'string' }, ProblemDetails: problem } } } },
      { component: 'tenant', document: { paths: { '/api/tenant/y': ref('Item') }, components: { schemas: { Item: { type: 'integer' }, ProblemDetails: problem } } } },
    ], ['report']) as {
      paths: Record<string, { get: { responses: Record<number, { content: Record<string, { schema: { $ref: string } }> }> } }>;
      components: { schemas: Record<string, unknown> }; info: { description: string };
    };
    expect(Object.keys(merged.components.schemas).sort()).to.deep.equal(['Item', 'ProblemDetails', 'tenant.Item']);
    expect(merged.paths['/api/tenant/y']?.get.responses[200]?.content['application/json']?.schema.$ref).to.equal('#/components/schemas/tenant.Item');
    expect(merged.paths['/api/validation/x']?.get.responses[200]?.content['application/json']?.schema.$ref).to.equal('#/components/schemas/Item');
    expect(merged.info.description).to.contain('Not reachable when this document was made: report');
  });

  it('publishes the platform JWKS without a token, with the upstream cache policy', async () => {
    const res = await request(gateway).get('/.well-known/jwks.json');
    expect(res.status).to.equal(200);
    expect(res.body.keys[0].kid).to.equal('k');
    expect(res.headers['cache-control']).to.equal('public, max-age=300');
  });

  it('keeps its own health endpoint open', async () => {
    expect((await request(gateway).get('/health')).status).to.equal(200);
  });
});

describe('admin gateway in front of a service built on the shared HTTP adapter', () => {
  let upstream: Server;
  let gateway: RequestListener;

  before(async () => {
    const service = createHttpApp({ serviceName: 'paged-service', logger: silentLogger() });
    const all = Array.from({ length: 25 }, (_, index) => ({ id: index + 1 }));
    service.app.get('/api/things', (req, res) => {
      const paging = parsePaging(req.query);
      sendPaged(res, pagedResult(all.slice(paging.offset, paging.offset + paging.pageSize), all.length, paging.pageSize, paging.pageNumber));
    });
    const app = service.finish();
    upstream = await new Promise<Server>((resolve) => { const s = app.listen(0, '127.0.0.1', () => resolve(s)); });
    gateway = createGatewayApp({
      upstreams: { svc: `http://127.0.0.1:${(upstream.address() as AddressInfo).port}` },
      upstreamTimeoutMs: 2000, authMode: 'none', logger: silentLogger(), docs: false,
    }).finish();
  });

  after(() => new Promise<void>((resolve) => { upstream.closeAllConnections(); upstream.close(() => resolve()); }));

  it('answers a page number too large to be exact with 400 naming the allowed range; without docs, GET / is a 404', async () => {
    const huge = await request(gateway).get('/api/svc/things?pageNumber=99999999999999999999').expect(400);
    expect(huge.body.detail).to.match(/^Query parameter pageNumber must be between 1 and \d+; got "99999999999999999999"$/);
    await request(gateway).get('/').expect(404);
  });

  it('gives the documented defaults without any paging parameter; above 20 lowered to 20 (the gateway pattern)', async () => {
    const plain = await request(gateway).get('/api/svc/things').expect(200);
    expect(plain.body.metadata).to.deep.equal({ pageSize: DEFAULT_PAGE_SIZE, pageNumber: 1, totalCount: 25, totalPages: 3 });
    expect(JSON.parse(plain.headers['x-pagination'] ?? '{}')).to.deep.equal(plain.body.metadata);
    const largest = await request(gateway).get(`/api/svc/things?pageSize=${MAX_PAGE_SIZE}&pageNumber=-2`).expect(200);
    expect(largest.body.records).to.have.length(GATEWAY_MAX_PAGE_SIZE);
    expect(largest.body.metadata).to.deep.equal({ pageSize: GATEWAY_MAX_PAGE_SIZE, pageNumber: 1, totalCount: 25, totalPages: 2 });
    expect(JSON.parse(largest.headers['x-pagination'] ?? '{}')).to.deep.equal(largest.body.metadata);
  });

  it('answers a page the pattern does not correct with the service\'s 400, naming the gateway\'s path', async () => {
    const tooSmall = await request(gateway).get('/api/svc/things?pageSize=0').expect(400);
    expect(tooSmall.body.detail).to.equal('Query parameter pageSize must be between 1 and 100; got 0');
    expect(tooSmall.body.instance).to.equal('/api/svc/things');
    const missing = await request(gateway).get('/api/svc/nothing-here?x=1').expect(404);
    expect(missing.body.instance).to.equal('/api/svc/nothing-here');
    // Issue 30: the detail names the path the client asked for, as `instance` does (the service said /api/nothing-here).
    expect(missing.body.detail).to.equal('No resource at GET /api/svc/nothing-here');
  });
});
