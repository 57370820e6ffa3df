import { expect } from 'chai';
import express from 'express';
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey } from 'jose';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import request from 'supertest';
import { createTokenVerifier } from '../../../adapters/auth/index.js';
import { silentLogger } from '../../../adapters/observability/logger.js';
import { createGatewayApp } from '../src/gateway-app.js';

describe('admin gateway app', () => {
  let upstream: Server;
  let upstreamUrl: string;
  let privateKey: CryptoKey;
  let seenAuthorization: string | undefined;
  let gateway: express.Express;

  const token = (aud = 'nhsn') => new SignJWT({ permissions: ['IsLinkAdmin'] }).setProtectedHeader({ alg: 'ES256', kid: 'g1' })
    .setSubject('operator').setIssuer('https://idp.test').setAudience(aud).setExpirationTime('5m').sign(privateKey);

  before(async () => {
    const pair = await generateKeyPair('ES256', { extractable: true });
    privateKey = pair.privateKey;
    const jwk = { ...(await exportJWK(pair.publicKey)), kid: 'g1', alg: 'ES256' };
    const service = express();
    service.get('/api-docs', (_req, res) => { res.json({ openapi: '3.1.0', info: { title: 't', version: '1' }, paths: { '/api/facilities': { get: {} }, '/health': { get: {} } } }); });
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
    expect(JSON.parse(res.headers['x-pagination'])).to.deep.equal({ pageSize: 10, pageNumber: 1, totalCount: 0, totalPages: 0 });
  });

  it('serves each service document with external paths for the one Swagger UI', async () => {
    const res = await request(gateway).get('/docs/tenant.json');
    expect(res.status).to.equal(200);
    expect(Object.keys(res.body.paths)).to.deep.equal(['/api/tenant/facilities', '/health']);
    const ui = await request(gateway).get('/swagger/');
    expect(ui.status).to.equal(200);
    expect(ui.text).to.contain('swagger');
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
