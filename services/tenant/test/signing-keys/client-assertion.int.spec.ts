import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import { createLocalJWKSet, createRemoteJWKSet, decodeJwt, decodeProtectedHeader, jwtVerify, type JSONWebKeySet } from 'jose';
import { connectNats, type NatsHandle } from '#adapters/messaging/connection.js';
import { requestQuery } from '#adapters/messaging/request-reply.js';
import { silentLogger } from '#adapters/observability/logger.js';
import { isErrorReply } from '#contracts/types.js';
import { createSigningKeyModule, type SigningKeyModule } from '#tenant/composition.js';
import { SIGNING_ALGORITHMS } from '#tenant/signing-keys/index.js';
import { call, openSigningKeyHarness, required, TEST_MASTER_KEY, TEST_MASTER_KEY_ID, type SigningKeyHarness } from './support.js';

const NATS_URL = process.env.NATS_URL ?? 'nats://127.0.0.1:4222';
const CLIENT_ID = 'nhsn-link-f1';
const FIVE_MINUTES = 300;

/**
 * A small EHR token endpoint (SMART Backend Services, private_key_jwt): fetches the platform's JWKS
 * over HTTP, verifies the assertion by kid, checks aud, iss = sub = registered client, exp ≤ 5 min,
 * and refuses a replayed jti; answers an access token or `invalid_client`. It reads the JWKS anew for
 * every request (cacheMaxAge 0): an EHR that honours `max-age=300` sees changes up to 5 min later.
 */
class EhrTokenEndpoint {
  readonly seenJti = new Set<string>();
  readonly verifiedKids: string[] = [];
  private server: Server | undefined;
  tokenUrl = '';

  constructor(private readonly jwksUrl: string) {}

  async start(): Promise<void> {
    const jwks = createRemoteJWKSet(new URL(this.jwksUrl), { cacheMaxAge: 0, cooldownDuration: 0 });
    this.server = createServer((req, res) => {
      let body = '';
      req.on('data', (chunk: Buffer) => { body += chunk.toString('utf8'); });
      req.on('end', () => {
        void (async () => {
          const form = new URLSearchParams(body);
          const reply = (status: number, payload: unknown) => {
            res.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store' }).end(JSON.stringify(payload));
          };
          if (form.get('grant_type') !== 'client_credentials'
            || form.get('client_assertion_type') !== 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer') {
            return reply(400, { error: 'invalid_request' });
          }
          try {
            const { payload, protectedHeader } = await jwtVerify(form.get('client_assertion') ?? '', jwks, {
              audience: this.tokenUrl, issuer: CLIENT_ID, subject: CLIENT_ID, typ: 'JWT', algorithms: [...SIGNING_ALGORITHMS],
            });
            const now = Math.floor(Date.now() / 1000);
            if (typeof payload.exp !== 'number' || payload.exp - now > FIVE_MINUTES) throw new Error('exp more than 5 minutes ahead');
            if (typeof payload.jti !== 'string' || this.seenJti.has(payload.jti)) throw new Error('jti missing or replayed');
            this.seenJti.add(payload.jti);
            this.verifiedKids.push(protectedHeader.kid!);
            reply(200, { access_token: `at-${payload.jti}`, token_type: 'bearer', expires_in: 300, scope: form.get('scope') });
          } catch (error) {
            reply(401, { error: 'invalid_client', error_description: (error as Error).message });
          }
        })();
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.tokenUrl = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/oauth2/token`;
  }

  /** POSTs the assertion as an EHR client would. */
  async authenticate(assertion: string): Promise<{ status: number; body: { access_token?: string; error?: string } }> {
    const response = await fetch(this.tokenUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'client_credentials', scope: 'system/*.read',
        client_assertion_type: 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer', client_assertion: assertion,
      }),
    });
    return { status: response.status, body: await response.json() as { access_token?: string; error?: string } };
  }

  async stop(): Promise<void> {
    if (!this.server) return;
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server!.close(() => resolve()));
  }
}

describe('signing keys: client assertions for EHRs (real HTTP, PostgreSQL and NATS)', function () {
  this.timeout(30_000);
  let h: SigningKeyHarness;
  let ehr: EhrTokenEndpoint;
  const api = (path: string) => `${h.url}/api${path}`;
  const createKey = async (algorithm: string) => {
    const response = await call('POST', api('/signing-keys'), { algorithm });
    expect(response.status).to.equal(201);
    return response.body.kid as string;
  };
  const assign = async (facilityId: string, kid: string) => {
    const response = await call('PUT', api(`/facilities/${facilityId}/signing-key`), { facilityId, kid });
    expect(response.status, JSON.stringify(response.body)).to.equal(202);
  };
  const assertionFor = async (facilityId: string, body: Record<string, unknown> = {}) =>
    call('POST', api(`/facilities/${facilityId}/$client-assertion`), body);
  /** A facility registered at the test EHR (its one configured connection, named `ehr`). */
  const addFacility = (facilityId: string, options: { kid?: string | null; deleted?: boolean } = {}) =>
    h.addFacility(facilityId, { ...options, ehrConnections: [{ name: 'ehr', clientId: CLIENT_ID, tokenUrl: ehr.tokenUrl }] });
  const publishedKids = async () => (await call('GET', `${h.url}/.well-known/jwks.json`)).body.keys?.map((jwk) => jwk.kid);

  before(async () => {
    h = await openSigningKeyHarness('assertions');
    ehr = new EhrTokenEndpoint(`${h.url}/.well-known/jwks.json`);
    await ehr.start();
  });
  after(async () => {
    await ehr?.stop();
    await h?.close();
  });

  it('signs the SMART assertion: header alg, kid, typ JWT; iss = sub = client id, aud = token URL, exp ≤ 5 min, unique jti', async () => {
    const kid = await createKey('RS384');
    await addFacility('F-claims');
    await assign('F-claims', kid);
    const first = await assertionFor('F-claims');
    expect(first.status).to.equal(200);
    expect(first.headers.get('cache-control')).to.equal('no-store');
    expect(first.body).to.include({
      clientAssertionType: 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer', kid, alg: 'RS384', connection: 'ehr', clientId: CLIENT_ID, tokenUrl: ehr.tokenUrl,
    });
    expect(decodeProtectedHeader(required(first.body.clientAssertion, 'clientAssertion'))).to.deep.equal({ alg: 'RS384', kid, typ: 'JWT' });
    const claims = decodeJwt(required(first.body.clientAssertion, 'clientAssertion'));
    expect(claims).to.include({ iss: CLIENT_ID, sub: CLIENT_ID, aud: ehr.tokenUrl, jti: first.body.jti });
    expect(claims.exp! - claims.iat!).to.be.greaterThan(0).and.at.most(FIVE_MINUTES);
    expect(Math.abs(claims.iat! - Date.now() / 1000)).to.be.lessThan(60);
    expect(new Date(required(first.body.expiresAt, 'expiresAt')).getTime()).to.equal(claims.exp! * 1000);
    const second = await assertionFor('F-claims');
    expect(decodeJwt(required(second.body.clientAssertion, 'clientAssertion')).jti).not.to.equal(claims.jti);
  });

  it('signs verifiable assertions with keys of every algorithm', async () => {
    for (const algorithm of SIGNING_ALGORITHMS) {
      const kid = await createKey(algorithm);
      await addFacility(`F-${algorithm}`);
      await assign(`F-${algorithm}`, kid);
      const signed = await assertionFor(`F-${algorithm}`);
      expect(signed.status, algorithm).to.equal(200);
      const jwks = createLocalJWKSet((await call('GET', `${h.url}/.well-known/jwks.json`)).body as JSONWebKeySet);
      const { protectedHeader } = await jwtVerify(required(signed.body.clientAssertion, 'clientAssertion'), jwks, { audience: ehr.tokenUrl, issuer: CLIENT_ID });
      expect(protectedHeader).to.include({ alg: algorithm, kid });
    }
  });

  it('refuses clearly: unknown or soft-deleted facility 404, no key 409, key not active or gone 409, unknown members 400', async () => {
    await addFacility('F-nokey');
    await addFacility('F-deleted', { deleted: true });
    expect((await assertionFor('F-unknown')).status).to.equal(404);
    expect((await assertionFor('F-deleted')).status).to.equal(404);
    const noKey = await assertionFor('F-nokey');
    expect(noKey.status).to.equal(409);
    expect(noKey.body.type).to.match(/facility-without-signing-key$/);
    expect(noKey.body.detail).to.contain('F-nokey has no signing key');

    // The facility module's own PUT can write any kid into the configuration; signing still checks it.
    const disabledKid = await createKey('ES256');
    await call('PUT', api(`/signing-keys/${disabledKid}`), { kid: disabledKid, status: 'disabled', primary: false });
    await addFacility('F-disabled', { kid: disabledKid });
    const disabled = await assertionFor('F-disabled');
    expect(disabled.status).to.equal(409);
    expect(disabled.body.detail).to.contain('is disabled');
    await addFacility('F-gone', { kid: '44444444-4444-4444-8444-444444444444' });
    expect((await assertionFor('F-gone')).body.detail).to.contain('does not exist');

    const expiring = required((await call('POST', api('/signing-keys'), { algorithm: 'ES256', expiresAt: new Date(Date.now() + 60_000).toISOString() })).body.kid, 'kid');
    await addFacility('F-expiring');
    await assign('F-expiring', expiring);
    expect((await assertionFor('F-expiring')).status).to.equal(200);
    h.clock.advance(120_000);
    try {
      const expired = await assertionFor('F-expiring');
      expect(expired.status).to.equal(409);
      expect(expired.body.detail).to.contain('is expired');
    } finally {
      h.clock.offsetMs = 0;
    }

    const audience = await call('POST', api('/facilities/F-nokey/$client-assertion'), { aud: 'https://attacker.example/token' });
    expect(audience.status).to.equal(400);
    expect(audience.body.detail).to.contain('aud');
  });

  it('signs only for the facility\'s configured EHR connections: a caller picks one, never supplies client id or audience', async () => {
    const kid = await createKey('ES384');
    const other = { name: 'Other-EHR', clientId: 'link-at-other', tokenUrl: 'https://other-ehr.example/oauth2/token' };
    await h.addFacility('F-two', { kid, ehrConnections: [{ name: 'ehr', clientId: CLIENT_ID, tokenUrl: ehr.tokenUrl }, other] });
    await h.addFacility('F-no-connection', { kid });

    const ambiguous = await assertionFor('F-two');
    expect(ambiguous.status).to.equal(400);
    expect(ambiguous.body.detail).to.contain('2 EHR connections (ehr, Other-EHR)');
    const chosen = await assertionFor('F-two', { connection: 'other-ehr' });
    expect(chosen.status).to.equal(200);
    expect(decodeJwt(required(chosen.body.clientAssertion, 'clientAssertion'))).to.include({ iss: other.clientId, sub: other.clientId, aud: other.tokenUrl });
    expect(chosen.body).to.include({ connection: 'Other-EHR', clientId: other.clientId, tokenUrl: other.tokenUrl });
    expect((await assertionFor('F-two', { connection: 'nope' })).status).to.equal(400);

    // A caller that names its own audience or client id gets no assertion, whatever else it sends.
    const attacker = 'https://attacker.example/oauth2/token';
    for (const body of [
      { tokenUrl: attacker }, { clientId: CLIENT_ID, tokenUrl: attacker }, { connection: 'ehr', tokenUrl: other.tokenUrl },
      { connection: 'ehr', clientId: 'someone-else' }, { tokenUrl: ehr.tokenUrl, clientId: other.clientId },
    ]) {
      const refused = await assertionFor('F-two', body);
      expect(refused.status, JSON.stringify(body)).to.equal(403);
      expect(refused.body.type).to.match(/ehr-connection-not-configured$/);
      expect(JSON.stringify(refused.body)).not.to.match(/eyJ/);
    }
    // Callers of the first contract version that send the configured values still get their assertion.
    const legacy = await assertionFor('F-two', { clientId: CLIENT_ID, tokenUrl: ehr.tokenUrl });
    expect(legacy.status).to.equal(200);
    expect(legacy.body.connection).to.equal('ehr');
    expect((await ehr.authenticate(required(legacy.body.clientAssertion, 'clientAssertion'))).status).to.equal(200);

    const none = await assertionFor('F-no-connection');
    expect(none.status).to.equal(409);
    expect(none.body.type).to.match(/facility-without-ehr-connection$/);
    expect(none.body.detail).to.contain('ehrConnections');
  });

  it('rotation walk-through (create B, associate, delete A): the EHR accepts every current assertion at every step', async () => {
    await addFacility('F-1');
    const authenticateNow = async (expectedKid: string) => {
      const signed = await assertionFor('F-1');
      expect(signed.status).to.equal(200);
      expect(signed.body.kid).to.equal(expectedKid);
      const answer = await ehr.authenticate(required(signed.body.clientAssertion, 'clientAssertion'));
      expect(answer.status, JSON.stringify(answer.body)).to.equal(200);
      expect(answer.body.access_token).to.equal(`at-${signed.body.jti}`);
      return signed.body.clientAssertion as string;
    };

    // Start: key A, associated with F.
    const keyA = await createKey('RS384');
    await assign('F-1', keyA);
    await authenticateNow(keyA);
    // Two assertions signed with A and kept unused: one for just after the switch, one for after the delete.
    const [issuedBeforeSwitch, issuedForAfterDelete] = [(await assertionFor('F-1')).body, (await assertionFor('F-1')).body];
    expect([issuedBeforeSwitch.kid, issuedForAfterDelete.kid]).to.deep.equal([keyA, keyA]);

    // Step 1: create key B. It is published at once, before anything signs with it; F still uses A.
    const keyB = await createKey('ES384');
    expect(await publishedKids()).to.include.members([keyA, keyB]);
    await authenticateNow(keyA);
    const stillUsed = await call('DELETE', api(`/signing-keys/${keyA}`));
    expect(stillUsed.status).to.equal(409);
    expect(stillUsed.body.facilities).to.include('F-1');
    await authenticateNow(keyA);

    // Step 2: associate F with B. New assertions carry B's kid and verify; one signed with A just
    // before the switch still verifies while A is published.
    await assign('F-1', keyB);
    await authenticateNow(keyB);
    expect((await ehr.authenticate(required(issuedBeforeSwitch.clientAssertion, 'clientAssertion'))).status).to.equal(200);

    // Step 3: delete A. It leaves the JWKS; B keeps working; an assertion signed with A is refused.
    expect((await call('DELETE', api(`/signing-keys/${keyA}`))).status).to.equal(204);
    expect(await publishedKids()).to.include(keyB).and.not.to.include(keyA);
    await authenticateNow(keyB);
    const lateA = await ehr.authenticate(required(issuedForAfterDelete.clientAssertion, 'clientAssertion'));
    expect(lateA.status).to.equal(401);
    expect(lateA.body.error).to.equal('invalid_client');
    await authenticateNow(keyB);

    // The EHR's replay check: a second use of an accepted assertion is refused.
    const once = await assertionFor('F-1');
    expect((await ehr.authenticate(required(once.body.clientAssertion, 'clientAssertion'))).status).to.equal(200);
    expect((await ehr.authenticate(required(once.body.clientAssertion, 'clientAssertion'))).status).to.equal(401);
    expect(ehr.verifiedKids).to.include(keyA).and.include(keyB);
  });

  describe('over NATS request-reply (SignClientAssertion)', () => {
    let nats: NatsHandle;
    let module: SigningKeyModule;

    before(async () => {
      nats = await connectNats({ servers: NATS_URL, name: `signing-keys-test-${h.catalog.subjectRoot}`, logger: silentLogger() });
      module = createSigningKeyModule({
        orm: h.db.orm, logger: silentLogger(), catalog: h.catalog, nats: nats.nc, now: h.clock.now,
        config: { signingKeysMasterKeys: [{ id: TEST_MASTER_KEY_ID, base64: TEST_MASTER_KEY }], signingKeysJwksPath: h.jwksPath, signingKeysDisabledRetentionMs: 3_600_000, signingKeysExpiryIntervalMs: 60_000 },
      });
      module.start();
    });
    after(async () => {
      await module?.stop();
      await nats?.close();
    });

    it('answers a signed assertion the EHR accepts, and typed errors NOT_FOUND / CONFLICT', async () => {
      const kid = await createKey('ES384');
      await addFacility('F-nats');
      await assign('F-nats', kid);
      const reply = await requestQuery(nats.nc, 'SignClientAssertion', { facilityId: 'F-nats' }, { catalog: h.catalog });
      if (isErrorReply(reply)) throw new Error(reply.error.message);
      expect(reply).to.include({
        kid, alg: 'ES384', clientAssertionType: 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer', connection: 'ehr', clientId: CLIENT_ID, tokenUrl: ehr.tokenUrl,
      });
      expect(decodeJwt(reply.clientAssertion)).to.include({ aud: ehr.tokenUrl, iss: CLIENT_ID });
      expect((await ehr.authenticate(reply.clientAssertion)).status).to.equal(200);

      const unknown = await requestQuery(nats.nc, 'SignClientAssertion', { facilityId: 'F-none' }, { catalog: h.catalog });
      expect(unknown).to.deep.equal({ error: { code: 'NOT_FOUND', message: 'No active facility "F-none"' } });
      await addFacility('F-nats-nokey');
      const noKey = await requestQuery(nats.nc, 'SignClientAssertion', { facilityId: 'F-nats-nokey', connection: 'ehr' }, { catalog: h.catalog });
      expect(isErrorReply(noKey) && noKey.error.code).to.equal('CONFLICT');
    });

    it('never signs for an audience or client id the facility has not configured; a 1.0.0 request with the configured values still works', async () => {
      const kid = await createKey('ES256');
      await addFacility('F-nats-aud');
      await assign('F-nats-aud', kid);
      for (const request of [
        { facilityId: 'F-nats-aud', clientId: CLIENT_ID, tokenUrl: 'https://attacker.example/oauth2/token' },
        { facilityId: 'F-nats-aud', clientId: 'another-client', tokenUrl: ehr.tokenUrl },
      ]) {
        const refused = await requestQuery(nats.nc, 'SignClientAssertion', request, { catalog: h.catalog });
        expect(isErrorReply(refused) && refused.error.code, JSON.stringify(request)).to.equal('FORBIDDEN');
      }
      const legacy = await requestQuery(nats.nc, 'SignClientAssertion', { facilityId: 'F-nats-aud', clientId: CLIENT_ID, tokenUrl: ehr.tokenUrl }, { catalog: h.catalog });
      if (isErrorReply(legacy)) throw new Error(legacy.error.message);
      expect((await ehr.authenticate(legacy.clientAssertion)).status).to.equal(200);
    });
  });
});
