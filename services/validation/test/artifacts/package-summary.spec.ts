import { expect } from 'chai';
import { bindingsOf, systemsOfValueSet } from '#validation/domain/artifacts/package-summary.js';

describe('package summary: bindings and code systems read from raw resources', () => {
  it('lists each binding of the snapshot and differential once, skipping anything that is not an element with a value set', () => {
    const sd = {
      resourceType: 'StructureDefinition',
      url: 'http://example.org/StructureDefinition/p',
      snapshot: {
        element: [
          { id: 'Observation.code', binding: { strength: 'required', valueSet: 'http://example.org/ValueSet/codes' } },
          null,
          'not an element',
          { id: 'Observation.status', binding: 'not a binding' },
          { path: 'Observation.category', binding: { valueSet: 'http://example.org/ValueSet/categories' } },
        ],
      },
      differential: {
        element: [{ id: 'Observation.code', binding: { strength: 'required', valueSet: 'http://example.org/ValueSet/codes' } }],
      },
    };
    expect(bindingsOf(sd)).to.deep.equal([
      { valueSet: 'http://example.org/ValueSet/codes', path: 'Observation.code', profile: 'http://example.org/StructureDefinition/p', strength: 'required' },
      { valueSet: 'http://example.org/ValueSet/categories', path: 'Observation.category', profile: 'http://example.org/StructureDefinition/p' },
    ]);
  });

  it('finds no bindings when snapshot or differential are not objects with an element array', () => {
    expect(bindingsOf({ id: 'x', snapshot: 'text', differential: { element: {} } })).to.deep.equal([]);
  });

  it('lists the systems a ValueSet includes and excludes, once each', () => {
    const vs = {
      resourceType: 'ValueSet',
      compose: {
        include: [{ system: 'http://loinc.org' }, { valueSet: ['http://example.org/ValueSet/other'] }, null, { system: 'http://snomed.info/sct' }],
        exclude: [{ system: 'http://loinc.org' }],
      },
    };
    expect(systemsOfValueSet(vs)).to.deep.equal(['http://loinc.org', 'http://snomed.info/sct']);
    expect(systemsOfValueSet({ compose: null })).to.deep.equal([]);
    expect(systemsOfValueSet({ compose: [{ include: [{ system: 'http://loinc.org' }] }] })).to.deep.equal([]);
  });
});
