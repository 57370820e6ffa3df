import type { Sealed } from '../master-keyring.js';
import type { KeyStatus, SigningAlgorithm, SigningKey } from '../model.js';

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
