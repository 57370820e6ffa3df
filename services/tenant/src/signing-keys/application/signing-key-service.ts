import { randomUUID } from 'node:crypto';
import { exportJWK, generateKeyPair, type JWK } from 'jose';
import type { Logger } from '../../domain/ports/logger.js';
import type { EhrConnection } from '../../domain/ehr-connection.js';
import { chooseEhrConnection, type AssertionTargetRequest } from '../domain/assertion-target.js';
import { signClientAssertion, type SignedClientAssertion } from '../domain/client-assertion.js';
import { MASTER_KEYS_SETTING } from './setting-names.js';
import { buildJwks, publicJwkOf, type JwksDocument } from '../domain/jwks.js';
import { MasterKeyUnavailableError, type MasterKeyring } from '../domain/master-keyring.js';
import {
  effectiveStatus, SigningKeyError, SIGNING_ALGORITHMS, withEffectiveStatus, type KeyStatus, type SigningAlgorithm, type SigningKey,
} from '../domain/model.js';
import type { KeyAuditEvent, SigningKeyStore, SigningKeyTransaction } from '../domain/ports/signing-key-store.js';
import type { KeySearch, KeySortField } from '../domain/ports/signing-key-repository.js';

export interface Actor {
  readonly userId: string | null;
  readonly user: string;
}

export const SYSTEM_ACTOR: Actor = { userId: null, user: 'SystemUser' };

export interface SigningKeyServiceOptions {
  readonly store: SigningKeyStore;
  /** Undefined when no master key is configured: keys can be listed but not created or used. */
  readonly masterKeys: MasterKeyring | undefined;
  readonly disabledRetentionMs: number;
  /** Writes the JWKS document where it is served from (file, atomically); called one publisher at a time. */
  readonly writeJwks: (document: JwksDocument) => Promise<void>;
  readonly logger: Logger;
  readonly now?: () => Date;
  readonly newKid?: () => string;
}

export interface CreateKeyInput {
  readonly algorithm: SigningAlgorithm;
  readonly primary?: boolean;
  readonly expiresAt?: Date | null;
}

export interface UpdateKeyInput {
  readonly status: KeyStatus;
  readonly primary: boolean;
  readonly expiresAt: Date | null;
}

export interface FacilityKey {
  readonly facilityId: string;
  readonly kid: string | null;
}

/** A signed assertion with the configured connection it was signed for (where the caller POSTs it). */
export interface FacilityClientAssertion extends SignedClientAssertion {
  readonly connection: EhrConnection;
}

const MASTER_KEYS_ENV = 'SIGNING_KEYS_MASTER_KEYS';

/**
 * The key registry's use cases: key lifecycle, the facility ↔ key association, the JWKS and client
 * assertions. Every change that alters what is published rewrites the JWKS after its commit; the
 * association rewrites it before its own commit, so a facility never points at a key the JWKS lacks.
 * Rewrites run one at a time across all instances (SigningKeyStore.publishExclusively), each from
 * the database as it is when its turn comes.
 */
export class SigningKeyService {
  private readonly now: () => Date;
  private readonly newKid: () => string;

  constructor(private readonly options: SigningKeyServiceOptions) {
    this.now = options.now ?? (() => new Date());
    this.newKid = options.newKid ?? randomUUID;
  }

  async create(input: CreateKeyInput, actor: Actor = SYSTEM_ACTOR): Promise<SigningKey> {
    const masterKeys = this.requireMasterKeys('Signing keys cannot be created');
    if (!SIGNING_ALGORITHMS.includes(input.algorithm)) {
      throw new SigningKeyError('invalid', `algorithm must be one of ${SIGNING_ALGORITHMS.join(', ')}`);
    }
    const now = this.now();
    if (input.expiresAt && input.expiresAt.getTime() <= now.getTime()) throw new SigningKeyError('invalid', 'expiresAt must be in the future');
    const kid = this.newKid();
    const pair = await generateKeyPair(input.algorithm, { extractable: true });
    const publicJwk = publicJwkOf(await exportJWK(pair.publicKey), kid, input.algorithm);
    const sealed = masterKeys.seal(JSON.stringify(await exportJWK(pair.privateKey)), kid);
    const key: SigningKey = {
      kid, algorithm: input.algorithm, createdAt: now, status: 'active', statusChangedAt: now,
      primary: input.primary ?? false, expiresAt: input.expiresAt ?? null, publicJwk,
    };
    await this.options.store.write(async (tx) => {
      if (key.primary) await tx.keys.clearPrimary(kid);
      await tx.keys.insert(key, sealed);
      await tx.audit(this.auditOf('Create', 'SigningKey', actor, now, [
        change('kid', null, kid), change('algorithm', null, key.algorithm), change('primary', null, String(key.primary)),
        change('expiresAt', null, key.expiresAt?.toISOString() ?? null),
      ], `Created signing key ${kid} (${key.algorithm})`));
    });
    await this.republishAfterCommit();
    return key;
  }

  async list(search: Omit<KeySearch, 'now'>, sort: { field: KeySortField; order: 'asc' | 'desc' }, page: { limit: number; offset: number }) {
    const now = this.now();
    const result = await this.options.store.read((tx) => tx.keys.search({ ...search, now }, sort, page));
    return { records: result.records.map((key) => withEffectiveStatus(key, now)), totalCount: result.totalCount };
  }

  async get(kid: string): Promise<SigningKey> {
    const key = await this.options.store.read((tx) => tx.keys.find(kid));
    if (!key) throw notFound(kid);
    return withEffectiveStatus(key, this.now());
  }

  /**
   * Changes status, primary flag and expiry together (a PUT of the key's mutable fields).
   * Disabling a key that an active facility uses is refused with the facilities; an expired key
   * is final; a disabled key cannot be primary.
   */
  async update(kid: string, input: UpdateKeyInput, actor: Actor = SYSTEM_ACTOR): Promise<SigningKey> {
    const now = this.now();
    const updated = await this.options.store.write(async (tx) => {
      const stored = await tx.keys.find(kid, true);
      if (!stored) throw notFound(kid);
      const current = withEffectiveStatus(stored, now);
      if (current.status === 'expired') {
        throw new SigningKeyError('conflict', `Signing key ${kid} has expired; an expired key cannot change. Create a new key.`);
      }
      if (input.status === 'expired') {
        throw new SigningKeyError('invalid', 'status expired is reached through expiresAt, not set directly; use disabled to stop using a key');
      }
      if (input.primary && input.status !== 'active') throw new SigningKeyError('invalid', 'Only an active key can be primary');
      if (input.expiresAt && !sameTime(input.expiresAt, current.expiresAt) && input.expiresAt.getTime() <= now.getTime()) {
        throw new SigningKeyError('invalid', 'expiresAt must be in the future');
      }
      if (input.status === 'disabled' && current.status !== 'disabled') await this.assertUnused(tx, kid, 'disabled');
      const next: SigningKey = {
        ...current,
        status: input.status,
        statusChangedAt: input.status === current.status ? current.statusChangedAt : now,
        primary: input.primary,
        expiresAt: input.expiresAt,
      };
      if (next.primary && !current.primary) await tx.keys.clearPrimary(kid);
      await tx.keys.update(kid, next);
      const changes = [
        change('status', current.status, next.status), change('primary', String(current.primary), String(next.primary)),
        change('expiresAt', current.expiresAt?.toISOString() ?? null, next.expiresAt?.toISOString() ?? null),
      ].filter((item) => item.initialPropertyValue !== item.newPropertyValue);
      if (changes.length > 0) await tx.audit(this.auditOf('Update', 'SigningKey', actor, now, changes, `Updated signing key ${kid}`));
      return next;
    });
    await this.republishAfterCommit();
    return updated;
  }

  /** Removes the key for good (it leaves the JWKS at once); refused while an active facility uses it. */
  async remove(kid: string, actor: Actor = SYSTEM_ACTOR): Promise<void> {
    const now = this.now();
    await this.options.store.write(async (tx) => {
      const key = await tx.keys.find(kid, true);
      if (!key) throw notFound(kid);
      await this.assertUnused(tx, kid, 'deleted');
      await tx.keys.remove(kid);
      await tx.audit(this.auditOf('Delete', 'SigningKey', actor, now, [change('kid', kid, null)], `Deleted signing key ${kid} (${key.algorithm})`));
    });
    await this.republishAfterCommit();
  }

  async keyOfFacility(facilityId: string): Promise<FacilityKey> {
    const reference = await this.options.store.read((tx) => tx.facilities.keyOfFacility(facilityId));
    if (!reference) throw facilityNotFound(facilityId);
    return { facilityId, kid: reference.kid };
  }

  /**
   * Points a facility at a key (rotation step 2) or removes its reference (`kid` null). The key must
   * be active; its row stays locked until the commit so a concurrent disable or delete waits and then
   * sees the new reference. The JWKS is rewritten before the commit (its publisher reads the key as
   * committed; the lock keeps it there): the key is published before the facility can use it.
   */
  async assign(facilityId: string, kid: string | null, actor: Actor = SYSTEM_ACTOR): Promise<FacilityKey> {
    const now = this.now();
    return this.options.store.write(async (tx) => {
      const before = await tx.facilities.keyOfFacility(facilityId);
      if (!before) throw facilityNotFound(facilityId);
      if (kid !== null) {
        const key = await tx.keys.find(kid, true);
        if (!key) throw new SigningKeyError('invalid', `kid: there is no signing key ${JSON.stringify(kid)}`);
        const status = effectiveStatus(key, now);
        if (status !== 'active') throw new SigningKeyError('key-not-usable', `Signing key ${kid} is ${status}; only an active key can be assigned`);
        // In this transaction, on its connection: publishing on another one while holding this
        // connection could exhaust the pool under concurrent assignments.
        await tx.lockJwksPublication();
        await this.writeJwksOf(await tx.keys.all());
      }
      if (before.kid === kid) return { facilityId, kid };
      await tx.facilities.assign(facilityId, kid, now);
      await tx.audit(this.auditOf('Update', 'FacilitySigningKey', actor, now, [change('keyId', before.kid, kid)],
        kid === null ? `Removed the signing key of facility ${facilityId}` : `Facility ${facilityId} now signs with key ${kid}`, facilityId));
      return { facilityId, kid };
    });
  }

  /**
   * Signs the SMART Backend Services client assertion of a facility with the facility's key, for one
   * of the EHR connections its configuration holds: client id and audience come from there, the
   * request only picks among them (assertion-target.ts).
   */
  async clientAssertion(facilityId: string, request: AssertionTargetRequest = {}): Promise<FacilityClientAssertion> {
    const now = this.now();
    const { kid, connection, key, privateKey } = await this.options.store.read(async (tx) => {
      const profile = await tx.facilities.signingProfileOf(facilityId);
      if (!profile) throw facilityNotFound(facilityId);
      const chosen = chooseEhrConnection(facilityId, profile.ehrConnections, request);
      if (profile.kid === null) {
        throw new SigningKeyError('no-key', `Facility ${facilityId} has no signing key; assign one with PUT /api/facilities/${encodeURIComponent(facilityId)}/signing-key`);
      }
      return { kid: profile.kid, connection: chosen, key: await tx.keys.find(profile.kid), privateKey: await tx.keys.privateKey(profile.kid) };
    });
    if (!key || !privateKey) {
      throw new SigningKeyError('key-not-usable', `Facility ${facilityId} references signing key ${kid}, which does not exist; assign an active key`);
    }
    const status = effectiveStatus(key, now);
    if (status !== 'active') {
      throw new SigningKeyError('key-not-usable', `The signing key ${kid} of facility ${facilityId} is ${status}; assign an active key`);
    }
    const masterKeys = this.requireMasterKeys('Client assertions cannot be signed');
    let privateJwk: JWK;
    try {
      privateJwk = JSON.parse(masterKeys.open(privateKey.envelope, kid)) as JWK;
    } catch (error) {
      if (error instanceof MasterKeyUnavailableError) throw new SigningKeyError('master-key-unavailable', error.message);
      throw error;
    }
    const signed = await signClientAssertion(privateJwk, kid, key.algorithm, { clientId: connection.clientId, tokenUrl: connection.tokenUrl }, now);
    return { ...signed, connection };
  }

  /** Records `expired` for keys past their expiry and rewrites the JWKS (which also drops disabled keys past retention). */
  async expireDue(): Promise<string[]> {
    const now = this.now();
    const expired = await this.options.store.write(async (tx) => {
      const kids = await tx.keys.expireDue(now);
      for (const kid of kids) {
        await tx.audit(this.auditOf('Update', 'SigningKey', SYSTEM_ACTOR, now, [change('status', null, 'expired')], `Signing key ${kid} expired`));
      }
      return kids;
    });
    if (expired.length > 0) this.options.logger.info({ kids: expired }, 'signing keys expired');
    await this.regenerateJwks();
    return expired;
  }

  /**
   * Rebuilds the JWKS from the registry and writes it, as the only publisher of the deployment at
   * that moment, from the keys as committed when its turn came (and the clock read then).
   */
  regenerateJwks(): Promise<JwksDocument> {
    return this.options.store.publishExclusively((keys) => this.writeJwksOf(keys));
  }

  /** Only with the publication lock held (the clock is read now, after it was taken). */
  private async writeJwksOf(keys: readonly SigningKey[]): Promise<JwksDocument> {
    const document = buildJwks(keys, this.now(), this.options.disabledRetentionMs);
    await this.options.writeJwks(document);
    return document;
  }

  /**
   * After a committed change: a failed write is logged, not thrown (the change stands); the
   * periodic job rewrites the file, and an assignment publishes before it commits anyway.
   */
  private async republishAfterCommit(): Promise<void> {
    try {
      await this.regenerateJwks();
    } catch (error) {
      this.options.logger.error({ err: error }, 'could not write the JWKS after a key change; the expiry job will retry');
    }
  }

  private async assertUnused(tx: SigningKeyTransaction, kid: string, verb: 'disabled' | 'deleted'): Promise<void> {
    const facilities = await tx.facilities.facilitiesUsingKey(kid);
    if (facilities.length > 0) {
      throw new SigningKeyError('in-use',
        `Signing key ${kid} cannot be ${verb}: ${facilities.length} active facilit${facilities.length === 1 ? 'y uses' : 'ies use'} it (${facilities.join(', ')}). Associate them with another key first.`,
        facilities);
    }
  }

  private requireMasterKeys(what: string): MasterKeyring {
    if (!this.options.masterKeys) {
      throw new SigningKeyError('master-key-missing',
        `${what}: no master key is configured. Set ${MASTER_KEYS_SETTING} (environment variable ${MASTER_KEYS_ENV}) to id:base64key, the key being base64 of 32 random bytes (e.g. \`2026-01:$(openssl rand -base64 32)\`): the AES-256-GCM key that encrypts private keys at rest.`);
    }
    return this.options.masterKeys;
  }

  private auditOf(action: KeyAuditEvent['action'], resource: KeyAuditEvent['resource'], actor: Actor, at: Date,
    changes: KeyAuditEvent['changes'], notes: string, facilityId?: string): KeyAuditEvent {
    return { action, resource, actor, at, changes, notes, ...(facilityId ? { facilityId } : {}) };
  }
}

function change(propertyName: string, initialPropertyValue: string | null, newPropertyValue: string | null) {
  return { propertyName, initialPropertyValue, newPropertyValue };
}

function sameTime(a: Date | null, b: Date | null): boolean {
  return (a?.getTime() ?? null) === (b?.getTime() ?? null);
}

function notFound(kid: string): SigningKeyError {
  return new SigningKeyError('not-found', `No signing key ${JSON.stringify(kid)}`);
}

function facilityNotFound(facilityId: string): SigningKeyError {
  return new SigningKeyError('facility-not-found', `No active facility ${JSON.stringify(facilityId)}`);
}
