import { randomBytes } from 'node:crypto';

/**
 * RFC 9562 UUID version 7: 48 bits of Unix milliseconds, then random bits. Ids created later sort later
 * (to the millisecond), which keeps the outbox primary-key index append-mostly and gives a stable
 * tie-break when several rows share a created_at.
 */
export function uuidV7(now: number = Date.now()): string {
  const bytes = randomBytes(16);
  const ms = BigInt(now);
  for (let i = 0; i < 6; i++) bytes[i] = Number((ms >> BigInt(8 * (5 - i))) & 0xffn);
  bytes[6] = (bytes[6] & 0x0f) | 0x70; // version 7
  bytes[8] = (bytes[8] & 0x3f) | 0x80; // RFC 4122 variant
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
