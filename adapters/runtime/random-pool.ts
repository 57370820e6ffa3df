import { randomFillSync } from 'node:crypto';

/**
 * Random bytes for ids (trace and span ids, UUIDv7 tails), cut from a pool refilled 4 KiB at a
 * time: one call into the CSPRNG per few hundred ids rather than one or two per id, as node:crypto's
 * randomUUID does internally. A submission creates several such ids (each HTTP call and message it
 * sends, its outbox row), so the calls showed in the flow's profile.
 */
const POOL_SIZE = 4096;
const pool = Buffer.alloc(POOL_SIZE);
let poolOffset = POOL_SIZE;

function take(length: number): number {
  if (length > POOL_SIZE) throw new RangeError(`at most ${POOL_SIZE} random bytes at a time`);
  if (poolOffset + length > POOL_SIZE) {
    randomFillSync(pool);
    poolOffset = 0;
  }
  const at = poolOffset;
  poolOffset += length;
  return at;
}

/** `length` random bytes as lowercase hex. */
export function randomHex(length: number): string {
  const at = take(length);
  return pool.toString('hex', at, at + length);
}

/** Writes `length` random bytes into `target` from `offset` on. */
export function randomInto(target: Buffer, offset: number, length: number): void {
  const at = take(length);
  pool.copy(target, offset, at, at + length);
}
