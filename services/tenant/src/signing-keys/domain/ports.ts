/**
 * The ports of the signing-key registry: what the application needs from storage (keys, the
 * facilities' key references, the audit trail, the one-publisher lock of the JWKS), implemented
 * by adapters/persistence.ts on PostgreSQL.
 */
import type { EhrConnection } from '../../domain/ehr-connection.js';
import type { Sealed } from './master-keyring.js';
import type { KeyStatus, SigningAlgorithm, SigningKey } from './model.js';

export const KEY_SORT_FIELDS = ['Kid', 'Algorithm', 'Status', 'CreatedAt', 'ExpiresAt'] as const;
export type KeySortField = (typeof KEY_SORT_FIELDS)[number];

export interface KeySearch {
  /** The moment against which expiry is judged. */
  readonly now: Date;
  readonly status?: KeyStatus;
  readonly algorithm?: SigningAlgorithm;
  readonly primary?: boolean;
}

export interface KeyChanges {
  readonly status: KeyStatus;
  readonly statusChangedAt: Date;
  readonly primary: boolean;
  readonly expiresAt: Date | null;
}

/** A sealed private key as stored. */
export interface StoredPrivateKey {
  readonly kid: string;
  readonly envelope: string;
  readonly masterKeyId: string;
}

export interface SigningKeyRepository {
  insert(key: SigningKey, privateKey: Sealed): Promise<void>;
  /** With `lock`, holds the row (FOR UPDATE) until the transaction ends: serialises status changes with assignments. */
  find(kid: string, lock?: boolean): Promise<SigningKey | null>;
  /** With `lock`, holds the row until the transaction ends (re-encryption). */
  privateKey(kid: string, lock?: boolean): Promise<StoredPrivateKey | null>;
  /** Every stored private key (the start-up check opens each). */
  privateKeys(): Promise<StoredPrivateKey[]>;
  /** Kids whose private key is sealed under none of `masterKeyIds`, oldest first. */
  kidsSealedOutside(masterKeyIds: readonly string[]): Promise<string[]>;
  replacePrivateKey(kid: string, privateKey: Sealed): Promise<void>;
  search(criteria: KeySearch, sort: { field: KeySortField; order: 'asc' | 'desc' }, page: { limit: number; offset: number }): Promise<{ records: SigningKey[]; totalCount: number }>;
  all(): Promise<SigningKey[]>;
  update(kid: string, changes: KeyChanges): Promise<void>;
  /** Takes the primary flag from whichever key holds it (other than `kid`). */
  clearPrimary(exceptKid: string): Promise<void>;
  remove(kid: string): Promise<void>;
  /** Records `expired` for every key past its expiry; returns their kids. */
  expireDue(now: Date): Promise<string[]>;
}

/**
 * The association port. The facility configuration holds the kid (column `facility.key_id`, owned
 * by the facility module); the registry only reads it and changes nothing but that column.
 * Facility ids are the business `facilityId` used in URLs and messages.
 */
export interface FacilityKeyReferences {
  /** Active (not soft-deleted) facilities whose configuration references `kid`, sorted. */
  facilitiesUsingKey(kid: string): Promise<string[]>;
  /** The kid of an active facility (null when it has none); undefined when there is no active facility. */
  keyOfFacility(facilityId: string): Promise<{ kid: string | null } | undefined>;
  /** What signing an assertion for an active facility needs from its configuration: its kid and its EHR connections. */
  signingProfileOf(facilityId: string): Promise<{ kid: string | null; ehrConnections: EhrConnection[] } | undefined>;
  /** Points the facility at `kid` (null removes the reference); false when there is no active facility. */
  assign(facilityId: string, kid: string | null, at: Date): Promise<boolean>;
}

export interface KeyAuditEvent {
  readonly action: 'Create' | 'Update' | 'Delete';
  readonly resource: 'SigningKey' | 'FacilitySigningKey';
  /** A facility for association changes; otherwise the registry is global and the event says `*`. */
  readonly facilityId?: string;
  readonly actor: { userId: string | null; user: string };
  readonly at: Date;
  readonly changes: ReadonlyArray<{ propertyName: string; initialPropertyValue: string | null; newPropertyValue: string | null }>;
  readonly notes: string;
}

export interface SigningKeyTransaction {
  readonly keys: SigningKeyRepository;
  readonly facilities: FacilityKeyReferences;
  audit(event: KeyAuditEvent): Promise<void>;
  /**
   * Makes this transaction the only JWKS publisher of the deployment until it ends (a
   * transaction-scoped advisory lock; waits while another holds it). Keys read after it include
   * everything committed before the previous publisher let go.
   */
  lockJwksPublication(): Promise<void>;
}

export interface SigningKeyStore {
  read<T>(work: (tx: SigningKeyTransaction) => Promise<T>): Promise<T>;
  write<T>(work: (tx: SigningKeyTransaction) => Promise<T>): Promise<T>;
  /**
   * Runs `publish` with every key as committed, as the only publisher of the whole deployment at that
   * moment (lockJwksPublication, then the keys are read; the lock is held until `publish` has
   * finished). So publications happen one at a time, each from a read made after the previous one
   * ended: the last file written always reflects the newest committed state, and a replica that read
   * earlier can never write after one that read later.
   */
  publishExclusively<T>(publish: (keys: SigningKey[]) => Promise<T>): Promise<T>;
}
