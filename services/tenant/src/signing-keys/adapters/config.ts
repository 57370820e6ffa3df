import { readFileSync } from 'node:fs';
import {
  ConfigError, defineSetting, durationSetting, envVarName, SettingParseError, stringSetting, type ConfigOf, type ConfigProblem,
} from '#adapters/config/index.js';
import { MasterKeyring, masterKeyFingerprint, masterKeyIdProblem, masterKeyMaterialProblem, type MasterKeySpec } from '../domain/master-keyring.js';

import { CURRENT_MASTER_KEY_SETTING, MASTER_KEY_SETTING, MASTER_KEYS_FILE_SETTING, MASTER_KEYS_SETTING } from '../application/setting-names.js';

export { CURRENT_MASTER_KEY_SETTING, MASTER_KEY_SETTING, MASTER_KEYS_FILE_SETTING, MASTER_KEYS_SETTING };

/**
 * Settings of the signing-key registry (spread into the tenant service's schema by service-schema.ts).
 *
 * Master keys (AES-256-GCM key-encryption keys of the private signing keys), each with an id:
 * - `signing-keys.master-keys` (secret): `id:base64[,id:base64...]`, e.g. `2026-01:$(openssl rand -base64 32)`;
 * - `signing-keys.master-keys-file`: the same items one per line (`#` comments), for a mounted Secret file;
 * - `signing-keys.master-key` (secret, legacy): one key without id; its id is its fingerprint (the
 *   first 16 hex digits of its SHA-256), which is what rows encrypted before the keyring carry;
 * - `signing-keys.current-master-key`: the id new and re-encrypted keys are sealed under; may be left
 *   unset when exactly one key is configured.
 * Without any master key the registry still lists keys and serves the JWKS, but refuses to create
 * keys or sign assertions and says why; with stored keys it refuses to start (master-key-check.ts).
 *
 * - `signing-keys.jwks-path`: where the JWKS document is written (atomically, one writer at a time)
 *   for the proxy that exposes it; default `.cache/jwks/jwks.json`.
 * - `signing-keys.disabled-retention`: how long a disabled key stays in the JWKS; default 24 h (never
 *   less than an assertion's lifetime plus clock skew, see model.ts).
 * - `signing-keys.expiry-interval`: how often the expiry job marks keys past `expiresAt` as expired
 *   and rewrites the JWKS (reads compute the effective status anyway); default 60 s.
 */
export const signingKeySettings = () => ({
  signingKeysMasterKey: defineSetting(MASTER_KEY_SETTING,
    'Legacy single AES-256-GCM master key (base64 of exactly 32 bytes) encrypting the private signing keys at rest; its id is its fingerprint. Prefer signing-keys.master-keys, which can hold several keys for a rotation',
    'base64 of 32 bytes', parseMasterKey, () => '***').optional().secret(),
  signingKeysMasterKeys: defineSetting(MASTER_KEYS_SETTING,
    'Master keys encrypting the private signing keys at rest (AES-256-GCM), each with an id: id:base64key items separated by ",", e.g. 2026-01:<openssl rand -base64 32>. A stored key is decrypted with the key whose id it records',
    'list of id:base64 (id: letters, digits, -, _, .; key: 32 bytes) separated by ","', parseMasterKeyList, () => '***').optional().secret(),
  signingKeysMasterKeysFile: stringSetting(MASTER_KEYS_FILE_SETTING,
    'File with more master keys, one id:base64key per line (# starts a comment), e.g. a mounted Secret; read at start-up').optional(),
  signingKeysCurrentMasterKey: defineSetting(CURRENT_MASTER_KEY_SETTING,
    'Id of the master key new and re-encrypted private keys are sealed under (default: the only configured one)',
    'master key id', parseMasterKeyId).optional(),
  signingKeysJwksPath: stringSetting('signing-keys.jwks-path', 'File the JWKS document is written to (temp file + rename, one instance at a time, always from the current database state)').default('.cache/jwks/jwks.json'),
  signingKeysDisabledRetentionMs: durationSetting('signing-keys.disabled-retention',
    'How long a disabled key stays published in the JWKS (bare number = milliseconds; e.g. 24h); never less than an assertion\'s lifetime plus clock skew (5 minutes)', 'ms', { min: 0 }).default(24 * 3_600_000),
  signingKeysExpiryIntervalMs: durationSetting('signing-keys.expiry-interval',
    'How often keys past their expiry are marked expired and the JWKS rewritten (bare number = milliseconds)', 'ms', { min: 1000 }).default(60_000),
});

export type SigningKeyConfig = ConfigOf<ReturnType<typeof signingKeySettings>>;
/** The settings a keyring is built from (tests and the re-encryption command pass only these). */
export type MasterKeyConfig = Partial<Pick<SigningKeyConfig,
  'signingKeysMasterKey' | 'signingKeysMasterKeys' | 'signingKeysMasterKeysFile' | 'signingKeysCurrentMasterKey'>>;

function parseMasterKey(raw: string): string {
  const problem = masterKeyMaterialProblem(raw);
  if (problem) throw new SettingParseError(problem);
  return raw;
}

function parseMasterKeyId(raw: string): string {
  const problem = masterKeyIdProblem(raw);
  if (problem) throw new SettingParseError(problem);
  return raw;
}

/** `id:base64` items; the problems never quote the key material. */
function parseMasterKeyItems(items: readonly string[], where: (index: number) => string): MasterKeySpec[] {
  const seen = new Set<string>();
  return items.map((item, index) => {
    const colon = item.indexOf(':');
    if (colon <= 0) throw new SettingParseError(`${where(index)} must be id:base64key`);
    const id = item.slice(0, colon).trim();
    const base64 = item.slice(colon + 1).trim();
    const problem = masterKeyIdProblem(id) ?? masterKeyMaterialProblem(base64);
    if (problem) throw new SettingParseError(`${where(index)}: ${problem.startsWith('must') ? `the key of ${JSON.stringify(id)} ${problem}` : problem}`);
    if (seen.has(id)) throw new SettingParseError(`${where(index)}: the id ${JSON.stringify(id)} is used twice`);
    seen.add(id);
    return { id, base64 };
  });
}

function parseMasterKeyList(raw: string): MasterKeySpec[] {
  const items = raw.split(',').map((item) => item.trim()).filter((item) => item !== '');
  if (items.length === 0) throw new SettingParseError('must contain at least one id:base64key item');
  return parseMasterKeyItems(items, (index) => `item ${index + 1}`);
}

/** The lines of a master-keys file that hold an item (blank lines and `#` comments skipped). */
export function parseMasterKeysFile(text: string, path: string): MasterKeySpec[] {
  const lines = text.split(/\r?\n/).map((line, index) => ({ line: line.trim(), number: index + 1 })).filter(({ line }) => line !== '' && !line.startsWith('#'));
  return parseMasterKeyItems(lines.map(({ line }) => line), (index) => `${path} line ${String(lines[index]?.number)}`);
}

function problem(property: string, message: string): ConfigProblem {
  return { property, envVar: envVarName(property), message };
}

/**
 * The keyring the settings describe, or undefined when no master key is configured. Throws
 * ConfigError (exit 78 at start-up) for an unreadable or malformed file, an id configured twice, or
 * a missing or unknown current key.
 */
export function keyringFromConfig(config: MasterKeyConfig, readFile: (path: string) => string = (path) => readFileSync(path, 'utf8')): MasterKeyring | undefined {
  const specs: Array<MasterKeySpec & { from: string }> = [];
  if (config.signingKeysMasterKey) {
    specs.push({ id: masterKeyFingerprint(Buffer.from(config.signingKeysMasterKey, 'base64')), base64: config.signingKeysMasterKey, from: MASTER_KEY_SETTING });
  }
  for (const spec of config.signingKeysMasterKeys ?? []) specs.push({ ...spec, from: MASTER_KEYS_SETTING });
  if (config.signingKeysMasterKeysFile) {
    const path = config.signingKeysMasterKeysFile;
    let text: string;
    try {
      text = readFile(path);
    } catch (error) {
      throw new ConfigError([problem(MASTER_KEYS_FILE_SETTING, `cannot be read: ${error instanceof Error ? error.message : String(error)}`)]);
    }
    try {
      for (const spec of parseMasterKeysFile(text, path)) specs.push({ ...spec, from: MASTER_KEYS_FILE_SETTING });
    } catch (error) {
      if (error instanceof SettingParseError) throw new ConfigError([problem(MASTER_KEYS_FILE_SETTING, error.message)]);
      throw error;
    }
  }
  if (specs.length === 0) {
    if (config.signingKeysCurrentMasterKey) {
      throw new ConfigError([problem(CURRENT_MASTER_KEY_SETTING, `names ${JSON.stringify(config.signingKeysCurrentMasterKey)}, but no master key is configured (${MASTER_KEYS_SETTING})`)]);
    }
    return undefined;
  }

  const problems: ConfigProblem[] = [];
  const byId = new Map<string, MasterKeySpec & { from: string }>();
  for (const spec of specs) {
    const earlier = byId.get(spec.id);
    if (earlier && earlier.base64 !== spec.base64) {
      problems.push(problem(spec.from, `master key id ${JSON.stringify(spec.id)} is also configured in ${earlier.from} with another key`));
    }
    byId.set(spec.id, spec);
  }
  let currentId = config.signingKeysCurrentMasterKey;
  if (currentId === undefined) {
    const [only] = byId.keys();
    if (byId.size === 1 && only !== undefined) currentId = only;
    else problems.push(problem(CURRENT_MASTER_KEY_SETTING, `must name the master key that encrypts new keys: ${byId.size} are configured (${[...byId.keys()].join(', ')})`));
  } else if (!byId.has(currentId)) {
    problems.push(problem(CURRENT_MASTER_KEY_SETTING, `names ${JSON.stringify(currentId)}, which is not among the configured master keys (${[...byId.keys()].join(', ')})`));
  }
  // No current id has put its problem in the list.
  if (problems.length > 0 || currentId === undefined) throw new ConfigError(problems);
  return new MasterKeyring([...byId.values()].map(({ id, base64 }) => ({ id, base64 })), currentId);
}
