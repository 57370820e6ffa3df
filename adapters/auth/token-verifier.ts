import { createLocalJWKSet, errors, importSPKI, jwtVerify, type JSONWebKeySet, type JWTPayload, type JWTVerifyGetKey, type CryptoKey } from 'jose';
import type { TokenPrincipal } from './principal.js';
import { KeySetUnavailableError, RemoteKeySet, type KeySetReadEvent, type KeySetStatus } from './remote-key-set.js';

/**
 * Inbound authentication: verifies bearer JWTs for the policy AuthenticatedUser.
 *
 * Only asymmetric algorithms are accepted, so `alg: none` and the classic confusion attack (an HMAC
 * token "signed" with the verifier's public key) are refused before any signature check. Issuer,
 * audience, expiry and not-before are enforced with a bounded clock skew.
 *
 * Only access tokens are accepted, not OpenID Connect ID tokens (a UI holds one of each from the same
 * provider, signed with the same keys, often with `typ: JWT` on both):
 * - the header `typ` must be one of `acceptedTypes` (`at+jwt`, RFC 9068, or `JWT`); a token without
 *   `typ` is refused too, unless `requireType` is false (a provider that omits it);
 * - a token carrying a claim that only ID tokens carry (`idTokenClaims`: `nonce`, and the hashes
 *   `at_hash`, `c_hash`, `s_hash` that bind an ID token to what was issued with it, OIDC Core 3.1.3.6,
 *   3.3.2.11) is refused whatever its `typ`;
 * - and the audience must be this API's (`audience`), whereas an ID token's audience is the UI's
 *   client id: the configured audience must never be a client id (docs/operations.md).
 *
 * Keys come from the provider's JWKS URL (kept through its outages: remote-key-set.ts), an inline
 * JWKS, or one PEM key. When the keys cannot be read, `verify` rejects with KeySetUnavailableError
 * (not a TokenRejectedError): the caller's token may well be good.
 */
export const ACCEPTED_ALGORITHMS = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'EdDSA'] as const;

export interface TokenVerifierOptions {
  issuer: string | string[];
  audience: string | string[];
  /** JWKS document URL of the identity provider (preferred: keys rotate without a redeploy). */
  jwksUrl?: string;
  /** Or a JWKS given inline (JSON), e.g. for tests or air-gapped deployments. */
  jwks?: JSONWebKeySet;
  /** Or one PEM public key (SPKI) with its algorithm. */
  publicKeyPem?: string;
  publicKeyAlgorithm?: (typeof ACCEPTED_ALGORITHMS)[number];
  clockSkewSeconds?: number;
  /** Verified tokens remembered (a client sends the same token many times); default 1000. 0 turns it off. */
  verifiedCacheSize?: number;
  /** Bytes the remembered tokens may take (token text and claims, estimated); default 4 MiB. */
  verifiedCacheBytes?: number;
  /** Longest a verified token is trusted without a new signature check; default: until its exp. */
  verifiedCacheSeconds?: number;
  /** The clock of the cache and the key set (tests); default Date.now. */
  now?: () => number;
  /** Accepted header `typ` values, compared as media types (case-insensitive, `application/` optional); default at+jwt, JWT. */
  acceptedTypes?: readonly string[];
  /** Refuse tokens without a header `typ`; default true (auth.token-type-required: false for a provider that omits it). */
  requireType?: boolean;
  /** Claims that mark an OIDC ID token; a token carrying any is refused. Default nonce, at_hash, c_hash, s_hash. */
  idTokenClaims?: readonly string[];
  /** With jwksUrl: how long the last key set read keeps verifying while the provider is unreachable; default 3600 s. */
  jwksStaleMaxAgeSeconds?: number;
  /** With jwksUrl: told about every read of the key set. */
  onKeySetRead?: (event: KeySetReadEvent) => void;
}

export const DEFAULT_ACCEPTED_TOKEN_TYPES = ['at+jwt', 'JWT'] as const;
export const DEFAULT_ID_TOKEN_CLAIMS = ['nonce', 'at_hash', 'c_hash', 's_hash'] as const;

export type TokenFailure = 'missing' | 'malformed' | 'algorithm' | 'signature' | 'expired' | 'not-yet-valid' | 'issuer' | 'audience' | 'claims' | 'token-type';

export class TokenRejectedError extends Error {
  constructor(readonly reason: TokenFailure, message: string) {
    super(message);
    this.name = 'TokenRejectedError';
  }
}

export interface TokenVerifier {
  verify(token: string): Promise<TokenPrincipal>;
  /**
   * The principal of a token `verify` accepted and still remembers (until its exp, while the keys
   * that verified it are usable), without verifying anything: undefined for any other token. Lets a
   * hot path (the gateway's pass-through) go on synchronously; anything else takes `verify`.
   */
  readonly verified?: (token: string) => TokenPrincipal | undefined;
  /** With a JWKS URL: how old the held key set is and whether the last read failed (for metrics). */
  readonly keySetStatus?: () => KeySetStatus;
}

export function createTokenVerifier(options: TokenVerifierOptions): TokenVerifier {
  const now = options.now ?? Date.now;
  const verified = new VerifiedTokenCache({
    maxEntries: options.verifiedCacheSize ?? 1000,
    maxBytes: options.verifiedCacheBytes ?? 4 * 1024 * 1024,
    ttlMs: options.verifiedCacheSeconds === undefined ? Infinity : options.verifiedCacheSeconds * 1000,
    now,
  });
  const keySet = options.jwksUrl
    ? new RemoteKeySet({
      url: options.jwksUrl, staleMaxAgeMs: (options.jwksStaleMaxAgeSeconds ?? 3600) * 1000, onRead: options.onKeySetRead, now,
      // A rotated or revoked key: what it verified is verified again, with the keys the provider has now.
      onKeysChanged: () => verified.clear(),
    })
    : undefined;
  const getKey = keySet ? Promise.resolve(keySet.getKey) : keyResolver(options);
  const clockTolerance = options.clockSkewSeconds ?? 60;
  const acceptedTypes = new Set((options.acceptedTypes ?? DEFAULT_ACCEPTED_TOKEN_TYPES).map(mediaType));
  const idTokenClaims = options.idTokenClaims ?? DEFAULT_ID_TOKEN_CLAIMS;
  const requireType = options.requireType ?? true;
  // Reused only while the keys that verified it may still verify (and a due refresh starts).
  const remembered = (token: string) => (keySet && !keySet.usable() ? undefined : verified.get(token));
  return {
    verified: remembered,
    async verify(token: string): Promise<TokenPrincipal> {
      if (!token) throw new TokenRejectedError('missing', 'No bearer token was given.');
      const known = remembered(token);
      if (known) return known;
      const { alg, typ } = protectedHeader(token);
      if (!alg || !ACCEPTED_ALGORITHMS.some((accepted) => accepted === alg)) {
        throw new TokenRejectedError('algorithm', `Tokens signed with "${alg ?? 'none'}" are not accepted.`);
      }
      if (typ === undefined ? requireType : !acceptedTypes.has(mediaType(typ))) {
        throw new TokenRejectedError('token-type', `Only access tokens are accepted (header typ ${[...acceptedTypes].join(' or ')}); this one has ${typ === undefined ? 'no typ' : `typ "${typ}"`}.`);
      }
      try {
        const { payload } = await jwtVerify(token, await getKey, {
          issuer: options.issuer,
          audience: options.audience,
          algorithms: [...ACCEPTED_ALGORITHMS],
          clockTolerance,
          requiredClaims: ['exp', 'sub'],
        });
        const marker = idTokenClaims.find((claim) => payload[claim] !== undefined);
        if (marker) throw new TokenRejectedError('token-type', `The bearer token is an OpenID Connect ID token (claim "${marker}"); send an access token.`);
        const principal = toPrincipal(payload);
        verified.set(token, principal, (payload.exp ?? 0) * 1000, approximateBytes(token, payload));
        return principal;
      } catch (error) {
        if (error instanceof KeySetUnavailableError) throw error;
        throw translate(error);
      }
    },
    ...(keySet ? { keySetStatus: () => keySet.status() } : {}),
  };
}

/** `typ` compared as a media type: case-insensitive, `application/` optional (RFC 7515 section 4.1.9). */
function mediaType(typ: string): string {
  return typ.toLowerCase().replace(/^application\//, '');
}

async function resolveKey(options: TokenVerifierOptions): Promise<JWTVerifyGetKey | CryptoKey> {
  if (options.jwks) return createLocalJWKSet(options.jwks);
  if (options.publicKeyPem && options.publicKeyAlgorithm) return importSPKI(options.publicKeyPem, options.publicKeyAlgorithm);
  throw new Error('Token verification needs a JWKS URL, an inline JWKS, or a public key with its algorithm.');
}

function keyResolver(options: TokenVerifierOptions): Promise<JWTVerifyGetKey | CryptoKey> {
  const key = resolveKey(options);
  key.catch(() => undefined); // surfaced on first verify
  return key;
}

function protectedHeader(token: string): { alg?: string; typ?: string } {
  const [encodedHeader = ''] = token.split('.');
  try {
    const header: unknown = JSON.parse(Buffer.from(encodedHeader, 'base64url').toString('utf8'));
    if (header === null) throw new TypeError('a null header'); // refused as malformed below
    const alg = typeof header === 'object' && 'alg' in header ? header.alg : undefined;
    const typ = typeof header === 'object' && 'typ' in header ? header.typ : undefined;
    return {
      alg: typeof alg === 'string' ? alg : undefined,
      // A typ that is not a string is no type we accept: kept as text so it is refused, not ignored.
      typ: typ === undefined ? undefined : typeof typ === 'string' ? typ : JSON.stringify(typ),
    };
  } catch {
    throw new TokenRejectedError('malformed', 'The bearer token is not a JWT.');
  }
}

function toPrincipal(payload: JWTPayload): TokenPrincipal {
  const list = (value: unknown): string[] =>
    Array.isArray(value) ? value.map(String) : typeof value === 'string' ? value.split(/[\s,]+/).filter(Boolean) : [];
  return {
    kind: 'token',
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

/** What an entry holds: the token text (the key), the claims (twice: payload and principal) and the map's own share. */
function approximateBytes(token: string, payload: JWTPayload): number {
  return token.length + 2 * JSON.stringify(payload).length + 128;
}

/**
 * Tokens that verified, so a client sending the same bearer token on every request costs one
 * signature check per token rather than one per request (an ES256 check costs more than proxying a
 * request). An entry lasts until the token's `exp` (checked without the clock skew: the cache never
 * extends what the verifier would accept), or `ttlMs` if shorter. Bounded by entries and by bytes, the
 * oldest going first (tokens are caller data: a flood of distinct valid tokens cannot grow it); a
 * change of the provider's keys empties it (createTokenVerifier).
 */
class VerifiedTokenCache {
  private readonly entries = new Map<string, { principal: TokenPrincipal; until: number; bytes: number }>();
  private bytes = 0;

  constructor(private readonly limits: { maxEntries: number; maxBytes: number; ttlMs: number; now: () => number }) {}

  get(token: string): TokenPrincipal | undefined {
    const entry = this.entries.get(token);
    if (!entry) return undefined;
    if (entry.until <= this.limits.now()) {
      this.remove(token, entry.bytes);
      return undefined;
    }
    return entry.principal;
  }

  set(token: string, principal: TokenPrincipal, expiresAtMs: number, bytes: number): void {
    const { maxEntries, maxBytes, ttlMs, now } = this.limits;
    if (maxEntries <= 0 || bytes > maxBytes / 8) return; // an outsized token is verified each time rather than crowding out the rest
    const until = Math.min(now() + ttlMs, expiresAtMs);
    if (until <= now()) return;
    const previous = this.entries.get(token);
    if (previous) this.remove(token, previous.bytes);
    while (this.entries.size > 0 && (this.entries.size >= maxEntries || this.bytes + bytes > maxBytes)) {
      const first = this.entries.entries().next();
      if (first.done) break;
      const [oldest, entry] = first.value;
      this.remove(oldest, entry.bytes);
    }
    this.entries.set(token, { principal, until, bytes });
    this.bytes += bytes;
  }

  clear(): void {
    this.entries.clear();
    this.bytes = 0;
  }

  private remove(token: string, bytes: number): void {
    this.entries.delete(token);
    this.bytes -= bytes;
  }
}
