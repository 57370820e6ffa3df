import { expect } from 'chai';
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey } from 'jose';
import request from 'supertest';
import { createHttpApp } from '../../http/index.js';
import { silentLogger } from '../../observability/logger.js';
import { authenticatedUser, createTokenVerifier, requirePermissionForWrites, type AuthMode } from '../index.js';

describe('adapters/auth AuthenticatedUser and admin-only writes', () => {
  let privateKey: CryptoKey;
  let jwk: Record<string, unknown>;

  before(async () => {
    const pair = await generateKeyPair('ES256', { extractable: true });
    privateKey = pair.privateKey;
    jwk = { ...(await exportJWK(pair.publicKey)), kid: 'm1', alg: 'ES256' };
  });

  const token = (permissions: string[], claims: Record<string, unknown> = {}) => new SignJWT({ permissions, ...claims }).setProtectedHeader({ alg: 'ES256', kid: 'm1', typ: 'at+jwt' })
    .setSubject('u').setIssuer('https://idp.test').setAudience('svc').setExpirationTime('5m').sign(privateKey);

  function app(mode: AuthMode) {
    const http = createHttpApp({ serviceName: 'auth-test', logger: silentLogger() });
    const verifier = mode === 'jwt' ? createTokenVerifier({ issuer: 'https://idp.test', audience: 'svc', jwks: { keys: [jwk] } }) : undefined;
    http.app.use('/api', authenticatedUser({ mode, verifier, logger: silentLogger() }), requirePermissionForWrites('IsLinkAdmin'));
    http.app.get('/api/things', (_req, res) => { res.json({ who: res.locals.principal?.subject }); });
    http.app.post('/api/things', (_req, res) => { res.status(201).json({}); });
    return http.finish();
  }

  it('lets an authenticated reader read but answers 403 Problem Details to its write', async () => {
    const reader = `Bearer ${await token(['validation.read'])}`;
    const read = await request(app('jwt')).get('/api/things').set('authorization', reader);
    expect(read.status).to.equal(200);
    expect(read.body.who).to.equal('u');
    const write = await request(app('jwt')).post('/api/things').set('authorization', reader).send({});
    expect(write.status).to.equal(403);
    expect(write.headers['content-type']).to.contain('application/problem+json');
    expect(write.body.detail).to.contain('IsLinkAdmin');
  });

  it('lets an administrator write', async () => {
    const res = await request(app('jwt')).post('/api/things').set('authorization', `Bearer ${await token(['IsLinkAdmin'])}`).send({});
    expect(res.status).to.equal(201);
  });

  it('answers 401 with a Bearer challenge when the header is not a bearer token', async () => {
    const res = await request(app('jwt')).get('/api/things').set('authorization', 'Basic dXNlcjpwYXNz');
    expect(res.status).to.equal(401);
    expect(res.headers['www-authenticate']).to.contain('error="invalid_request"');
  });

  it('mode none lets every caller through as the anonymous administrator', async () => {
    const res = await request(app('none')).post('/api/things').send({});
    expect(res.status).to.equal(201);
    expect((await request(app('none')).get('/api/things')).body.who).to.equal('anonymous');
  });

  it('a permission is a name, not a pattern: a real token with scope "*" or permissions ["*"] is no administrator', async () => {
    for (const wildcard of [await token([], { scope: '*' }), await token(['*']), await token([], { scp: ['*'] })]) {
      const write = await request(app('jwt')).post('/api/things').set('authorization', `Bearer ${wildcard}`).send({});
      expect(write.status).to.equal(403);
      expect(write.body.detail).to.contain('IsLinkAdmin');
    }
  });

  it('a token\'s claims cannot make it the anonymous principal', async () => {
    const http = createHttpApp({ serviceName: 'auth-kind', logger: silentLogger() });
    const verifier = createTokenVerifier({ issuer: 'https://idp.test', audience: 'svc', jwks: { keys: [jwk] } });
    http.app.use('/api', authenticatedUser({ mode: 'jwt', verifier, logger: silentLogger() }), requirePermissionForWrites('IsLinkAdmin'));
    http.app.post('/api/whoami', (_req, res) => { res.json({ kind: res.locals.principal?.kind }); });
    const impostor = await new SignJWT({ kind: 'anonymous', permissions: ['IsLinkAdmin'] }).setProtectedHeader({ alg: 'ES256', kid: 'm1', typ: 'at+jwt' })
      .setSubject('anonymous').setIssuer('https://idp.test').setAudience('svc').setExpirationTime('5m').sign(privateKey);
    const res = await request(http.finish()).post('/api/whoami').set('authorization', `Bearer ${impostor}`).send({}).expect(200);
    expect(res.body.kind).to.equal('token');
  });
});
