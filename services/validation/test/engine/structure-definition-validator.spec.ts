/**
 * StructureDefinitionValidator's rules against the base definition, on hand-written fixtures:
 * derivation stated, type and kind kept by a constraint, type changed by a specialization, an
 * extension's Extension.url fixed to its url (the differential checks are in
 * validator-business-rules.spec.ts).
 */
import { expect } from 'chai';
import { Validator } from '../../src/domain/engine/validator.js';
import { sourceWith } from './support/core-definitions.js';
import { describe_, errorsOf, issuesWith, profile } from './support/helpers.js';

const narrative = { status: 'generated', div: '<div xmlns="http://www.w3.org/1999/xhtml">x</div>' };

describe('engine: StructureDefinition validator', function () {
  this.timeout(60_000);
  let v: Validator;
  before(async () => {
    v = new Validator(await sourceWith([]));
  });

  const sd = (extra: Record<string, unknown>) => ({ ...profile('http://example.net/fhir/StructureDefinition/p', 'Patient', []), text: narrative, ...extra });

  it('accepts a profile that keeps its base\'s type and kind', () => {
    const o = v.validate(sd({}));
    expect(errorsOf(o), describe_(o)).to.deep.equal([]);
  });

  it('reports a missing derivation, and a constraint that changes the type or kind', () => {
    const noDerivation = v.validate(sd({ derivation: undefined }));
    expect(issuesWith(noDerivation, 'must have a derivation, since it has a baseDefinition', 'StructureDefinition'), describe_(noDerivation)).to.have.length(1);
    const otherType = v.validate(sd({ type: 'Person', differential: { element: [{ id: 'Person', path: 'Person' }] } }));
    expect(issuesWith(otherType, 'The type Person must be the same as the type in the base structure Patient', 'StructureDefinition'), describe_(otherType)).to.have.length(1);
    const otherKind = v.validate(sd({ kind: 'complex-type' }));
    expect(issuesWith(otherKind, 'The kind complex-type must be the same as the kind resource', 'StructureDefinition'), describe_(otherKind)).to.have.length(1);
    expect(issuesWith(otherKind, 'constrains a kind of resource, but has a different kind (complex-type)', 'StructureDefinition'), describe_(otherKind)).to.have.length(1);
  });

  it('a specialization must define a new type; an unknown base is a warning', () => {
    const same = v.validate(sd({ derivation: 'specialization', differential: undefined, abstract: false }));
    expect(issuesWith(same, 'must not be the same as the type in the base structure Patient', 'StructureDefinition'), describe_(same)).to.have.length(1);
    const unknown = v.validate(sd({ baseDefinition: 'http://example.net/fhir/StructureDefinition/nowhere' }));
    expect(issuesWith(unknown, 'Unable to find base http://example.net/fhir/StructureDefinition/nowhere')[0]?.severity, describe_(unknown)).to.equal('warning');
  });

  it('an extension fixes Extension.url to its own url', () => {
    const url = 'http://example.net/fhir/StructureDefinition/ext';
    const ext = (fixedUri: string | undefined) => ({
      ...profile(url, 'Extension', [{ id: 'Extension.url', path: 'Extension.url', ...(fixedUri === undefined ? {} : { fixedUri }) }, { id: 'Extension.value[x]', path: 'Extension.value[x]', type: [{ code: 'string' }] }]),
      text: narrative, kind: 'complex-type', context: [{ type: 'element', expression: 'Patient' }],
    });
    const ok = v.validate(ext(url));
    expect(errorsOf(ok), describe_(ok)).to.deep.equal([]);
    const other = v.validate(ext('http://example.net/fhir/StructureDefinition/other'));
    expect(issuesWith(other, "doesn't match the canonical URL " + url, 'StructureDefinition'), describe_(other)).to.have.length(1);
    const none = v.validate(ext(undefined));
    expect(issuesWith(none, 'The value of Extension.url is not fixed to the extension URL', 'StructureDefinition'), describe_(none)).to.have.length(1);
  });
});
