import { randomUUID } from 'node:crypto';
import { importJWK, SignJWT, type JWK } from 'jose';
import { ASSERTION_LIFETIME_SECONDS, type SigningAlgorithm } from './model.js';

export { ASSERTION_LIFETIME_SECONDS };

/** Issuer/subject and audience of an assertion: always a configured EHR connection of the facility. */
export interface AssertionAudience {
  readonly clientId: string;
  /** The EHR's token endpoint: the assertion's audience. */
  readonly tokenUrl: string;
}

export interface SignedClientAssertion {
  readonly assertion: string;
  readonly kid: string;
  readonly alg: SigningAlgorithm;
  readonly jti: string;
  readonly issuedAt: Date;
  readonly expiresAt: Date;
}

/**
 * The authentication JWT of SMART Backend Services (private_key_jwt): header `alg`, `kid`,
 * `typ: JWT`; claims `iss` = `sub` = client id, `aud` = token URL, `iat`, `exp`, unique `jti`.
 */
export async function signClientAssertion(
  privateJwk: JWK, kid: string, alg: SigningAlgorithm, request: AssertionAudience, now: Date,
): Promise<SignedClientAssertion> {
  const key = await importJWK(privateJwk, alg);
  const iat = Math.floor(now.getTime() / 1000);
  const exp = iat + ASSERTION_LIFETIME_SECONDS;
  const jti = randomUUID();
  const assertion = await new SignJWT({ jti })
    .setProtectedHeader({ alg, kid, typ: 'JWT' })
    .setIssuer(request.clientId)
    .setSubject(request.clientId)
    .setAudience(request.tokenUrl)
    .setIssuedAt(iat)
    .setExpirationTime(exp)
    .sign(key);
  return { assertion, kid, alg, jti, issuedAt: new Date(iat * 1000), expiresAt: new Date(exp * 1000) };
}
