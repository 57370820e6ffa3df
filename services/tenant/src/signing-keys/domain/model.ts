/**
 * The signing-key registry's vocabulary: algorithms, statuses, the key record and the rules that
 * depend only on the record and the clock (effective status, JWKS publication). No I/O here.
 */
import { DomainError, type FailureKind, type FailureReason } from '#shared-kernel/domain/errors.js';

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
 * Lifetime of a client assertion. SMART Backend Services: `exp` no more than five minutes in the
 * future. Four minutes leaves a minute for an EHR whose clock runs behind ours.
 */
export const ASSERTION_LIFETIME_SECONDS = 240;

/** How far an EHR's clock may lag ours while it still checks an assertion's `exp` against it. */
export const EHR_CLOCK_SKEW_SECONDS = 60;

/**
 * How long a key that stopped signing must stay published: an assertion signed at the last moment
 * lives ASSERTION_LIFETIME_SECONDS, and an EHR whose clock lags still accepts it for the skew.
 */
export const VERIFICATION_GRACE_MS = (ASSERTION_LIFETIME_SECONDS + EHR_CLOCK_SKEW_SECONDS) * 1000;

/**
 * Until when the JWKS carries the key; null while it is active (published as long as it signs).
 * - disabled: signing stops at once, the public key stays `retentionMs` after the disable (never
 *   less than VERIFICATION_GRACE_MS), so assertions signed just before still verify;
 * - expired: it could sign until `expiresAt`, so it stays until `expiresAt` + VERIFICATION_GRACE_MS.
 * A deleted key has no row, so it leaves at once (disable it first to keep it verifiable).
 */
export function publishedUntil(key: SigningKey, now: Date, retentionMs: number): Date | null {
  const status = effectiveStatus(key, now);
  if (status === 'active') return null;
  if (status === 'disabled') return new Date(key.statusChangedAt.getTime() + Math.max(retentionMs, VERIFICATION_GRACE_MS));
  const lastSigningMoment = key.expiresAt ?? key.statusChangedAt;
  return new Date(lastSigningMoment.getTime() + VERIFICATION_GRACE_MS);
}

/** Whether the JWKS carries the key at `now` (see publishedUntil). */
export function isPublished(key: SigningKey, now: Date, retentionMs: number): boolean {
  const until = publishedUntil(key, now, retentionMs);
  return until === null || now.getTime() < until.getTime();
}

/** What a key looks like from outside: no key material besides the public JWK. */
export function withEffectiveStatus(key: SigningKey, now: Date): SigningKey {
  const status = effectiveStatus(key, now);
  return status === key.status ? key : { ...key, status, primary: false };
}

export type SigningKeyErrorKind =
  | 'not-found' | 'facility-not-found' | 'in-use' | 'invalid' | 'conflict' | 'no-key' | 'key-not-usable'
  | 'no-ehr-connection' | 'forbidden' | 'master-key-missing' | 'master-key-unavailable';

/** What each kind of refusal is in the shared vocabulary, and the name clients switch on where the kind alone is not enough. */
const REFUSALS: Readonly<Record<SigningKeyErrorKind, { failure: FailureKind; reason?: FailureReason }>> = {
  'not-found': { failure: 'not-found' },
  'facility-not-found': { failure: 'not-found' },
  'in-use': { failure: 'conflict', reason: { code: 'signing-key-in-use', title: 'Signing key in use' } },
  invalid: { failure: 'invalid-input' },
  conflict: { failure: 'conflict' },
  'no-key': { failure: 'conflict', reason: { code: 'facility-without-signing-key', title: 'Facility has no signing key' } },
  'key-not-usable': { failure: 'conflict', reason: { code: 'signing-key-not-usable', title: 'Signing key not usable' } },
  'no-ehr-connection': { failure: 'conflict', reason: { code: 'facility-without-ehr-connection', title: 'Facility has no EHR connection' } },
  forbidden: { failure: 'forbidden', reason: { code: 'ehr-connection-not-configured', title: 'Not a configured EHR connection' } },
  'master-key-missing': { failure: 'unavailable', reason: { code: 'signing-keys-not-configured', title: 'Signing keys not configured' } },
  'master-key-unavailable': { failure: 'unavailable', reason: { code: 'master-key-unavailable', title: 'Master key unavailable' } },
};

/**
 * A refusal of the registry, in the shared vocabulary: HTTP maps it once (adapters/http/domain-problems.ts:
 * 404 / 409 / 400 / 403 / 503 under the reason's type, a key in use with its `facilities`), and so do
 * NATS queries (NOT_FOUND / CONFLICT / BAD_REQUEST / FORBIDDEN / UNAVAILABLE); its kind says which refusal.
 */
export class SigningKeyError extends DomainError {
  override readonly name = 'SigningKeyError';
  constructor(readonly kind: SigningKeyErrorKind, message: string, readonly facilities: readonly string[] = []) {
    const refusal = REFUSALS[kind];
    super(refusal.failure, message, { ...(refusal.reason ? { reason: refusal.reason } : {}), ...(kind === 'in-use' ? { facts: { facilities } } : {}) });
  }
}
