import { expect } from 'chai';
import { exportSPKI, generateKeyPair, SignJWT } from 'jose';
import { ConfigError, httpSettings, loadConfig } from '../../config/index.js';
import { authSettings, verifierFromConfig } from '../index.js';

/** Start-up checks of the authentication settings (a ConfigError stops the process with exit code 78). */
describe('adapters/auth settings', () => {
  const schema = { ...httpSettings(), ...authSettings() };
  const JWT = { AUTH_ISSUER: 'https://idp.example.org', AUTH_AUDIENCE: 'nhsn-platform' };
  const configError = (env: Record<string, string>) => {
    try {
      verifierFromConfig(loadConfig(schema, env));
    } catch (error) {
      expect(error).to.be.instanceOf(ConfigError);
      return (error as Error).message;
    }
    throw new Error('no ConfigError');
  };

  it('refuses auth.mode none unless the service listens on loopback only', () => {
    for (const host of ['0.0.0.0', '::', '10.0.0.7', 'nhsn.example.org']) {
      expect(configError({ AUTH_MODE: 'none', HTTP_HOST: host }), host).to.contain('auth.mode (AUTH_MODE) is none').and.contain(`"${host}"`);
    }
    expect(configError({ AUTH_MODE: 'none' }), 'the default interface').to.contain('0.0.0.0');
    for (const host of ['127.0.0.1', '127.0.0.2', '::1', 'localhost']) {
      expect(verifierFromConfig(loadConfig(schema, { AUTH_MODE: 'none', HTTP_HOST: host })), host).to.equal(undefined);
    }
  });

  it('refuses a JWKS URL over plain http except on loopback', () => {
    expect(configError({ ...JWT, AUTH_JWKS_URL: 'http://login.example.org/certs' })).to.contain('auth.jwks-url (AUTH_JWKS_URL) must be an https URL');
    expect(verifierFromConfig(loadConfig(schema, { ...JWT, AUTH_JWKS_URL: 'https://login.example.org/certs' }))).to.not.equal(undefined);
    expect(verifierFromConfig(loadConfig(schema, { ...JWT, AUTH_JWKS_URL: 'http://127.0.0.1:8180/certs' }))).to.not.equal(undefined);
  });

  it('issue 28: a token without typ is refused by default; auth.token-type-required=false accepts it', async () => {
    const pair = await generateKeyPair('ES256', { extractable: true });
    const untyped = await new SignJWT({}).setProtectedHeader({ alg: 'ES256', kid: 's1' }).setSubject('u').setIssuer(JWT.AUTH_ISSUER)
      .setAudience(JWT.AUTH_AUDIENCE).setExpirationTime('5m').sign(pair.privateKey);
    const env = { ...JWT, AUTH_PUBLIC_KEY: await exportSPKI(pair.publicKey), AUTH_PUBLIC_KEY_ALGORITHM: 'ES256' };
    const strict = verifierFromConfig(loadConfig(schema, env))!;
    let refused: unknown;
    await strict.verify(untyped).catch((error: unknown) => { refused = error; });
    expect(refused).to.have.property('reason', 'token-type');
    const lenient = verifierFromConfig(loadConfig(schema, { ...env, AUTH_TOKEN_TYPE_REQUIRED: 'false' }))!;
    expect((await lenient.verify(untyped)).subject).to.equal('u');
  });

  it('defaults: token types at+jwt and JWT, typ required, the ID token claims, one hour of stale keys', () => {
    const config = loadConfig(schema, {});
    expect(config).to.deep.include({ authTokenTypes: ['at+jwt', 'JWT'], authTokenTypeRequired: true, authIdTokenClaims: ['nonce', 'at_hash', 'c_hash', 's_hash'], authJwksStaleMaxAge: 3600 });
    expect(loadConfig(schema, { AUTH_JWKS_STALE_MAX_AGE: '15m' }).authJwksStaleMaxAge).to.equal(900);
  });
});
