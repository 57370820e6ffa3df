import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import { errors, exportJWK, generateKeyPair, jwtVerify, SignJWT, type CryptoKey } from 'jose';
import request from 'supertest';
import { createHttpApp } from '../../http/index.js';
import { silentLogger } from '../../observability/logger.js';
import { createMetrics } from '../../observability/metrics.js';
import { authenticatedUser, createTokenVerifier, KeySetUnavailableError, RemoteKeySet, type KeySetReadEvent } from '../index.js';

/**
 * An identity provider's JWKS endpoint that the tests start, stop and start again on the same port
 * (an outage), counting the reads it answered.
 */
class JwksServer {
  reads = 0;
  keys: Record<string, unknown>[] = [];
  private server?: Server;
  private port = 0;

  get url(): string {
    return `http://127.0.0.1:${this.port}/certs`;
  }

  async start(): Promise<void> {
    this.server = createServer((req, res) => {
      this.reads += 1;
      if (req.url !== '/certs') return void res.writeHead(404).end();
      res.writeHead(200, { 'content-type': 'application/jwk-set+json' }).end(JSON.stringify({ keys: this.keys }));
    });
    await new Promise<void>((resolve) => this.server!.listen(this.port, '127.0.0.1', resolve));
    this.port = (this.server.address() as AddressInfo).port;
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
    this.server = undefined;
  }
}

const ISSUER = 'https://idp.test';
const AUDIENCE = 'nhsn-platform';
const MINUTE = 60_000;

describe('adapters/auth: identity provider outage (JWKS unreachable)', function () {
  this.timeout(20_000);
  const idp = new JwksServer();
  let privateKey: CryptoKey;
  let otherKey: CryptoKey;

  const token = (kid = 'k1', key = privateKey, subject = 'user-1') => new SignJWT({ permissions: ['validation.read'] })
    .setProtectedHeader({ alg: 'ES256', kid, typ: 'at+jwt' }).setSubject(subject).setIssuer(ISSUER).setAudience(AUDIENCE).setExpirationTime('10m').sign(key);

  before(async () => {
    const pair = await generateKeyPair('ES256', { extractable: true });
    privateKey = pair.privateKey;
    otherKey = (await generateKeyPair('ES256')).privateKey;
    idp.keys = [{ ...(await exportJWK(pair.publicKey)), kid: 'k1', alg: 'ES256', use: 'sig' }];
  });
  afterEach(() => idp.stop());

  describe('the key set keeps the last good keys for a bounded time', () => {
    let now: number;
    let events: KeySetReadEvent[];
    const keySet = () => new RemoteKeySet({ url: idp.url, now: () => now, refreshAfterMs: 10 * MINUTE, staleMaxAgeMs: 60 * MINUTE, cooldownMs: 30_000, onRead: (e) => events.push(e) });
    const verify = async (set: RemoteKeySet, jwt: string) => (await jwtVerify(jwt, set.getKey, { issuer: ISSUER, audience: AUDIENCE })).payload.sub;
    beforeEach(() => {
      now = 1_000_000_000;
      events = [];
    });

    it('verifies with the held keys while the provider is down, up to the stale limit, then says unavailable with Retry-After', async () => {
      await idp.start();
      const set = keySet();
      expect(await verify(set, await token())).to.equal('user-1');
      await idp.stop();

      now += 11 * MINUTE; // due for a refresh, which fails: the held keys still serve
      expect(await verify(set, await token())).to.equal('user-1');
      expect(events.at(-1)).to.deep.include({ ok: false, servingStale: true });
      now += 10_000; // within the cooldown: no new read
      expect(await verify(set, await token())).to.equal('user-1');
      expect(events.filter((e) => !e.ok)).to.have.length(1);
      expect(set.status().ageSeconds).to.be.closeTo(11 * 60 + 10, 1);

      now += 50 * MINUTE; // past the 60 min stale limit
      const outage = await verify(set, await token()).then(() => undefined, (e: unknown) => e);
      expect(outage).to.be.instanceOf(KeySetUnavailableError);
      expect((outage as KeySetUnavailableError).retryAfterSeconds).to.be.within(1, 30);
      expect(set.status().lastFailure).to.match(/unreachable/);

      await idp.start(); // the provider is back: after the cooldown the keys are read again
      now += 31_000;
      expect(await verify(set, await token())).to.equal('user-1');
      expect(set.status()).to.deep.equal({ ageSeconds: 0, lastFailure: undefined, failedReads: 2 });
    });

    it('a key it does not hold is "unavailable" while the provider is down (it may have rotated) and "no such key" while it is up', async () => {
      await idp.start();
      const set = keySet();
      await verify(set, await token());
      now += 31_000;
      const unknown = await verify(set, await token('k2', otherKey)).then(() => undefined, (e: unknown) => e);
      expect(unknown).to.be.instanceOf(errors.JWKSNoMatchingKey);
      expect(idp.reads).to.be.greaterThanOrEqual(2); // it did look again
      await idp.stop();
      now += 31_000;
      const whileDown = await verify(set, await token('k2', otherKey)).then(() => undefined, (e: unknown) => e);
      expect(whileDown).to.be.instanceOf(KeySetUnavailableError);
      // The known key still verifies meanwhile.
      expect(await verify(set, await token())).to.equal('user-1');
    });
  });

  describe('through AuthenticatedUser', () => {
    const app = (metrics = createMetrics('jwks-outage-test')) => {
      const http = createHttpApp({ serviceName: 'jwks-outage-test', logger: silentLogger(), metrics });
      const verifier = createTokenVerifier({ issuer: ISSUER, audience: AUDIENCE, jwksUrl: idp.url, verifiedCacheSize: 0 });
      http.app.use('/api', authenticatedUser({ mode: 'jwt', verifier, logger: silentLogger(), metrics }));
      http.app.get('/api/things', (_req, res) => { res.json({ who: res.locals.principal?.subject }); });
      return { app: http.finish(), metrics };
    };

    it('answers 503 Problem Details with Retry-After (not 401) when the keys were never readable, and counts it', async () => {
      await idp.start();
      await idp.stop(); // the port is known but nothing listens
      const { app: guarded, metrics } = app();
      const res = await request(guarded).get('/api/things').set('authorization', `Bearer ${await token()}`);
      expect(res.status).to.equal(503);
      expect(res.headers['content-type']).to.match(/^application\/problem\+json/);
      expect(res.headers['retry-after']).to.match(/^\d+$/);
      expect(res.headers).not.to.have.property('www-authenticate');
      expect(res.body).to.include({ status: 503, type: 'https://nhsn-link.example/problems/service-unavailable' });
      expect(res.body.detail).to.contain('identity provider').and.not.contain('127.0.0.1');
      expect(await metrics.registry.getSingleMetricAsString('auth_identity_provider_unavailable_total')).to.match(/ 1$/m);
    });

    it('keeps verifying new tokens with the keys it read once the provider goes down, and reports the key set\'s age', async () => {
      await idp.start();
      const { app: guarded, metrics } = app();
      await request(guarded).get('/api/things').set('authorization', `Bearer ${await token()}`).expect(200);
      await idp.stop();
      const res = await request(guarded).get('/api/things').set('authorization', `Bearer ${await token('k1', privateKey, 'user-2')}`).expect(200);
      expect(res.body.who).to.equal('user-2');
      // A forged token naming the held key is still refused as a bad token meanwhile.
      expect(await request(guarded).get('/api/things').set('authorization', `Bearer ${await token('k1', otherKey)}`).then((r) => r.status)).to.equal(401);
      expect(await metrics.registry.getSingleMetricAsString('auth_jwks_age_seconds')).to.match(/auth_jwks_age_seconds\{[^}]*\} \d/);
      expect(await metrics.registry.getSingleMetricAsString('auth_jwks_read_failures_total')).to.match(/auth_jwks_read_failures_total\{[^}]*\} 0$/m);
    });
  });
});
