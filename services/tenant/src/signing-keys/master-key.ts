import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';

/**
 * Envelope encryption of private keys at rest under the master key (AES-256-GCM).
 *
 * Stored form (text, never JSON, never the JWK):
 *
 *     enc:v1:<master key id>:<iv, base64url, 12 bytes>:<auth tag, base64url, 16 bytes>:<ciphertext, base64url>
 *
 * The master key id is the first 16 hex digits of SHA-256 of the master key, so after a master-key
 * change the registry can say which key a record needs instead of failing with a bare "bad tag".
 * The kid is bound as additional authenticated data: an envelope copied onto another key's row does
 * not decrypt.
 */
const PREFIX = 'enc';
const VERSION = 'v1';
const IV_BYTES = 12;
const TAG_BYTES = 16;

export class MasterKey {
  readonly id: string;
  readonly #key: Buffer;

  constructor(base64: string) {
    const key = Buffer.from(base64, 'base64');
    if (key.length !== 32) throw new Error(`The master key must be 32 bytes for AES-256-GCM; got ${key.length}`);
    this.#key = key;
    this.id = createHash('sha256').update(key).digest('hex').slice(0, 16);
  }

  seal(plaintext: string, kid: string): string {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.#key, iv, { authTagLength: TAG_BYTES });
    cipher.setAAD(Buffer.from(kid, 'utf8'));
    const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return [PREFIX, VERSION, this.id, iv.toString('base64url'), cipher.getAuthTag().toString('base64url'), ciphertext.toString('base64url')].join(':');
  }

  open(envelope: string, kid: string): string {
    const parts = envelope.split(':');
    if (parts.length !== 6 || parts[0] !== PREFIX || parts[1] !== VERSION) {
      throw new Error(`The private key of ${kid} is not in a known envelope format`);
    }
    const [, , keyId, iv, tag, ciphertext] = parts as [string, string, string, string, string, string];
    if (keyId !== this.id) {
      throw new Error(`The private key of ${kid} was encrypted under master key ${keyId}; the configured master key is ${this.id}`);
    }
    const decipher = createDecipheriv('aes-256-gcm', this.#key, Buffer.from(iv, 'base64url'), { authTagLength: TAG_BYTES });
    decipher.setAAD(Buffer.from(kid, 'utf8'));
    decipher.setAuthTag(Buffer.from(tag, 'base64url'));
    try {
      return Buffer.concat([decipher.update(Buffer.from(ciphertext, 'base64url')), decipher.final()]).toString('utf8');
    } catch {
      throw new Error(`The private key of ${kid} failed its integrity check (altered, or moved from another key)`);
    }
  }

  /** Never print the key material, whatever logs this object. */
  toJSON(): { id: string } {
    return { id: this.id };
  }
}
