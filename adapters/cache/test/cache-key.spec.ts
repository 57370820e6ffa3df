import { expect } from 'chai';
import { cacheKey } from '../cache-key.js';

describe('cache: cacheKey', () => {
  it('is a SHA-256 hex digest that is stable for equal tuples', () => {
    const key = cacheKey(['http://loinc.org', '1234-5', undefined, 'http://vs']);
    expect(key).to.match(/^[0-9a-f]{64}$/);
    expect(cacheKey(['http://loinc.org', '1234-5', undefined, 'http://vs'])).to.equal(key);
  });

  it('distinguishes tuples whose concatenations are equal', () => {
    expect(cacheKey(['a', 'bc'])).to.not.equal(cacheKey(['ab', 'c']));
    expect(cacheKey(['a|b', 'c'])).to.not.equal(cacheKey(['a', 'b|c']));
    expect(cacheKey(['1:a;', ''])).to.not.equal(cacheKey(['1:a', ';']));
    expect(cacheKey(['x', 'y'])).to.not.equal(cacheKey(['y', 'x']));
  });

  it('distinguishes an absent part from an empty string, and counts the parts', () => {
    expect(cacheKey(['a', undefined])).to.not.equal(cacheKey(['a', '']));
    expect(cacheKey(['a'])).to.not.equal(cacheKey(['a', undefined]));
    expect(cacheKey([])).to.not.equal(cacheKey(['']));
    expect(cacheKey(['a', null])).to.equal(cacheKey(['a', undefined]));
  });

  it('encodes non-ASCII text by its UTF-8 bytes', () => {
    expect(cacheKey(['é', 'a'])).to.not.equal(cacheKey(['e\u0301', 'a']));
  });

  it('refuses parts that are not strings', () => {
    expect(() => cacheKey([1 as unknown as string])).to.throw(TypeError, /must be strings/);
  });
});
