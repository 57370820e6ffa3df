/**
 * The signing-key registry's vocabulary: algorithms, statuses, the key record and the rules that
 * depend only on the record and the clock (effective status, JWKS publication). No I/O here.
 */

/**
 * Algorithms a key can be created for. SMART Backend Services requires clients to support RS384 and
 * ES384; the others are offered for EHRs that ask for them. EdDSA keys are Ed25519.
 */
export const SIGNING_ALGORITHMS = ['RS384', 'ES384', 'RS256', 'ES256', 'PS384', 'EdDSA'] as const;
export type SigningAlgorithm = (typeof SIGNING_ALGORITHMS)[number];

export const KEY_STATUSES = ['active', 'disabled', 'expired'] as const;
export type KeyStatus = (typeof KEY_STATUSES)[number];

/** A public JWK as published: `kty` plus the bare-key members of its type, never private members. */
export type PublicJwk = Record<string, string>;

export interface SigningKey {
  readonly kid: string;
  readonly algorithm: SigningAlgorithm;
  readonly createdAt: Date;
  /** As stored; use `effectiveStatus` to account for an expiry the job has not recorded yet. */
  readonly status: KeyStatus;
  /** When the status last changed; the start of a disabled key's retention in the JWKS. */
  readonly statusChangedAt: Date;
  readonly primary: boolean;
  readonly expiresAt: Date | null;
  readonly publicJwk: PublicJwk;
}

/** A key past its expiry is expired whatever the job has recorded so far. */
export function effectiveStatus(key: Pick<SigningKey, 'status' | 'expiresAt'>, now: Date): KeyStatus {
  if (key.status !== 'expired' && key.expiresAt !== null && key.expiresAt.getTime() <= now.getTime()) return 'expired';
  return key.status;
}

/**
 * Whether the JWKS carries the key: active keys always; disabled keys until `retentionMs` after they
 * were disabled (tokens signed just before the disable must still verify); expired keys never.
 */
export function isPublished(key: SigningKey, now: Date, retentionMs: number): boolean {
  const status = effectiveStatus(key, now);
  if (status === 'active') return true;
  if (status === 'disabled') return now.getTime() < key.statusChangedAt.getTime() + retentionMs;
  return false;
}

/** What a key looks like from outside: no key material besides the public JWK. */
export function withEffectiveStatus(key: SigningKey, now: Date): SigningKey {
  const status = effectiveStatus(key, now);
  return status === key.status ? key : { ...key, status, primary: false };
}

export type SigningKeyErrorKind =
  | 'not-found' | 'facility-not-found' | 'in-use' | 'invalid' | 'conflict' | 'no-key' | 'key-not-usable' | 'master-key-missing';

/**
 * A refusal of the registry, with a kind the HTTP and NATS adapters translate
 * (404 / 409 / 400 / 503 and NOT_FOUND / CONFLICT / BAD_REQUEST / UNAVAILABLE).
 */
export class SigningKeyError extends Error {
  override readonly name = 'SigningKeyError';
  constructor(readonly kind: SigningKeyErrorKind, message: string, readonly facilities: readonly string[] = []) {
    super(message);
  }
}
