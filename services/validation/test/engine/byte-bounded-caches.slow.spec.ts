/**
 * Caches keyed by submitted data are bounded by bytes (issue 28): the RE2 patterns and the
 * compiled FHIRPath expressions, least recently used first out.
 */
import { expect } from 'chai';
import { ByteBoundedCache } from '#validation/domain/caching/byte-bounded-cache.js';
import { FHIRPATH_CACHE_BYTES, InvariantEvaluator } from '#validation/domain/engine/checks/invariants.js';
import { compileLinearRegex, isRegexError, REGEX_CACHE_BYTES, regexCacheBytes } from '#validation/domain/regex/linear-regex.js';
import { LocalTerminology } from '#validation/domain/terminology/local-terminology.js';
import { coreSource } from './support/core-definitions.js';

describe('engine: caches keyed by data, bounded by bytes', function () {
  this.timeout(120_000);

  it('evicts the least recently used entries to stay within its bytes; an entry larger than the bound is not kept', () => {
    const cache = new ByteBoundedCache<string>(100, (_key, value) => value.length);
    cache.set('a', 'x'.repeat(40));
    cache.set('b', 'x'.repeat(40));
    expect(cache.get('a')).to.have.length(40); // a is now the most recent
    cache.set('c', 'x'.repeat(40));
    expect(cache.get('b')).to.equal(undefined);
    expect(cache.get('a')).to.have.length(40);
    expect(cache.bytes).to.equal(80);
    cache.set('huge', 'x'.repeat(101));
    expect(cache.get('huge')).to.equal(undefined);
    cache.set('a', 'x'.repeat(10));
    expect(cache.bytes).to.equal(50);
    expect(cache.size).to.equal(2);
  });

  it('RE2: thousands of distinct 1 KB patterns from the data stay within the cache\'s bytes, and still match', () => {
    for (let i = 0; i < 3_000; i++) {
      const pattern = `${'[a-z]'.repeat(200)}${i}`;
      const compiled = compileLinearRegex(pattern);
      if (isRegexError(compiled)) throw new Error(compiled.error);
      expect(compiled.matchesWhole(`${'a'.repeat(200)}${i}`)).to.equal(true);
      expect(regexCacheBytes()).to.be.at.most(REGEX_CACHE_BYTES);
    }
    expect(regexCacheBytes()).to.be.greaterThan(REGEX_CACHE_BYTES / 2);
  });

  it('FHIRPath: distinct expressions from the data stay within the compiled cache\'s bytes', async () => {
    const evaluator = new InvariantEvaluator(new LocalTerminology(await coreSource()));
    const basic = { resourceType: 'Basic', code: { text: 'x' } };
    for (let i = 0; i < 12_000; i++) {
      expect(evaluator.test(`code.text = 'x' or code.text = '${'y'.repeat(20)}${i}'`, 'Basic', basic, { resource: basic, rootResource: basic })).to.equal('pass');
    }
    expect(evaluator.compiledCacheBytes).to.be.at.most(FHIRPATH_CACHE_BYTES).and.greaterThan(FHIRPATH_CACHE_BYTES / 2);
  });
});
