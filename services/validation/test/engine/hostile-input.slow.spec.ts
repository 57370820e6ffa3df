/**
 * Hostile input, the costly case (seconds of CPU): a huge Bundle completes (hostile-input.spec.ts
 * has the rest).
 */
import { expect } from 'chai';
import { Validator } from '#validation/domain/engine/validator.js';
import { coreSource } from './support/core-definitions.js';
import { errorsOf } from './support/helpers.js';

describe('engine: hostile input', function () {
  this.timeout(120_000);
  let v: Validator;
  before(async () => {
    v = new Validator(await coreSource());
  });

  it('a 100,000-entry Bundle completes, its fullUrl index built once', () => {
    const entry = [];
    for (let i = 0; i < 100_000; i++) {
      entry.push({ fullUrl: `urn:uuid:00000000-0000-4000-8000-${String(i).padStart(12, '0')}`, resource: { resourceType: 'Basic', id: `b${i}`, code: { text: 'x' }, subject: { reference: `urn:uuid:00000000-0000-4000-8000-${String((i + 1) % 100_000).padStart(12, '0')}` } } });
    }
    const o = v.validate({ resourceType: 'Bundle', type: 'collection', entry });
    expect(errorsOf(o)).to.deep.equal([]);
  });
});
