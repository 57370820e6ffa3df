/** The pooled random bytes behind trace ids and UUIDv7 tails: fresh bytes every call, across refills of the pool. */
import { expect } from 'chai';
import { randomHex, randomInto } from '../random-pool.js';

describe('runtime: pooled random bytes', () => {
  it('gives lowercase hex of the asked length, never the same twice, across many refills of the pool', () => {
    const ids = Array.from({ length: 3000 }, () => randomHex(16));
    for (const id of ids) expect(id).to.match(/^[0-9a-f]{32}$/);
    expect(new Set(ids).size).to.equal(ids.length);
  });

  it('writes exactly the bytes asked for into the target, and leaves the rest alone', () => {
    const target = Buffer.alloc(24, 0xee);
    randomInto(target, 8, 8);
    expect(target.subarray(0, 8).equals(Buffer.alloc(8, 0xee))).to.equal(true);
    expect(target.subarray(16).equals(Buffer.alloc(8, 0xee))).to.equal(true);
    const other = Buffer.alloc(24, 0xee);
    randomInto(other, 8, 8);
    expect(other.subarray(8, 16).equals(target.subarray(8, 16)), 'two draws differ').to.equal(false);
  });

  it('refuses more than the pool holds at once', () => {
    expect(() => randomHex(4097)).to.throw(RangeError);
  });
});
