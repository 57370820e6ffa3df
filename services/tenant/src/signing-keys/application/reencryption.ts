import { MasterKeyUnavailableError, type MasterKeyring } from '../domain/master-keyring.js';
import type { SigningKeyStore } from '../domain/ports/signing-key-store.js';
import { SYSTEM_ACTOR } from './signing-key-service.js';

export interface ReencryptionReport {
  /** Stored keys when the run began. */
  readonly total: number;
  /** Keys sealed under the current master key by this run. */
  readonly reencrypted: number;
  /** Keys that were already under the current master key (by an earlier or concurrent run). */
  readonly alreadyCurrent: number;
  /** Keys deleted while the run went on. */
  readonly vanished: number;
  /** Keys this run could not open, with why; the run goes on with the others. */
  readonly failed: ReadonlyArray<{ kid: string; masterKeyId: string; reason: string }>;
}

export interface ReencryptionOptions {
  /** Count what would change, write nothing. */
  readonly dryRun?: boolean;
  readonly now?: () => Date;
  /** Called after each key, e.g. to print progress. */
  readonly onKey?: (kid: string, outcome: 'reencrypted' | 'already-current' | 'vanished' | 'failed' | 'would-reencrypt', detail?: string) => void;
}

/**
 * Seals every private key under the keyring's current master key.
 *
 * - Transactional per key: the row is locked, opened with the master key it records, sealed under the
 *   current one and written back with the new master key id in one transaction, together with its
 *   audit event. An interrupted run leaves every key either old or new, both readable.
 * - Idempotent and resumable: only keys recorded under another master key are selected, and a key is
 *   checked again under its lock, so a second run (or two at once) re-encrypts nothing twice.
 * - A key that cannot be opened is reported and skipped; the others go on.
 */
export async function reencryptPrivateKeys(store: SigningKeyStore, masterKeys: MasterKeyring, options: ReencryptionOptions = {}): Promise<ReencryptionReport> {
  const now = options.now ?? (() => new Date());
  const { total, candidates } = await store.read(async (tx) => ({
    total: (await tx.keys.privateKeys()).length,
    // Rows that name the current key by its fingerprint (sealed while it was the legacy single key)
    // are selected too, so that afterwards every row names it by its id.
    candidates: await tx.keys.kidsSealedOutside([masterKeys.currentId]),
  }));
  let reencrypted = 0;
  let alreadyCurrent = total - candidates.length;
  let vanished = 0;
  const failed: Array<{ kid: string; masterKeyId: string; reason: string }> = [];

  for (const kid of candidates) {
    try {
      const outcome = await store.write(async (tx) => {
        const stored = await tx.keys.privateKey(kid, true);
        if (!stored) return { kind: 'vanished' as const };
        if (stored.masterKeyId === masterKeys.currentId) return { kind: 'already-current' as const };
        const plaintext = masterKeys.open(stored.envelope, kid);
        if (options.dryRun) return { kind: 'would-reencrypt' as const, from: stored.masterKeyId };
        await tx.keys.replacePrivateKey(kid, masterKeys.seal(plaintext, kid));
        await tx.audit({
          action: 'Update', resource: 'SigningKey', actor: SYSTEM_ACTOR, at: now(),
          changes: [{ propertyName: 'masterKeyId', initialPropertyValue: stored.masterKeyId, newPropertyValue: masterKeys.currentId }],
          notes: `Re-encrypted the private key of signing key ${kid} under master key ${masterKeys.currentId}`,
        });
        return { kind: 'reencrypted' as const, from: stored.masterKeyId };
      });
      if (outcome.kind === 'reencrypted') reencrypted += 1;
      else if (outcome.kind === 'already-current') alreadyCurrent += 1;
      else if (outcome.kind === 'vanished') vanished += 1;
      options.onKey?.(kid, outcome.kind, 'from' in outcome ? `from ${outcome.from}` : undefined);
    } catch (error) {
      if (!(error instanceof MasterKeyUnavailableError)) throw error;
      failed.push({ kid, masterKeyId: error.masterKeyId, reason: error.message });
      options.onKey?.(kid, 'failed', error.message);
    }
  }
  return { total, reencrypted, alreadyCurrent, vanished, failed };
}
