/**
 * # Signing keys, JWKS and client assertions (outbound authentication to EHRs)
 *
 * The tenant service keeps one global registry of JWT signing keys. A facility's configuration
 * references a key by kid (`facility.key_id`); several facilities may share a key or each have its
 * own, and changing the reference never changes a key. With its key the platform signs the SMART
 * Backend Services client assertion a facility presents at an EHR token endpoint; the EHR verifies
 * it against the platform's JWKS (`/.well-known/jwks.json`).
 *
 * ## Keys
 * - Algorithms: RS384 and ES384 (which SMART requires EHRs to support), RS256, ES256, PS384, EdDSA
 *   (Ed25519). RSA keys are 2048 bits. kid = a UUID chosen by the registry.
 * - Statuses: `active` → `disabled` (and back), either → `expired` when `expiresAt` passes (final).
 *   Reads compute the effective status from `expiresAt`; a job (`signing-keys.expiry-interval`) records it.
 * - One primary key at most (a partial unique index); only an active key can be primary. The flag
 *   marks the key operators should give newly configured facilities; signing always uses the
 *   facility's own reference.
 * - A key referenced by an active (not soft-deleted) facility cannot be disabled or deleted:
 *   409 Problem Details listing the facilities (member `facilities`).
 * - Private keys: encrypted at rest with AES-256-GCM under the current master key of a keyring
 *   (domain/master-keyring.ts: envelope with IV, tag and the master key's id, kid as associated data; the
 *   row's `master_key_id` repeats the id). No API returns them, nothing logs them. Without a master
 *   key the registry lists keys and serves the JWKS but refuses to create keys or sign assertions
 *   (503 / UNAVAILABLE naming the setting). At start-up every stored key must open with the
 *   configured master keys, or the service stops with exit code 78 naming the missing ids
 *   (adapters/master-key-check.ts); `cli/reencrypt-signing-keys.ts` moves every key to the current master key.
 *
 * ## Layout (the tenant service's rings, inside one module)
 * - `domain/`: the key model and its statuses, the JWKS document, the master keyring, the assertion
 *   target and signing, and `ports/` (storage: keys, facility references, audit, publication lock).
 * - `application/`: SigningKeyService (every use case), re-encryption, the expiry job.
 * - `adapters/`: HTTP routes, PostgreSQL store, NATS queries, settings, the JWKS file writer, the
 *   start-up master-key check. The service's composition root (../composition.ts) wires them;
 *   this file is the module's public face.
 *
 * ## Client assertions: for configured EHR connections only
 * `iss` = `sub` = client id and `aud` = token endpoint come from the facility's configuration
 * (`ehrConnections`); a caller (NATS SignClientAssertion, HTTP `$client-assertion`) only picks one of
 * them (domain/assertion-target.ts), so nobody can obtain an assertion for an audience of their choosing.
 *
 * ## JWKS: what is published, and for how long (domain/model.ts `publishedUntil`)
 * - Every `active` key (primary first); a `disabled` key (it signs nothing from the moment it is
 *   disabled) for `signing-keys.disabled-retention` (default 24 h, never less than
 *   VERIFICATION_GRACE_MS); an `expired` key until VERIFICATION_GRACE_MS after its `expiresAt`. The
 *   grace is an assertion's lifetime (240 s) plus 60 s of EHR clock skew: an assertion signed at the
 *   last moment still verifies. A deleted key leaves at once (rotation step 3 retires it; disable it
 *   first to keep it verifiable).
 * - Each entry has only `kty`, `kid`, `alg`, `use: "sig"` and the public members of its type
 *   (`n`,`e` / `crv`,`x`,`y` / `crv`,`x`): a whitelist, so `d`, `p`, `q`, `dp`, `dq`, `qi` can never leak.
 * - Regenerated after every key change, before an association commits, and at every expiry-job tick
 *   (which also ends the windows above); written atomically (temp file + rename) to
 *   `signing-keys.jwks-path`, the file the proxy exposes, and served from that file at
 *   `GET /.well-known/jwks.json`.
 * - `Cache-Control: public, max-age=300`: SMART lets EHRs cache the JWKS but not longer than the
 *   server says. Five minutes keeps EHR traffic low yet means a new key is visible to a caching EHR
 *   at most five minutes after it is created. Most EHRs (and jose's `createRemoteJWKSet`) also
 *   refetch at once on an unknown kid.
 *
 * ## Several instances: one writer at a time, always from the database
 * The specification keeps the JWKS on the file system (one shared volume in deploy/). Every instance
 * may write it, but only while holding a PostgreSQL advisory lock, and from the keys it reads after
 * taking the lock (SigningKeyStore.publishExclusively). So writes follow each other, each reflects
 * every commit before it, and a slow or stale instance can neither drop a new key nor bring back a
 * deleted one. (Serving the JWKS from the database on every request was the alternative; the file
 * keeps the specification's proxy arrangement and costs EHR traffic nothing.)
 *
 * ## Rotation (specification: create, associate, delete)
 * 1. `POST /api/signing-keys` — the new key is active and published at once.
 *    (For EHRs that neither refetch on an unknown kid nor honour max-age, wait 5 minutes here.)
 * 2. `PUT /api/facilities/{facilityId}/signing-key` for each facility — assertions are signed with
 *    the new key from the next request on; assertions already issued with the old key stay valid.
 * 3. `DELETE /api/signing-keys/{oldKid}` — refused (409) while any active facility still uses it.
 *    Use `PUT … {status: "disabled"}` first instead to keep it verifiable for the retention period.
 */
export {
  signingKeySettings, keyringFromConfig, MASTER_KEY_SETTING, MASTER_KEYS_SETTING, CURRENT_MASTER_KEY_SETTING, type MasterKeyConfig, type SigningKeyConfig,
} from './adapters/config.js';
export type { MasterKeyCoverage } from './adapters/master-key-check.js';
export { signingKeyEntities, signingKeyMigrations } from './adapters/persistence.js';
export type { FacilityKeyReferences } from './domain/ports/facility-key-references.js';
export { SIGNING_ALGORITHMS, KEY_STATUSES, SigningKeyError, type SigningKey, type SigningAlgorithm, type KeyStatus } from './domain/model.js';
export { SigningKeyService } from './application/signing-key-service.js';
export { JWKS_CACHE_CONTROL, JWKS_PATH } from './adapters/http.js';
export { ASSERTION_LIFETIME_SECONDS, VERIFICATION_GRACE_MS } from './domain/model.js';
export { KeyExpiryJob } from './application/expiry-job.js';
export { jwksRouter, registerSigningKeyOpenApi, signingKeyRouter } from './adapters/http.js';
export { writeJwksFile } from './adapters/jwks-file.js';
export { checkMasterKeyCoverage } from './adapters/master-key-check.js';
export { MikroSigningKeyStore } from './adapters/persistence.js';
export { serveSigningKeyQueries } from './adapters/queries.js';
export type { JwksDocument } from './domain/jwks.js';
export type { MasterKeyring } from './domain/master-keyring.js';
