/**
 * StructureDefinitionValidator's rules against the base definition, on hand-written fixtures:
 * derivation stated, type and kind kept by a constraint, type changed by a specialization, an
 * extension's Extension.url fixed to its url (the differential checks are in
 * validator-business-rules.spec.ts).
 */
import { expect } from 'chai';
import { Validator } from '#validation/domain/engine/validator.js';
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

describe('engine: StructureDefinition contexts and element lists', function () {
  this.timeout(60_000);
  let v: Validator;
  before(async () => {
    v = new Validator(await sourceWith([]));
  });

  const sd = (elements: Record<string, unknown>[], extra: Record<string, unknown> = {}) => ({ ...profile('http://example.net/fhir/StructureDefinition/p', 'Patient', elements), text: narrative, ...extra });

  it('only extensions have a context; an extension\'s element context must exist', () => {
    const onProfile = v.validate(sd([], { context: [{ type: 'element', expression: 'Patient' }], contextInvariant: ['true'] }));
    expect(issuesWith(onProfile, 'The type is Patient so an extension context should not be specified', 'StructureDefinition.context[0]'), describe_(onProfile)).to.have.length(1);
    expect(issuesWith(onProfile, 'The type is Patient so an extension context invariants should not be specified', 'StructureDefinition.contextInvariant[0]'), describe_(onProfile)).to.have.length(1);
    const url = 'http://example.net/fhir/StructureDefinition/ext';
    const ext = (expression: string) => ({
      ...profile(url, 'Extension', [{ id: 'Extension.url', path: 'Extension.url', fixedUri: url }, { id: 'Extension.value[x]', path: 'Extension.value[x]', type: [{ code: 'string' }] }]),
      text: narrative, kind: 'complex-type', context: [{ type: 'element', expression }],
    });
    for (const expression of ['Patient', 'Patient.name.given', 'Questionnaire.item.item', 'Observation.value[x]']) {
      const o = v.validate(ext(expression));
      expect(errorsOf(o), describe_(o)).to.deep.equal([]);
    }
    const bad = v.validate(ext('Patient.nickname'));
    expect(issuesWith(bad, 'The element Patient.nickname is not valid', 'StructureDefinition.context[0]'), describe_(bad)).to.have.length(1);
    const anywhere = v.validate(ext('Element'));
    expect(issuesWith(anywhere, 'extensions should not have a context of Element')[0]?.severity, describe_(anywhere)).to.equal('warning');
  });

  it('element paths start with the type, and only repeating elements are sliced', () => {
    const o = v.validate(sd([
      { id: 'Patient.gender', path: 'Patient.gender', slicing: { discriminator: [{ type: 'value', path: '$this' }], rules: 'open' } },
      { id: 'Patient.identifier', path: 'Patient.identifier', slicing: { discriminator: [{ type: 'value', path: 'system' }], rules: 'open' } },
      { id: 'Person.name', path: 'Person.name' },
    ]));
    expect(issuesWith(o, "Slicing is not allowed at 'Patient.gender'", 'StructureDefinition.differential.element[1].slicing'), describe_(o)).to.have.length(1);
    expect(issuesWith(o, 'Patient.identifier cannot be sliced'), describe_(o)).to.have.length(0);
    expect(issuesWith(o, 'The path Person.name must start with the type of the structure Patient', 'StructureDefinition.differential.element[3]'), describe_(o)).to.have.length(1);
  });

  it('constraints the element types cannot carry: maxLength, min/maxValue and targetProfile; bindings once a snapshot is given', () => {
    const o = v.validate(sd([
      { id: 'Patient.active', path: 'Patient.active', type: [{ code: 'boolean' }], maxLength: 3 },
      { id: 'Patient.birthDate', path: 'Patient.birthDate', type: [{ code: 'date' }], minValueDate: '1900-01-01' },
      { id: 'Patient.gender', path: 'Patient.gender', type: [{ code: 'code', targetProfile: ['http://hl7.org/fhir/StructureDefinition/Patient'] }], maxLength: 10 },
    ]));
    expect(issuesWith(o, 'This element has a MaxLength but the types [boolean]', 'StructureDefinition.differential.element[1]'), describe_(o)).to.have.length(1);
    expect(issuesWith(o, 'This element has a MinValue', 'StructureDefinition.differential.element[2]'), describe_(o)).to.have.length(0);
    expect(issuesWith(o, 'This element has a targetProfile but the types code', 'StructureDefinition.differential.element[3]'), describe_(o)).to.have.length(1);
    expect(issuesWith(o, 'This element has a MaxLength', 'StructureDefinition.differential.element[3]'), describe_(o)).to.have.length(0);
    const bound = { id: 'Patient.birthDate', path: 'Patient.birthDate', type: [{ code: 'date' }], binding: { strength: 'required', valueSet: 'http://hl7.org/fhir/ValueSet/administrative-gender' } };
    const withSnapshot = v.validate(sd([bound], { snapshot: { element: [{ id: 'Patient', path: 'Patient', min: 0, max: '*' }, { ...bound, min: 0, max: '1' }] } }));
    expect(issuesWith(withSnapshot, 'This element has a Binding but the types [date]').map((i) => i.expression?.[0]), describe_(withSnapshot)).to.deep.equal(['StructureDefinition.differential.element[1]', 'StructureDefinition.snapshot.element[1]']);
    expect(issuesWith(withSnapshot, 'The element Patient.birthDate has a binding, but no bindable types are present [date]', 'StructureDefinition.snapshot.element[1].binding'), describe_(withSnapshot)).to.have.length(1);
  });

  it('a binding names a value set, not another kind of resource; snapshot elements have types or a content reference', () => {
    const o = v.validate(sd([{ id: 'Patient.gender', path: 'Patient.gender', binding: { strength: 'required', valueSet: 'http://hl7.org/fhir/administrative-gender' } }], {
      snapshot: { element: [{ id: 'Patient', path: 'Patient', min: 0, max: '*' }, { id: 'Patient.gender', path: 'Patient.gender', min: 0, max: '1' }] },
    }));
    expect(issuesWith(o, 'The valueSet reference http://hl7.org/fhir/administrative-gender on element Patient.gender points to something that is not a value set (CodeSystem)', 'StructureDefinition.differential.element[1].binding'), describe_(o)).to.have.length(1);
    expect(issuesWith(o, 'The element Patient.gender has no assigned types, and no content reference', 'StructureDefinition.snapshot.element[1]'), describe_(o)).to.have.length(1);
  });

  it('differential invariants: own source only, no base key with another expression; a key needs an expression', () => {
    const o = v.validate(sd([{ id: 'Patient.name', path: 'Patient.name', constraint: [
      { key: 'pat-1', severity: 'error', human: 'h', expression: 'true' },
      { key: 'my-1', severity: 'error', human: 'h', expression: 'family.exists()', source: 'http://example.net/fhir/StructureDefinition/other' },
      { key: 'my-2', severity: 'error', human: 'h', expression: 'given.exists()' },
      { key: 'my-3', severity: 'warning', human: 'h' },
    ] }]));
    const at = (j: number) => `StructureDefinition.differential.element[1].constraint[${j}]`;
    expect(issuesWith(o, "The constraint key 'pat-1' already exists in the base profile", at(0)), describe_(o)).to.have.length(1);
    expect(issuesWith(o, 'The invariant my-1 defined in the differential must have no source', at(1)), describe_(o)).to.have.length(1);
    expect(issuesWith(o, 'my-2'), describe_(o)).to.have.length(0);
    expect(issuesWith(o, "The constraint 'my-3' has no computable expression", at(3))[0]?.severity, describe_(o)).to.equal('information');
  });
});

describe('engine: obligation profiles (HL7 validateObligationProfile, inherit-obligations)', function () {
  this.timeout(60_000);
  const FLAG = { url: 'http://hl7.org/fhir/StructureDefinition/obligation-profile', valueBoolean: true };
  const BASE = 'http://example.net/fhir/StructureDefinition/ob-base';
  const obligation = { url: 'http://hl7.org/fhir/tools/StructureDefinition/obligation', extension: [{ url: 'code', valueCode: 'SHALL:populate' }] };
  const base = { ...profile(BASE, 'Patient', [{ id: 'Patient.maritalStatus', path: 'Patient.maritalStatus', binding: { strength: 'extensible', valueSet: 'http://hl7.org/fhir/ValueSet/marital-status' } }]), text: narrative, extension: [FLAG] };
  const plain = { ...profile('http://example.net/fhir/StructureDefinition/not-ob', 'Patient', []), text: narrative };
  let v: Validator;
  before(async () => {
    v = new Validator(await sourceWith([base, plain]));
  });
  const obligationProfile = (elements: Record<string, unknown>[]) => ({ ...profile('http://example.net/fhir/StructureDefinition/ob', 'Patient', [], { baseDefinition: BASE, differential: { element: elements } }), text: narrative, extension: [FLAG] });
  // (the obligation-profile flag is not among the extensions this service loads: HL7 reports it unknown too)
  const found = (o: ReturnType<Validator['validate']>) => errorsOf(o).map((i) => `${i.expression?.[0]} ${i.details.text}`).filter((t) => !t.includes('obligation-profile is unknown'));

  it('obligations, must-support, cardinality and the base\'s binding strength are what it may say', () => {
    const o = v.validate(obligationProfile([
      { id: 'Patient.birthDate', path: 'Patient.birthDate', extension: [obligation], mustSupport: true, min: 1 },
      { id: 'Patient.maritalStatus', path: 'Patient.maritalStatus', binding: { strength: 'extensible' } },
    ]));
    expect(found(o), describe_(o)).to.deep.equal([]);
  });

  it('any other property, extension or binding change is an error at its place', () => {
    const o = v.validate(obligationProfile([
      { id: 'Patient.gender', path: 'Patient.gender', binding: { strength: 'required' } },
      { id: 'Patient.deceased[x]', path: 'Patient.deceased[x]', short: 'x', extension: [{ url: 'http://example.net/ext', valueString: 'x' }] },
      { id: 'Patient.maritalStatus', path: 'Patient.maritalStatus', binding: { strength: 'example', description: 'd' } },
    ]));
    expect(found(o).filter((t) => !t.includes('http://example.net/ext is unknown')), describe_(o)).to.deep.equal([
      "StructureDefinition.differential.element[1].short[0] The element 'Patient.deceased[x]' has a property 'short' which is not allowed in Obligation profiles",
      "StructureDefinition.differential.element[1].extension[0] The element 'Patient.deceased[x]' has a property 'extension#http://example.net/ext' which is not allowed in Obligation profiles",
      "StructureDefinition.differential.element[2].binding[0].strength[0] The element 'Patient.maritalStatus' has a different binding strength ('example') from the base ('extensible') which is not allowed in Obligation profiles",
      "StructureDefinition.differential.element[2].binding[0].description[0] The element 'Patient.maritalStatus' has a binding property 'description' which is not allowed in Obligation profiles",
    ]);
  });

  it('inherit-obligations names a known obligation profile with the same base', () => {
    const inherits = (target: string) => ({ url: 'http://hl7.org/fhir/StructureDefinition/inherit-obligations', valueCanonical: target });
    const o = v.validate({ ...profile('http://example.net/fhir/StructureDefinition/inh', 'Patient', [], { baseDefinition: BASE }), text: narrative, extension: [inherits('http://example.net/fhir/StructureDefinition/not-ob'), inherits(BASE)] });
    expect(found(o).filter((t) => !t.includes('inherit-obligations')), describe_(o)).to.deep.equal([
      "StructureDefinition.extension[0] The profile 'http://example.net/fhir/StructureDefinition/not-ob' is not marked as an obligation profile",
      `StructureDefinition.extension[1] The profile '${BASE}' has a different base 'http://hl7.org/fhir/StructureDefinition/Patient' from that expected '${BASE}'`,
    ]);
  });
});
