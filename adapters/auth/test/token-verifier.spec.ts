import { expect } from 'chai';
import { exportJWK, exportSPKI, generateKeyPair, SignJWT, type CryptoKey } from 'jose';
import { createHmac } from 'node:crypto';
import { createTokenVerifier, TokenRejectedError, type TokenVerifier } from '../token-verifier.js';

const ISSUER = 'https://idp.test';
const AUDIENCE = 'nhsn-admin';

async function rejection(verifier: TokenVerifier, token: string): Promise<TokenRejectedError> {
  try {
    await verifier.verify(token);
  } catch (error) {
    expect(error).to.be.instanceOf(TokenRejectedError);
    return error as TokenRejectedError;
  }
  throw new Error('token was accepted');
}

function unsignedToken(header: object, payload: object, signature = ''): string {
  const enc = (o: object) => Buffer.from(JSON.stringify(o)).toString('base64url');
  return `${enc(header)}.${enc(payload)}.${signature}`;
}

describe('adapters/auth token verifier', () => {
  let privateKey: CryptoKey;
  let verifier: TokenVerifier;
  let publicPem: string;

  const sign = (claims: Record<string, unknown> = {}, opts: { exp?: string | number; nbf?: string | number; aud?: string; iss?: string } = {}) =>
    new SignJWT({ permissions: ['IsLinkAdmin'], ...claims })
      .setProtectedHeader({ alg: 'ES256', kid: 'k1', typ: 'at+jwt' })
      .setSubject('user-1')
      .setIssuer(opts.iss ?? ISSUER)
      .setAudience(opts.aud ?? AUDIENCE)
      .setIssuedAt()
      .setExpirationTime(opts.exp ?? '5m')
      .setNotBefore(opts.nbf ?? '0s')
      .sign(privateKey);

  before(async () => {
    const pair = await generateKeyPair('ES256', { extractable: true });
    privateKey = pair.privateKey;
    publicPem = await exportSPKI(pair.publicKey);
    const jwk = { ...(await exportJWK(pair.publicKey)), kid: 'k1', alg: 'ES256' };
    verifier = createTokenVerifier({ issuer: ISSUER, audience: AUDIENCE, jwks: { keys: [jwk] }, clockSkewSeconds: 5 });
  });

  it('accepts a valid token and exposes subject and permissions', async () => {
    const principal = await verifier.verify(await sign({ scope: 'validation.read tenant.write' }));
    expect(principal.subject).to.equal('user-1');
    expect(principal.permissions).to.include.members(['IsLinkAdmin', 'validation.read', 'tenant.write']);
  });

  it('accepts a token verified with a PEM public key', async () => {
    const pemVerifier = createTokenVerifier({ issuer: ISSUER, audience: AUDIENCE, publicKeyPem: publicPem, publicKeyAlgorithm: 'ES256' });
    expect((await pemVerifier.verify(await sign())).subject).to.equal('user-1');
  });

  it('refuses alg none', async () => {
    const token = unsignedToken({ alg: 'none' }, { sub: 'x', iss: ISSUER, aud: AUDIENCE, exp: Math.floor(Date.now() / 1000) + 60 });
    expect((await rejection(verifier, token)).reason).to.equal('algorithm');
  });

  it('refuses an HMAC token signed with the public key (algorithm confusion)', async () => {
    const header = Buffer.from(JSON.stringify({ alg: 'HS256', kid: 'k1' })).toString('base64url');
    const payload = Buffer.from(JSON.stringify({ sub: 'x', iss: ISSUER, aud: AUDIENCE, exp: Math.floor(Date.now() / 1000) + 60 })).toString('base64url');
    const signature = createHmac('sha256', publicPem).update(`${header}.${payload}`).digest('base64url');
    expect((await rejection(verifier, `${header}.${payload}.${signature}`)).reason).to.equal('algorithm');
  });

  it('refuses expired and not-yet-valid tokens beyond the clock skew', async () => {
    const now = Math.floor(Date.now() / 1000);
    expect((await rejection(verifier, await sign({}, { exp: now - 60 }))).reason).to.equal('expired');
    expect((await rejection(verifier, await sign({}, { nbf: now + 600 }))).reason).to.equal('not-yet-valid');
  });

  it('tolerates a small clock skew', async () => {
    const now = Math.floor(Date.now() / 1000);
    expect((await verifier.verify(await sign({}, { exp: now - 2 }))).subject).to.equal('user-1');
  });

  it('refuses a wrong audience and a wrong issuer', async () => {
    expect((await rejection(verifier, await sign({}, { aud: 'someone-else' }))).reason).to.equal('audience');
    expect((await rejection(verifier, await sign({}, { iss: 'https://evil.test' }))).reason).to.equal('issuer');
  });

  it('refuses a token signed by another key and a token that is not a JWT', async () => {
    const other = await generateKeyPair('ES256');
    const forged = await new SignJWT({}).setProtectedHeader({ alg: 'ES256', kid: 'k1', typ: 'at+jwt' }).setSubject('x').setIssuer(ISSUER)
      .setAudience(AUDIENCE).setExpirationTime('5m').sign(other.privateKey);
    expect((await rejection(verifier, forged)).reason).to.equal('signature');
    expect((await rejection(verifier, 'not-a-token')).reason).to.equal('malformed');
  });

  it('accepts a repeated token, and a remembered verification never outlives the token\'s exp', async () => {
    const strict = createTokenVerifier({ issuer: ISSUER, audience: AUDIENCE, publicKeyPem: publicPem, publicKeyAlgorithm: 'ES256', clockSkewSeconds: 0 });
    const expiresAt = Math.floor(Date.now() / 1000) + 1;
    const token = await sign({}, { exp: expiresAt });
    expect((await strict.verify(token)).subject).to.equal('user-1');
    expect((await strict.verify(token)).subject).to.equal('user-1');
    await new Promise((resolve) => setTimeout(resolve, expiresAt * 1000 - Date.now() + 50));
    expect((await rejection(strict, token)).reason).to.equal('expired');
  });

  describe('access tokens only, not OpenID Connect ID tokens', () => {
    const signTyped = (typ: string | undefined, claims: Record<string, unknown> = {}) =>
      new SignJWT({ permissions: ['IsLinkAdmin'], ...claims })
        .setProtectedHeader({ alg: 'ES256', kid: 'k1', ...(typ === undefined ? {} : { typ }) })
        .setSubject('user-1').setIssuer(ISSUER).setAudience(AUDIENCE).setIssuedAt().setExpirationTime('5m').sign(privateKey);

    it('accepts typ at+jwt (RFC 9068, with or without application/, any case) and JWT', async () => {
      for (const typ of ['at+jwt', 'application/at+jwt', 'AT+JWT', 'JWT']) {
        expect((await verifier.verify(await signTyped(typ))).subject, String(typ)).to.equal('user-1');
      }
    });

    it('issue 28: refuses a token without typ by default, accepts it when configured (requireType false)', async () => {
      const rejected = await rejection(verifier, await signTyped(undefined));
      expect(rejected.reason).to.equal('token-type');
      expect(rejected.message).to.contain('no typ');
      const lenient = createTokenVerifier({ issuer: ISSUER, audience: AUDIENCE, publicKeyPem: publicPem, publicKeyAlgorithm: 'ES256', requireType: false });
      expect((await lenient.verify(await signTyped(undefined))).subject).to.equal('user-1');
      expect((await rejection(lenient, await signTyped('id_token+jwt'))).reason, 'a wrong typ stays refused').to.equal('token-type');
    });

    it('refuses another typ, and no typ when a typ is required', async () => {
      const rejected = await rejection(verifier, await signTyped('id_token+jwt'));
      expect(rejected.reason).to.equal('token-type');
      expect(rejected.message).to.contain('"id_token+jwt"');
      const strict = createTokenVerifier({ issuer: ISSUER, audience: AUDIENCE, publicKeyPem: publicPem, publicKeyAlgorithm: 'ES256', acceptedTypes: ['at+jwt'], requireType: true });
      expect((await rejection(strict, await signTyped(undefined))).reason).to.equal('token-type');
      expect((await rejection(strict, await signTyped('JWT'))).reason).to.equal('token-type');
      expect((await strict.verify(await signTyped('at+jwt'))).subject).to.equal('user-1');
    });

    it('refuses an ID token with typ JWT by the claims only ID tokens carry (nonce, at_hash, c_hash, s_hash)', async () => {
      for (const claim of ['nonce', 'at_hash', 'c_hash', 's_hash']) {
        const idToken = await signTyped('JWT', { [claim]: 'x0Hx9Bb6', auth_time: Math.floor(Date.now() / 1000) });
        const rejected = await rejection(verifier, idToken);
        expect(rejected.reason, claim).to.equal('token-type');
        expect(rejected.message).to.contain(`"${claim}"`);
      }
      // An access token may carry auth_time (RFC 9068 section 2.2.1): not a marker.
      expect((await verifier.verify(await signTyped('at+jwt', { auth_time: Math.floor(Date.now() / 1000) }))).subject).to.equal('user-1');
      // A deployment whose provider puts nonce in access tokens lists the other markers only.
      const lenient = createTokenVerifier({ issuer: ISSUER, audience: AUDIENCE, publicKeyPem: publicPem, publicKeyAlgorithm: 'ES256', idTokenClaims: ['at_hash', 'c_hash', 's_hash'] });
      expect((await lenient.verify(await signTyped('JWT', { nonce: 'n' }))).subject).to.equal('user-1');
    });
  });
});
