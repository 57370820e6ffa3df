import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import { UnavailableError } from '#shared-kernel/domain/errors.js';

/**
 * Envelope encryption of private signing keys at rest under master keys (AES-256-GCM), with several
 * master keys at once so the master key can be rotated:
 *
 * - every master key has an id (`kid:base64` in `signing-keys.master-keys`, or the fingerprint of the
 *   legacy single `signing-keys.master-key`);
 * - one of them is current: new and re-encrypted private keys are sealed under it;
 * - each envelope (and the `master_key_id` column beside it) names the master key that sealed it, so
 *   it is opened with exactly that key, and a missing one is named instead of failing with "bad tag".
 *
 * Stored form (text, never JSON, never the JWK):
 *
 *     enc:v1:<master key id>:<iv, base64url, 12 bytes>:<auth tag, base64url, 16 bytes>:<ciphertext, base64url>
 *
 * The signing key's kid is bound as additional authenticated data: an envelope copied onto another
 * key's row does not decrypt.
 */
const PREFIX = 'enc';
const VERSION = 'v1';
const IV_BYTES = 12;
const TAG_BYTES = 16;
const KEY_BYTES = 32;
export const MASTER_KEY_ID_MAX_LENGTH = 64;

/** First 16 hex digits of SHA-256 of the key: the id envelopes sealed by the legacy single key carry. */
export function masterKeyFingerprint(key: Buffer): string {
  return createHash('sha256').update(key).digest('hex').slice(0, 16);
}

/** Why `id` cannot name a master key (it is a field of the envelope, so no `:`), or undefined. */
export function masterKeyIdProblem(id: string): string | undefined {
  if (id.length === 0 || id.length > MASTER_KEY_ID_MAX_LENGTH) return `a master key id must be 1 to ${MASTER_KEY_ID_MAX_LENGTH} characters`;
  const allowed = (c: string) => (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c === '-' || c === '_' || c === '.';
  if (![...id].every(allowed)) return `master key id ${JSON.stringify(id)} may contain only letters, digits, '-', '_' and '.'`;
  return undefined;
}

/** Why `base64` is not an AES-256 key, or undefined. */
export function masterKeyMaterialProblem(base64: string): string | undefined {
  const allowed = (c: string) => (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c === '+' || c === '/' || c === '=';
  if (base64 === '' || ![...base64].every(allowed)) return 'must be base64 (e.g. the output of `openssl rand -base64 32`)';
  const length = Buffer.from(base64, 'base64').length;
  if (length !== KEY_BYTES) return `must decode to exactly ${KEY_BYTES} bytes for AES-256-GCM; decodes to ${length}`;
  return undefined;
}

export interface MasterKeySpec {
  readonly id: string;
  readonly base64: string;
}

/**
 * An envelope of a key this keyring cannot open: its master key is not configured, or not the one
 * that sealed it. The shared vocabulary's UnavailableError (the same reason as SigningKeyError's
 * `master-key-unavailable`): configuring the master key makes a retry succeed.
 */
export class MasterKeyUnavailableError extends UnavailableError {
  override readonly name = 'MasterKeyUnavailableError';
  constructor(message: string, readonly masterKeyId: string) {
    super(message, { dependency: 'master key', reason: { code: 'master-key-unavailable', title: 'Master key unavailable' } });
  }
}

export interface Sealed {
  readonly envelope: string;
  readonly masterKeyId: string;
}

interface Entry {
  readonly id: string;
  readonly fingerprint: string;
  readonly key: Buffer;
}

export class MasterKeyring {
  readonly currentId: string;
  readonly #entries: readonly Entry[];
  readonly #current: Entry;

  /** `currentId` must be one of the ids; the constructor refuses duplicates (config.ts reports them first). */
  constructor(specs: readonly MasterKeySpec[], currentId: string) {
    const entries = specs.map((spec) => {
      const problem = masterKeyIdProblem(spec.id) ?? masterKeyMaterialProblem(spec.base64);
      if (problem) throw new Error(`Master key ${JSON.stringify(spec.id)}: ${problem}`);
      const key = Buffer.from(spec.base64, 'base64');
      return { id: spec.id, fingerprint: masterKeyFingerprint(key), key };
    });
    const ids = new Set<string>();
    for (const entry of entries) {
      if (ids.has(entry.id)) throw new Error(`Master key id ${JSON.stringify(entry.id)} is configured twice`);
      ids.add(entry.id);
    }
    const current = entries.find((entry) => entry.id === currentId);
    if (!current) throw new Error(`The current master key ${JSON.stringify(currentId)} is not among the configured ones (${[...ids].join(', ')})`);
    this.#entries = entries;
    this.#current = current;
    this.currentId = currentId;
  }

  /** The configured master key ids, current first. */
  get ids(): string[] {
    return [this.currentId, ...this.#entries.map((entry) => entry.id).filter((id) => id !== this.currentId)];
  }

  /**
   * Whether an envelope recorded under `masterKeyId` can be opened: the id is configured, or it is
   * the fingerprint of a configured key (envelopes of the legacy single key carry the fingerprint,
   * so that key keeps working after it is given an id in the keyring).
   */
  has(masterKeyId: string): boolean {
    return this.entryFor(masterKeyId) !== undefined;
  }

  seal(plaintext: string, kid: string): Sealed {
    const entry = this.#current;
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', entry.key, iv, { authTagLength: TAG_BYTES });
    cipher.setAAD(Buffer.from(kid, 'utf8'));
    const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    const envelope = [PREFIX, VERSION, entry.id, iv.toString('base64url'), cipher.getAuthTag().toString('base64url'), ciphertext.toString('base64url')].join(':');
    return { envelope, masterKeyId: entry.id };
  }

  open(envelope: string, kid: string): string {
    const { masterKeyId, iv, tag, ciphertext } = parseEnvelope(envelope, kid);
    const entry = this.entryFor(masterKeyId);
    if (!entry) {
      throw new MasterKeyUnavailableError(
        `The private key of signing key ${kid} is encrypted under master key ${JSON.stringify(masterKeyId)}, which is not configured (configured: ${this.ids.join(', ')}). Add it to signing-keys.master-keys.`,
        masterKeyId);
    }
    const decipher = createDecipheriv('aes-256-gcm', entry.key, Buffer.from(iv, 'base64url'), { authTagLength: TAG_BYTES });
    decipher.setAAD(Buffer.from(kid, 'utf8'));
    decipher.setAuthTag(Buffer.from(tag, 'base64url'));
    try {
      return Buffer.concat([decipher.update(Buffer.from(ciphertext, 'base64url')), decipher.final()]).toString('utf8');
    } catch {
      throw new MasterKeyUnavailableError(
        `The private key of signing key ${kid} does not decrypt with the configured master key ${JSON.stringify(entry.id)}: that id holds another key than the one that encrypted it, or the stored key was altered`,
        masterKeyId);
    }
  }

  /** Never print key material, whatever logs this object. */
  toJSON(): { currentId: string; ids: string[] } {
    return { currentId: this.currentId, ids: this.ids };
  }

  private entryFor(masterKeyId: string): Entry | undefined {
    return this.#entries.find((entry) => entry.id === masterKeyId) ?? this.#entries.find((entry) => entry.fingerprint === masterKeyId);
  }
}

/** The master key id an envelope names (also stored in `signing_key.master_key_id`). */
export function envelopeMasterKeyId(envelope: string, kid: string): string {
  return parseEnvelope(envelope, kid).masterKeyId;
}

function parseEnvelope(envelope: string, kid: string) {
  const parts = envelope.split(':');
  const [prefix, version, masterKeyId, iv, tag, ciphertext] = parts;
  if (parts.length !== 6 || prefix !== PREFIX || version !== VERSION
    || masterKeyId === undefined || iv === undefined || tag === undefined || ciphertext === undefined) {
    throw new MasterKeyUnavailableError(`The private key of signing key ${kid} is not in a known envelope format`, '');
  }
  return { masterKeyId, iv, tag, ciphertext };
}
