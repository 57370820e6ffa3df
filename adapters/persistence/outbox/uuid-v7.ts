import { randomInto } from '../../runtime/random-pool.js';

/**
 * RFC 9562 UUID version 7: 48 bits of Unix milliseconds, a 12-bit counter, then random bits. Ids made
 * later in this process sort later, even within one millisecond (the counter; RFC 9562 §6.2 method 1)
 * or when the clock steps back (the last timestamp is reused). The outbox orders by (created_at, id),
 * so events enqueued in one transaction are published in the order they were enqueued.
 */

let lastMs = -1;
let counter = 0;

export function uuidV7(): string {
  const bytes = Buffer.allocUnsafe(16);
  // Bytes 6-7 are random only to seed the counter below; 8-15 stay random.
  randomInto(bytes, 6, 10);
  const now = Date.now();
  if (now > lastMs) {
    lastMs = now;
    // Start in the lower half so that increments within this millisecond rarely overflow.
    counter = bytes.readUInt16BE(6) & 0x7ff;
  } else if (++counter > 0xfff) {
    lastMs++;
    counter = 0;
  }
  bytes.writeUIntBE(lastMs, 0, 6);
  bytes[6] = 0x70 | (counter >> 8); // version 7 + counter high bits
  bytes[7] = counter & 0xff;
  bytes[8] = (bytes.readUInt8(8) & 0x3f) | 0x80; // RFC 4122 variant
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
