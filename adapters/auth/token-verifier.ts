import { createLocalJWKSet, createRemoteJWKSet, errors, importSPKI, jwtVerify, type JWTPayload, type JWTVerifyGetKey, type CryptoKey } from 'jose';

/**
 * Inbound authentication: verifies bearer JWTs for the policy AuthenticatedUser.
 *
 * Only asymmetric algorithms are accepted, so `alg: none` and the classic confusion attack (an HMAC
 * token "signed" with the verifier's public key) are refused before any signature check. Issuer,
 * audience, expiry and not-before are enforced with a bounded clock skew.
 */
export const ACCEPTED_ALGORITHMS = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'EdDSA'] as const;

export interface TokenVerifierOptions {
  issuer: string | string[];
  audience: string | string[];
  /** JWKS document URL of the identity provider (preferred: keys rotate without a redeploy). */
  jwksUrl?: string;
  /** Or a JWKS given inline (JSON), e.g. for tests or air-gapped deployments. */
  jwks?: { keys: Record<string, unknown>[] };
  /** Or one PEM public key (SPKI) with its algorithm. */
  publicKeyPem?: string;
  publicKeyAlgorithm?: (typeof ACCEPTED_ALGORITHMS)[number];
  clockSkewSeconds?: number;
  /** Verified tokens remembered (a client sends the same token many times); default 1000. 0 turns it off. */
  verifiedCacheSize?: number;
  /** How long a verified token is trusted without a new signature check (never past its exp); default 60 s. */
  verifiedCacheSeconds?: number;
}

export interface Principal {
  subject: string;
  /** Permissions from the `permissions` claim (string or array) plus `scope`/`scp` entries. */
  permissions: string[];
  roles: string[];
  claims: JWTPayload;
}

export type TokenFailure = 'missing' | 'malformed' | 'algorithm' | 'signature' | 'expired' | 'not-yet-valid' | 'issuer' | 'audience' | 'claims';

export class TokenRejectedError extends Error {
  constructor(readonly reason: TokenFailure, message: string) {
    super(message);
    this.name = 'TokenRejectedError';
  }
}

export interface TokenVerifier {
  verify(token: string): Promise<Principal>;
}

export function createTokenVerifier(options: TokenVerifierOptions): TokenVerifier {
  const getKey = keyResolver(options);
  const clockTolerance = options.clockSkewSeconds ?? 60;
  const verified = new VerifiedTokenCache(options.verifiedCacheSize ?? 1000, (options.verifiedCacheSeconds ?? 60) * 1000);
  return {
    async verify(token: string): Promise<Principal> {
      if (!token) throw new TokenRejectedError('missing', 'No bearer token was given.');
      const known = verified.get(token);
      if (known) return known;
      const alg = headerAlgorithm(token);
      if (!alg || !(ACCEPTED_ALGORITHMS as readonly string[]).includes(alg)) {
        throw new TokenRejectedError('algorithm', `Tokens signed with "${alg ?? 'none'}" are not accepted.`);
      }
      try {
        const { payload } = await jwtVerify(token, await getKey, {
          issuer: options.issuer,
          audience: options.audience,
          algorithms: [...ACCEPTED_ALGORITHMS],
          clockTolerance,
          requiredClaims: ['exp', 'sub'],
        });
        const principal = toPrincipal(payload);
        verified.set(token, principal, (payload.exp ?? 0) * 1000);
        return principal;
      } catch (error) {
        throw translate(error);
      }
    },
  };
}

async function resolveKey(options: TokenVerifierOptions): Promise<JWTVerifyGetKey | CryptoKey> {
  if (options.jwksUrl) return createRemoteJWKSet(new URL(options.jwksUrl), { cooldownDuration: 30_000, cacheMaxAge: 600_000 });
  if (options.jwks) return createLocalJWKSet(options.jwks as Parameters<typeof createLocalJWKSet>[0]);
  if (options.publicKeyPem && options.publicKeyAlgorithm) return importSPKI(options.publicKeyPem, options.publicKeyAlgorithm);
  throw new Error('Token verification needs a JWKS URL, an inline JWKS, or a public key with its algorithm.');
}

function keyResolver(options: TokenVerifierOptions): Promise<any> {
  const key = resolveKey(options);
  key.catch(() => undefined); // surfaced on first verify
  return key;
}

function headerAlgorithm(token: string): string | undefined {
  const [encodedHeader] = token.split('.');
  try {
    const header = JSON.parse(Buffer.from(encodedHeader, 'base64url').toString('utf8')) as { alg?: unknown };
    return typeof header.alg === 'string' ? header.alg : undefined;
  } catch {
    throw new TokenRejectedError('malformed', 'The bearer token is not a JWT.');
  }
}

function toPrincipal(payload: JWTPayload): Principal {
  const list = (value: unknown): string[] =>
    Array.isArray(value) ? value.map(String) : typeof value === 'string' ? value.split(/[\s,]+/).filter(Boolean) : [];
  return {
    subject: String(payload.sub),
    permissions: [...new Set([...list(payload.permissions), ...list(payload.scope), ...list(payload.scp)])],
    roles: list(payload.roles),
    claims: payload,
  };
}

function translate(error: unknown): TokenRejectedError {
  if (error instanceof TokenRejectedError) return error;
  if (error instanceof errors.JWTExpired) return new TokenRejectedError('expired', 'The bearer token has expired.');
  if (error instanceof errors.JWTClaimValidationFailed) {
    if (error.claim === 'nbf') return new TokenRejectedError('not-yet-valid', 'The bearer token is not valid yet.');
    if (error.claim === 'iss') return new TokenRejectedError('issuer', 'The bearer token was issued by an issuer this service does not trust.');
    if (error.claim === 'aud') return new TokenRejectedError('audience', 'The bearer token is not meant for this service (audience).');
    return new TokenRejectedError('claims', `The bearer token's claim "${error.claim}" is not acceptable.`);
  }
  if (error instanceof errors.JOSEAlgNotAllowed) return new TokenRejectedError('algorithm', 'The bearer token algorithm is not accepted.');
  if (error instanceof errors.JWSSignatureVerificationFailed || error instanceof errors.JWKSNoMatchingKey) {
    return new TokenRejectedError('signature', 'The bearer token signature does not verify.');
  }
  return new TokenRejectedError('malformed', 'The bearer token could not be verified.');
}

/**
 * Tokens that verified recently, so a client sending the same bearer token on every request costs one
 * signature check per minute instead of one per request. An entry never outlives the token's `exp`
 * (checked without the clock skew: the cache never extends what the verifier would accept).
 */
class VerifiedTokenCache {
  private readonly entries = new Map<string, { principal: Principal; until: number }>();

  constructor(private readonly capacity: number, private readonly ttlMs: number) {}

  get(token: string): Principal | undefined {
    const entry = this.entries.get(token);
    if (!entry) return undefined;
    if (entry.until <= Date.now()) {
      this.entries.delete(token);
      return undefined;
    }
    return entry.principal;
  }

  set(token: string, principal: Principal, expiresAtMs: number): void {
    if (this.capacity <= 0) return;
    const until = Math.min(Date.now() + this.ttlMs, expiresAtMs);
    if (until <= Date.now()) return;
    if (this.entries.size >= this.capacity) this.entries.delete(this.entries.keys().next().value as string);
    this.entries.set(token, { principal, until });
  }
}
