import type { SigningKey } from '../model.js';
import type { SigningKeyRepository } from './signing-key-repository.js';
import type { FacilityKeyReferences } from './facility-key-references.js';

/**
 * The signing-key registry's storage: keys, the facilities' key references, the audit trail, the
 * one-publisher lock of the JWKS (adapters/persistence.ts on PostgreSQL).
 */
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
