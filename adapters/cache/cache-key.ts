import { createHash } from 'node:crypto';

/**
 * A cache key for a tuple of parts, e.g. (codeSystem, code, display, valueSetUrl): SHA-256 (hex) of a
 * length-prefixed encoding, so ("a","bc") and ("ab","c") differ, "" differs from an absent part, and no
 * separator character inside a part can forge another tuple. null and undefined both mean "absent" and
 * encode the same. Never a 32-bit hash: those collide after ~77,000 keys with 50 % probability.
 */
export function cacheKey(parts: readonly (string | undefined | null)[]): string {
  const hash = createHash('sha256');
  hash.update(`${parts.length};`);
  for (const part of parts) {
    if (part === undefined || part === null) {
      hash.update('-;');
    } else if (typeof part === 'string') {
      hash.update(`${Buffer.byteLength(part, 'utf8')}:`);
      hash.update(part, 'utf8');
      hash.update(';');
    } else {
      throw new TypeError(`cacheKey: parts must be strings, null or undefined, got ${typeof part}`);
    }
  }
  return hash.digest('hex');
}
