import type { JWK } from 'jose';
import { isPublished, type PublicJwk, type SigningAlgorithm, type SigningKey } from './model.js';

/**
 * The bare-key members a public JWK may carry, per key type. A whitelist, not a blacklist of
 * `d`, `p`, `q`, `dp`, `dq`, `qi`, `oth`, `k`: a member we did not think of is left out by default.
 */
const PUBLIC_MEMBERS: Record<string, readonly ('n' | 'e' | 'crv' | 'x' | 'y')[]> = {
  RSA: ['n', 'e'],
  EC: ['crv', 'x', 'y'],
  OKP: ['crv', 'x'],
};

/** The public part of a JWK (from jose `exportJWK`), with the registry's kid, alg and `use: sig`. */
export function publicJwkOf(jwk: JWK, kid: string, alg: SigningAlgorithm): PublicJwk {
  const kty = jwk.kty;
  const members = kty ? PUBLIC_MEMBERS[kty] : undefined;
  if (!kty || !members) throw new Error(`Unsupported key type ${String(kty)}`);
  const result: PublicJwk = { kty, kid, alg, use: 'sig' };
  for (const member of members) {
    const value: unknown = jwk[member];
    if (typeof value !== 'string') throw new Error(`The ${kty} public key lacks member ${member}`);
    result[member] = value;
  }
  return result;
}

export interface JwksDocument {
  readonly keys: PublicJwk[];
}

/**
 * The JWKS of the platform: every published key (see `isPublished`), each reduced once more to its
 * public members, primary key first so a client that picks the first key picks the preferred one.
 */
export function buildJwks(keys: readonly SigningKey[], now: Date, disabledRetentionMs: number): JwksDocument {
  const published = keys.filter((key) => isPublished(key, now, disabledRetentionMs))
    .sort((a, b) => Number(b.primary) - Number(a.primary) || a.createdAt.getTime() - b.createdAt.getTime() || a.kid.localeCompare(b.kid));
  return { keys: published.map((key) => publicJwkOf(key.publicJwk, key.kid, key.algorithm)) };
}
