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
 *   start-up master-key check. This file wires them (the module's composition root).
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
import type { MigrationObject, MikroORM } from '@mikro-orm/postgresql';
import type { NatsConnection } from '@nats-io/transport-node';
import type { Router } from 'express';
import type { OpenApiBuilder } from '#adapters/http/index.js';
import type { QueryServer } from '#adapters/messaging/request-reply.js';
import type { Logger } from '#adapters/observability/logger.js';
import type { Catalog } from '#contracts/catalog.js';
import { keyringFromConfig, type MasterKeyConfig, type SigningKeyConfig } from './adapters/config.js';
import { KeyExpiryJob } from './application/expiry-job.js';
import { jwksRouter, registerSigningKeyOpenApi, signingKeyRouter } from './adapters/http.js';
import { writeJwksFile } from './adapters/jwks-file.js';
import type { JwksDocument } from './domain/jwks.js';
import { checkMasterKeyCoverage, type MasterKeyCoverage } from './adapters/master-key-check.js';
import type { MasterKeyring } from './domain/master-keyring.js';
import { MikroSigningKeyStore, signingKeyEntities, signingKeyMigrations } from './adapters/persistence.js';
import { serveSigningKeyQueries } from './adapters/queries.js';
import { SigningKeyService } from './application/signing-key-service.js';

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

export interface SigningKeyModuleDeps {
  /** The tenant database, opened with `signingKeyEntities` and `signingKeyMigrations` among the service's. */
  readonly orm: MikroORM;
  readonly config: Pick<SigningKeyConfig, 'signingKeysJwksPath' | 'signingKeysDisabledRetentionMs' | 'signingKeysExpiryIntervalMs'> & MasterKeyConfig;
  readonly logger: Logger;
  /** For SignClientAssertion; without it `start()` serves no query. */
  readonly nats?: NatsConnection;
  /** For the query subject and audit events; default: the production catalog for queries, and audit events off when omitted. */
  readonly catalog?: Catalog;
  /** Called after each committed change, e.g. `() => runtime.outbox.notify()` so audit events leave at once. */
  readonly afterCommit?: () => void;
  readonly now?: () => Date;
  /** Where a JWKS document goes; default: written atomically to `signing-keys.jwks-path`. */
  readonly writeJwks?: (document: JwksDocument) => Promise<void>;
}

export interface SigningKeyModule {
  readonly service: SigningKeyService;
  /** The configured master keys; undefined when none is. */
  readonly masterKeys: MasterKeyring | undefined;
  /** Operator routes with paths starting `/api/` (mount on the guarded app). */
  readonly router: Router;
  /** `GET /.well-known/jwks.json` (mount on the public app, outside the `/api` guard). */
  readonly jwksRouter: Router;
  registerOpenApi(openApi: OpenApiBuilder): void;
  readonly entities: typeof signingKeyEntities;
  readonly migrations: MigrationObject[];
  /** SignClientAssertion over NATS request-reply. */
  serveQueries(): QueryServer[];
  /**
   * Opens every stored private key with the configured master keys; throws ConfigError naming the
   * master key ids that are missing or wrong (main.ts turns it into exit code 78 before listening).
   */
  checkMasterKeys(): Promise<MasterKeyCoverage>;
  /** Writes the JWKS once, starts the expiry job and (with NATS) the query handler. */
  start(): void;
  stop(): Promise<void>;
}

/**
 * The registry as one unit for main.ts. Throws ConfigError when the master-key settings do not
 * describe a usable keyring (a file that cannot be read, no current key among several).
 *
 * ```ts
 * const keys = createSigningKeyModule({ orm: runtime.db.orm, config, logger: runtime.logger, nats: runtime.nats.nc, catalog, afterCommit: () => runtime.outbox.notify() });
 * await exitOnConfigError(() => keys.checkMasterKeys());
 * keys.registerOpenApi(runtime.openApi);
 * runtime.api.use(keys.router);        // /api/signing-keys..., /api/facilities/{id}/signing-key, /$client-assertion
 * runtime.http.app.use(keys.jwksRouter); // /.well-known/jwks.json, public
 * keys.start();
 * runtime.onShutdown(() => keys.stop());
 * ```
 */
export function createSigningKeyModule(deps: SigningKeyModuleDeps): SigningKeyModule {
  const logger = deps.logger.child({ component: 'signing-keys' });
  const masterKeys = keyringFromConfig(deps.config);
  const store = new MikroSigningKeyStore({ orm: deps.orm, ...(deps.catalog ? { catalog: deps.catalog } : {}), ...(deps.afterCommit ? { afterCommit: deps.afterCommit } : {}) });
  const service = new SigningKeyService({
    store,
    masterKeys,
    disabledRetentionMs: deps.config.signingKeysDisabledRetentionMs,
    writeJwks: deps.writeJwks ?? ((document) => writeJwksFile(deps.config.signingKeysJwksPath, document)),
    logger,
    ...(deps.now ? { now: deps.now } : {}),
  });
  const job = new KeyExpiryJob(service, deps.config.signingKeysExpiryIntervalMs, logger);
  let queryServers: QueryServer[] = [];

  const module: SigningKeyModule = {
    service,
    masterKeys,
    router: signingKeyRouter(service),
    jwksRouter: jwksRouter(deps.config.signingKeysJwksPath, () => service.regenerateJwks()),
    registerOpenApi: registerSigningKeyOpenApi,
    entities: signingKeyEntities,
    migrations: signingKeyMigrations,
    async checkMasterKeys() {
      const coverage = await checkMasterKeyCoverage(store, masterKeys);
      if (coverage.checked > 0) logger.info({ ...coverage, current: masterKeys?.currentId }, 'every stored private key decrypts with the configured master keys');
      return coverage;
    },
    serveQueries() {
      if (!deps.nats) throw new Error('createSigningKeyModule: no NATS connection given, so no queries can be served');
      return serveSigningKeyQueries(deps.nats, service, { logger, ...(deps.catalog ? { catalog: deps.catalog } : {}) });
    },
    start() {
      if (!masterKeys) {
        logger.warn('no master key is configured (signing-keys.master-keys): signing keys cannot be created and client assertions cannot be signed');
      }
      job.start();
      if (deps.nats && queryServers.length === 0) queryServers = module.serveQueries();
    },
    async stop() {
      await Promise.all([job.stop(), ...queryServers.map((server) => server.stop())]);
      queryServers = [];
    },
  };
  return module;
}
