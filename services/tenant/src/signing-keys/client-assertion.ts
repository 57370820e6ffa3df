import { randomUUID } from 'node:crypto';
import { importJWK, SignJWT, type JWK } from 'jose';
import type { SigningAlgorithm } from './model.js';

/**
 * Lifetime of a client assertion. SMART Backend Services: `exp` no more than five minutes in the
 * future. Four minutes leaves a minute for an EHR whose clock runs behind ours.
 */
export const ASSERTION_LIFETIME_SECONDS = 240;

export interface ClientAssertionRequest {
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
  privateJwk: JWK, kid: string, alg: SigningAlgorithm, request: ClientAssertionRequest, now: Date,
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

/** Problems with a request, each with the field it concerns; empty when the request is fine. */
export function clientAssertionRequestProblems(request: { clientId?: unknown; tokenUrl?: unknown }): Array<{ field: string; message: string }> {
  const problems: Array<{ field: string; message: string }> = [];
  if (typeof request.clientId !== 'string' || request.clientId.trim() === '') problems.push({ field: 'clientId', message: 'clientId is required' });
  else if (request.clientId.length > 255) problems.push({ field: 'clientId', message: 'clientId must be at most 255 characters' });
  if (typeof request.tokenUrl !== 'string' || !isHttpUrl(request.tokenUrl)) {
    problems.push({ field: 'tokenUrl', message: 'tokenUrl must be the absolute http(s) URL of the EHR token endpoint' });
  }
  return problems;
}

function isHttpUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return (url.protocol === 'https:' || url.protocol === 'http:') && url.hostname !== '';
  } catch {
    return false;
  }
}
