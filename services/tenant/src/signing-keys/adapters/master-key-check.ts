import { ConfigError, envVarName } from '#adapters/config/index.js';
import { MASTER_KEYS_SETTING } from './config.js';
import { MasterKeyUnavailableError, type MasterKeyring } from '../domain/master-keyring.js';
import type { SigningKeyStore } from '../domain/ports/signing-key-store.js';

export interface MasterKeyCoverage {
  /** Stored keys, all of which decrypt. */
  readonly checked: number;
  /** Per master key id: how many stored keys it sealed. */
  readonly byMasterKey: Record<string, number>;
}

/**
 * Opens every stored private key with the configured master keys, at start-up, so that a missing or
 * wrong master key stops the service with exit code 78 and a message naming the master key ids it
 * lacks, instead of answering 500 (or 503) at the first client assertion. Opening a key costs
 * microseconds; a registry holds tens of keys.
 *
 * Throws ConfigError naming, per master key id, the signing keys it could not open: ids that are not
 * configured, and ids that are configured with another key than the one that sealed them.
 */
export async function checkMasterKeyCoverage(store: SigningKeyStore, masterKeys: MasterKeyring | undefined): Promise<MasterKeyCoverage> {
  const stored = await store.read((tx) => tx.keys.privateKeys());
  const byMasterKey: Record<string, number> = {};
  const missing = new Map<string, string[]>();
  const wrong = new Map<string, string[]>();
  for (const privateKey of stored) {
    byMasterKey[privateKey.masterKeyId] = (byMasterKey[privateKey.masterKeyId] ?? 0) + 1;
    const add = (map: Map<string, string[]>) => map.set(privateKey.masterKeyId, [...(map.get(privateKey.masterKeyId) ?? []), privateKey.kid]);
    if (!masterKeys || !masterKeys.has(privateKey.masterKeyId)) {
      add(missing);
      continue;
    }
    try {
      masterKeys.open(privateKey.envelope, privateKey.kid);
    } catch (error) {
      if (!(error instanceof MasterKeyUnavailableError)) throw error;
      add(wrong);
    }
  }
  if (missing.size === 0 && wrong.size === 0) return { checked: stored.length, byMasterKey };

  const list = (map: Map<string, string[]>) => [...map].map(([id, kids]) => `${JSON.stringify(id)} (${kids.length} key${kids.length === 1 ? '' : 's'}: ${kids.join(', ')})`).join('; ');
  const parts: string[] = [];
  if (missing.size > 0) parts.push(`missing master key${missing.size === 1 ? '' : 's'} ${[...missing.keys()].map((id) => JSON.stringify(id)).join(', ')}: ${list(missing)}`);
  if (wrong.size > 0) parts.push(`configured master key${wrong.size === 1 ? '' : 's'} ${[...wrong.keys()].map((id) => JSON.stringify(id)).join(', ')} do${wrong.size === 1 ? 'es' : ''} not decrypt what they are recorded for (another key under that id, or altered rows): ${list(wrong)}`);
  const configured = masterKeys ? `configured: ${masterKeys.ids.join(', ')}` : 'no master key is configured';
  throw new ConfigError([{
    property: MASTER_KEYS_SETTING,
    envVar: envVarName(MASTER_KEYS_SETTING),
    message: `cannot decrypt ${[...missing.values(), ...wrong.values()].flat().length} stored signing key(s) (${configured}) — ${parts.join('; ')}. Add the master keys they were encrypted with (docs/operations.md, master key rotation)`,
  }]);
}
