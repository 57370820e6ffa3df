/**
 * Issue 33, item 3: verified tokens are remembered until their expiry, within a bound on entries and
 * bytes, and a change of the provider's keys (rotation, revocation) forgets them. A remembered token
 * returns the very principal object its verification made (`===`); a new verification makes a new one.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWK } from 'jose';
import type { IncomingHttpHeaders } from 'node:http';
import { alreadyAuthenticated, ANONYMOUS_PRINCIPAL, createTokenVerifier, TokenRejectedError, type KeySetReadEvent } from '../index.js';

const ISSUER = 'https://idp.test';
const AUDIENCE = 'nhsn-platform';
const MINUTE = 60_000;

describe('adapters/auth: verified-token cache', function () {
  this.timeout(20_000);
  let key1: CryptoKey;
  let key2: CryptoKey;
  let jwk1: JWK;
  let jwk2: JWK;
  let served: JWK[];
  let reads: number;
  let idp: Server;
  let jwksUrl: string;

  const token = (kid: string, key: CryptoKey, claims: Record<string, unknown> = {}, exp = '1h') => new SignJWT({ permissions: ['p'], ...claims })
    .setProtectedHeader({ alg: 'ES256', kid, typ: 'at+jwt' }).setSubject('user-1').setIssuer(ISSUER).setAudience(AUDIENCE).setExpirationTime(exp).sign(key);

  before(async () => {
    const pair1 = await generateKeyPair('ES256', { extractable: true });
    const pair2 = await generateKeyPair('ES256', { extractable: true });
    key1 = pair1.privateKey;
    key2 = pair2.privateKey;
    jwk1 = { ...(await exportJWK(pair1.publicKey)), kid: 'k1', alg: 'ES256' };
    jwk2 = { ...(await exportJWK(pair2.publicKey)), kid: 'k2', alg: 'ES256' };
    idp = createServer((_req, res) => {
      reads += 1;
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ keys: served }));
    });
    await new Promise<void>((resolve) => idp.listen(0, '127.0.0.1', resolve));
    jwksUrl = `http://127.0.0.1:${(idp.address() as AddressInfo).port}/certs`;
  });

  after(() => new Promise<void>((resolve) => { idp.closeAllConnections(); idp.close(() => resolve()); }));

  beforeEach(() => {
    served = [jwk1];
    reads = 0;
  });

  it('remembers a verified token until its expiry (not a fixed minute), and forgets it at exp', async () => {
    let now = Date.now();
    const verifier = createTokenVerifier({ issuer: ISSUER, audience: AUDIENCE, jwks: { keys: [jwk1] }, now: () => now });
    const jwt = await token('k1', key1, {}, '1h');
    const first = await verifier.verify(jwt);
    now += 50 * MINUTE;
    expect(await verifier.verify(jwt), '50 minutes later, before exp').to.equal(first);
    now += 11 * MINUTE;
    // Past exp for the cache: verified again (jose, on the real clock, still accepts it): a new principal.
    expect(await verifier.verify(jwt)).to.not.equal(first);
  });

  it('is bounded by entries: the oldest goes first', async () => {
    const verifier = createTokenVerifier({ issuer: ISSUER, audience: AUDIENCE, jwks: { keys: [jwk1] }, verifiedCacheSize: 2 });
    const [a, b, c] = await Promise.all([token('k1', key1, { n: 1 }), token('k1', key1, { n: 2 }), token('k1', key1, { n: 3 })]);
    const pa = await verifier.verify(a!);
    const pb = await verifier.verify(b!);
    await verifier.verify(c!);
    expect(await verifier.verify(b!)).to.equal(pb);
    expect(await verifier.verify(a!), 'evicted by the third').to.not.equal(pa);
  });

  it('is bounded by bytes: tokens beyond the budget push the oldest out, an outsized token is not kept at all', async () => {
    const verifier = createTokenVerifier({ issuer: ISSUER, audience: AUDIENCE, jwks: { keys: [jwk1] }, verifiedCacheBytes: 64 * 1024 });
    const padding = 'x'.repeat(1500); // each entry ≈ 5 KB: about 12 fit in 64 KB
    const tokens = await Promise.all(Array.from({ length: 20 }, (_, n) => token('k1', key1, { n, padding })));
    const principals = [];
    for (const jwt of tokens) principals.push(await verifier.verify(jwt));
    expect(await verifier.verify(tokens[19]!), 'the newest is kept').to.equal(principals[19]);
    expect(await verifier.verify(tokens[0]!), 'the oldest went for the bytes').to.not.equal(principals[0]);
    const huge = await token('k1', key1, { padding: 'y'.repeat(20_000) });
    const once = await verifier.verify(huge);
    expect(await verifier.verify(huge), 'a token above an eighth of the budget is verified each time').to.not.equal(once);
  });

  it('empties when the provider\'s keys change: a revoked key\'s tokens are refused at the next read, though they were remembered', async () => {
    let now = Date.now();
    const events: KeySetReadEvent[] = [];
    let read: () => void = () => undefined;
    const verifier = createTokenVerifier({
      issuer: ISSUER, audience: AUDIENCE, jwksUrl, now: () => now,
      onKeySetRead: (event) => { events.push(event); read(); },
    });
    const nextRead = () => new Promise<void>((resolve) => { read = resolve; });
    const jwt = await token('k1', key1);
    const first = await verifier.verify(jwt);
    expect(await verifier.verify(jwt)).to.equal(first);
    expect(reads).to.equal(1);

    // Due for a refresh (10 min), keys unchanged: the hit is answered from the cache, a read starts, nothing is forgotten.
    now += 11 * MINUTE;
    let refreshed = nextRead();
    expect(await verifier.verify(jwt)).to.equal(first);
    await refreshed;
    expect(reads).to.equal(2);
    expect(await verifier.verify(jwt)).to.equal(first);

    // The provider rotates: k1 revoked, k2 in. The next refresh notices and the cache empties.
    served = [jwk2];
    now += 11 * MINUTE;
    refreshed = nextRead();
    await verifier.verify(jwt); // answered once more from the cache while the read runs
    await refreshed;
    const refused = await verifier.verify(jwt).then(() => undefined, (error: unknown) => error);
    expect(refused).to.be.instanceOf(TokenRejectedError);
    expect((refused as TokenRejectedError).reason).to.equal('signature');
    expect((await verifier.verify(await token('k2', key2))).subject).to.equal('user-1');
    expect(events.every((event) => event.ok)).to.equal(true);
  });

  describe('looked up without verifying (verified, alreadyAuthenticated: the gateway\'s pass-through)', () => {
    const request = (authorization?: string): { headers: IncomingHttpHeaders } => ({ headers: authorization === undefined ? {} : { authorization } });

    it('knows only a token verify accepted, and only until its exp', async () => {
      let now = Date.now();
      const verifier = createTokenVerifier({ issuer: ISSUER, audience: AUDIENCE, jwks: { keys: [jwk1] }, now: () => now });
      const jwt = await token('k1', key1, {}, '1h');
      const known = alreadyAuthenticated('jwt', verifier);
      expect(verifier.verified?.(jwt), 'never verified').to.equal(undefined);
      expect(known(request(`Bearer ${jwt}`))).to.equal(undefined);
      const principal = await verifier.verify(jwt);
      expect(verifier.verified?.(jwt)).to.equal(principal);
      expect(known(request(`bearer  ${jwt}`)), 'the scheme in any case, as authenticatedUser reads it').to.equal(principal);
      expect(known(request(`Basic ${jwt}`))).to.equal(undefined);
      expect(known(request())).to.equal(undefined);
      now += 61 * MINUTE;
      expect(verifier.verified?.(jwt), 'past exp').to.equal(undefined);
    });

    it('never knows a token verify refused, nor one signed by a key that is gone', async () => {
      let now = Date.now();
      const verifier = createTokenVerifier({ issuer: ISSUER, audience: AUDIENCE, jwksUrl, now: () => now });
      const forged = await token('k1', key2);
      await verifier.verify(forged).then(() => expect.fail('accepted'), () => undefined);
      expect(verifier.verified?.(forged)).to.equal(undefined);
      const jwt = await token('k1', key1);
      await verifier.verify(jwt);
      expect(verifier.verified?.(jwt)).to.not.equal(undefined);
      served = [jwk2];
      now += 11 * MINUTE;
      await verifier.verify(jwt); // a hit that starts the due refresh
      for (let i = 0; i < 100 && verifier.verified?.(jwt) !== undefined; i++) await new Promise((resolve) => setTimeout(resolve, 10));
      expect(verifier.verified?.(jwt), 'k1 was revoked').to.equal(undefined);
    });

    it('auth.mode none: every caller is the anonymous principal; a verifier without the look-up knows nobody', () => {
      expect(alreadyAuthenticated('none', undefined)(request())).to.equal(ANONYMOUS_PRINCIPAL);
      expect(alreadyAuthenticated('jwt', { verify: () => Promise.reject(new Error('x')) })(request('Bearer a.b.c'))).to.equal(undefined);
    });
  });
});
