/**
 * Which profiles a resource is validated against, as the HL7 validator decides: meta.profile of
 * the resource and of resources inside it (contained, Bundle entries, Parameters), versioned
 * canonicals, a profile of another resource type, and an element whose type names several
 * profiles (the value must follow one of them).
 */
import { expect } from 'chai';
import { type ValidationOutcome } from '#validation/domain/engine/outcome/issue.js';
import { Validator } from '#validation/domain/engine/validator.js';
import { LocalTerminology } from '#validation/domain/terminology/local-terminology.js';
import { sourceWith } from './support/core-definitions.js';
import { describe_, errorsOf, profile, engineKeyOf } from './support/helpers.js';

const BASE = 'http://example.org/fhir/StructureDefinition/';
const narrative = { status: 'generated', div: '<div xmlns="http://www.w3.org/1999/xhtml">x</div>' };

const namedPatient = profile(BASE + 'named-patient', 'Patient', [{ id: 'Patient.name', path: 'Patient.name', min: 1 }]);
const genderedPatient = profile(BASE + 'gendered-patient', 'Patient', [{ id: 'Patient.gender', path: 'Patient.gender', min: 1 }]);
const eitherPatient = profile(BASE + 'either-patient-params', 'Parameters', [
  { id: 'Parameters.parameter', path: 'Parameters.parameter', min: 1, max: '1' },
  { id: 'Parameters.parameter.resource', path: 'Parameters.parameter.resource', min: 1, type: [{ code: 'Patient', profile: [BASE + 'named-patient', BASE + 'gendered-patient'] }] },
]);
const codedQuantity = profile(BASE + 'coded-quantity', 'Quantity', [{ id: 'Quantity.code', path: 'Quantity.code', min: 1 }]);
const unitQuantity = profile(BASE + 'unit-quantity', 'Quantity', [{ id: 'Quantity.unit', path: 'Quantity.unit', min: 1 }]);
const quantityObservation = profile(BASE + 'quantity-observation', 'Observation', [
  { id: 'Observation.value[x]', path: 'Observation.value[x]', type: [{ code: 'Quantity', profile: [BASE + 'coded-quantity', BASE + 'unit-quantity'] }] },
]);

const ids = (o: ValidationOutcome, severity = 'error') => o.issue.filter((i) => i.severity === severity).map((i) => String(engineKeyOf(i)));

describe('engine: profile handling', function () {
  this.timeout(60_000);
  let v: Validator;
  before(async () => {
    v = new Validator(await sourceWith([namedPatient, genderedPatient, eitherPatient, codedQuantity, unitQuantity, quantityObservation]));
  });

  const params = (resource: Record<string, unknown>, meta?: Record<string, unknown>) => ({
    resourceType: 'Parameters', ...(meta ? { meta } : {}), parameter: [{ name: 'p', resource }],
  });

  it('a resource inside Parameters is validated against its own meta.profile', () => {
    const bad = v.validate(params({ resourceType: 'Patient', id: 'p', text: narrative, meta: { profile: [BASE + 'named-patient'] } }));
    const errors = errorsOf(bad);
    expect(errors.map((i) => i.details.text), describe_(bad)).to.deep.equal([`Patient.name: minimum required = 1, but only found 0 (from ${BASE}named-patient|1.0.0)`]);
    expect(errors[0]?.expression).to.deep.equal(["Parameters.parameter[0].resource.ofType(Patient).where(id = 'p')"]);
    const ok = v.validate(params({ resourceType: 'Patient', id: 'p', text: narrative, meta: { profile: [BASE + 'named-patient'] }, name: [{ family: 'x' }] }));
    expect(errorsOf(ok), describe_(ok)).to.deep.equal([]);
  });

  it('a Parameters profile naming several profiles for a resource: the resource must follow one of them', () => {
    const meta = { profile: [BASE + 'either-patient-params'] };
    const named = v.validate(params({ resourceType: 'Patient', id: 'p', text: narrative, name: [{ family: 'x' }] }, meta));
    expect(errorsOf(named), describe_(named)).to.deep.equal([]);
    const gendered = v.validate(params({ resourceType: 'Patient', id: 'p', text: narrative, gender: 'other' }, meta));
    expect(errorsOf(gendered), describe_(gendered)).to.deep.equal([]);
    const neither = v.validate(params({ resourceType: 'Patient', id: 'p', text: narrative }, meta));
    expect(ids(neither), describe_(neither)).to.deep.equal(['VALIDATION_VAL_PROFILE_NOMATCH', 'CARDINALITY_MIN', 'CARDINALITY_MIN']);
    const nomatch = neither.issue.find((i) => engineKeyOf(i) === 'VALIDATION_VAL_PROFILE_NOMATCH');
    expect(nomatch?.expression).to.deep.equal(['Parameters.parameter[0].resource']);
    expect(nomatch?.details.text).to.equal(`Unable to find a match for the specified profile among choices: ${BASE}gendered-patient|1.0.0; ${BASE}named-patient|1.0.0`);
    const both = v.validate(params({ resourceType: 'Patient', id: 'p', text: narrative, gender: 'other', name: [{ family: 'x' }] }, meta));
    expect(errorsOf(both), describe_(both)).to.deep.equal([]);
    expect(ids(both, 'warning')).to.include('VALIDATION_VAL_PROFILE_MULTIPLEMATCHES');
  });

  it('a datatype with several profiles must follow one of them', () => {
    const obs = (valueQuantity: Record<string, unknown>) => v.validate({
      resourceType: 'Observation', text: narrative, status: 'final', code: { text: 'x' }, meta: { profile: [BASE + 'quantity-observation'] }, valueQuantity,
    });
    expect(errorsOf(obs({ value: 1, unit: 'mg' })), describe_(obs({ value: 1, unit: 'mg' }))).to.deep.equal([]);
    expect(errorsOf(obs({ value: 1, system: 'http://unitsofmeasure.org', code: 'mg' }))).to.deep.equal([]);
    const neither = obs({ value: 1 });
    expect(ids(neither), describe_(neither)).to.include('VALIDATION_VAL_PROFILE_NOMATCH');
  });

  it('meta.profile on contained resources and Bundle entries is applied, a profile of another type is an error', () => {
    const contained = v.validate({
      resourceType: 'Observation', id: 'o', text: narrative, status: 'final', code: { text: 'x' }, subject: { reference: '#p' },
      contained: [{ resourceType: 'Patient', id: 'p', meta: { profile: [BASE + 'named-patient'] } }],
    });
    expect(errorsOf(contained).map((i) => i.expression?.[0]), describe_(contained)).to.deep.equal(["Observation.contained[0].ofType(Patient).where(id = 'p')"]);
    const bundle = v.validate({
      resourceType: 'Bundle', type: 'collection',
      entry: [{ fullUrl: 'http://example.org/fhir/Patient/p', resource: { resourceType: 'Patient', id: 'p', text: narrative, meta: { profile: [BASE + 'named-patient'] } } }],
    });
    expect(errorsOf(bundle).map((i) => i.expression?.[0]), describe_(bundle)).to.deep.equal(["Bundle.entry[0].resource.ofType(Patient).where(id = 'p')"]);
    const wrongType = v.validate({ resourceType: 'Observation', text: narrative, status: 'final', code: { text: 'x' }, meta: { profile: [BASE + 'named-patient'] } });
    expect(ids(wrongType), describe_(wrongType)).to.deep.equal(['PROFILE_WRONG_TYPE']);
    expect(errorsOf(wrongType)[0]?.expression).to.deep.equal(['Observation.meta.profile[0]']);
  });

  it('a versioned meta.profile is used when that version is known, and is not found otherwise', () => {
    const known = v.validate({ resourceType: 'Patient', text: narrative, meta: { profile: [BASE + 'named-patient|1.0.0'] } });
    expect(ids(known), describe_(known)).to.deep.equal(['CARDINALITY_MIN']);
    const other = v.validate({ resourceType: 'Patient', text: narrative, meta: { profile: [BASE + 'named-patient|2.0.0'] } });
    expect(ids(other), describe_(other)).to.deep.equal([]);
    expect(ids(other, 'warning')).to.include('PROFILE_NOT_FOUND');
  });
});

describe('engine: conformsTo() in a profile\'s invariants (HL7: the value is validated against the profile)', function () {
  this.timeout(60_000);
  const conformsProfile = profile(BASE + 'conforms-patient', 'Patient', [], {
    differential: { element: [
      { id: 'Patient', path: 'Patient', constraint: [{ key: 'ct-1', severity: 'error', human: 'follows core Patient', expression: "conformsTo('http://hl7.org/fhir/StructureDefinition/Patient')" }] },
      { id: 'Patient.maritalStatus', path: 'Patient.maritalStatus', constraint: [{ key: 'ct-2', severity: 'error', human: 'a coded status', expression: `conformsTo('${BASE}coded-status')` }] },
      { id: 'Patient.contact', path: 'Patient.contact', constraint: [{ key: 'ct-3', severity: 'error', human: 'unknown profile', expression: `conformsTo('${BASE}nowhere')` }] },
    ] },
  });
  const codedStatus = profile(BASE + 'coded-status', 'CodeableConcept', [{ id: 'CodeableConcept.coding', path: 'CodeableConcept.coding', min: 1 }]);
  let v: Validator;
  before(async () => {
    const source = await sourceWith([conformsProfile, codedStatus]);
    v = new Validator(source, new LocalTerminology(source));
  });
  const patient = (extra: Record<string, unknown>) => ({ resourceType: 'Patient', meta: { profile: [BASE + 'conforms-patient'] }, text: narrative, ...extra });
  const failed = (o: ValidationOutcome) => errorsOf(o).filter((i) => /^Rule ct-\d/.test(i.details.text ?? '')).map((i) => [i.expression?.[0], i.details.text?.slice(0, 9)]);

  it('a resource that follows the profile passes; one with an error fails the invariant', () => {
    const good = v.validate(patient({ gender: 'male', maritalStatus: { coding: [{ system: 'http://terminology.hl7.org/CodeSystem/v3-MaritalStatus', code: 'M' }] } }));
    expect(errorsOf(good), describe_(good)).to.deep.equal([]);
    const bad = v.validate(patient({ gender: 'dragon' }));
    expect(failed(bad), describe_(bad)).to.deep.equal([['Patient', 'Rule ct-1']]);
    // the whole resource is validated, not only the profile's constraints: a wrong date fails it too
    const badDate = v.validate(patient({ birthDate: '2020-13-45' }));
    expect(failed(badDate), describe_(badDate)).to.deep.equal([['Patient', 'Rule ct-1']]);
  });

  it('a data type against a data type profile; a profile that is not known cannot be told (no error)', () => {
    const o = v.validate(patient({ maritalStatus: { text: 'married' }, contact: [{ name: { family: 'x' } }] }));
    expect(failed(o), describe_(o)).to.deep.equal([['Patient.maritalStatus', 'Rule ct-2']]);
  });
});

describe('engine: a profile invariant that cannot be evaluated', function () {
  this.timeout(60_000);
  const brokenProfile = profile(BASE + 'broken-invariants', 'Patient', [], {
    differential: { element: [
      // HL7's own parser takes a group after a dot (DEQM's deqm-2 is written so); fhirpath.js cannot compile it
      { id: 'Patient', path: 'Patient', constraint: [{ key: 'br-1', severity: 'error', human: 'does not compile', expression: "extension.('http://example.org/x').exists() implies gender.exists()" }] },
      // compiles, and throws while evaluated (single() of two names)
      { id: 'Patient.name', path: 'Patient.name', constraint: [{ key: 'br-2', severity: 'error', human: 'throws', expression: '%resource.name.single().exists()' }] },
    ] },
  });
  let v: Validator;
  before(async () => {
    v = new Validator(await sourceWith([brokenProfile]));
  });

  it('is a warning, never an error, once per validation: one that does not compile with HL7\'s message and id, one that throws with ours', () => {
    const o = v.validate({ resourceType: 'Patient', meta: { profile: [BASE + 'broken-invariants|1.0.0'] }, text: narrative, name: [{ family: 'A' }, { family: 'B' }] });
    expect(errorsOf(o), describe_(o)).to.deep.equal([]);
    const unparsable = o.issue.filter((i) => engineKeyOf(i) === 'Problem_processing_expression__in_profile__path__');
    expect(unparsable.map((i) => [i.severity, i.expression?.[0]]), describe_(o)).to.deep.equal([['warning', 'Patient']]);
    expect(unparsable[0]?.details.text).to.match(new RegExp(`^Problem processing expression 'extension\\.\\('http://example\\.org/x'\\)\\.exists\\(\\) implies gender\\.exists\\(\\)' in profile '${BASE.replace(/[./]/g, '\\$&')}broken-invariants\\|1\\.0\\.0' at path 'Patient': `));
    expect(unparsable[0]?.extension?.find((e) => e.url.endsWith('operationoutcome-message-id'))?.valueCode).to.equal('Problem_processing_expression__in_profile__path__');
    const thrown = o.issue.filter((i) => engineKeyOf(i) === 'INVARIANT_BROKEN');
    expect(thrown.map((i) => [i.severity, i.details.text.slice(0, 37)]), describe_(o)).to.deep.equal([['warning', 'Problem evaluating the invariant br-2']]);
  });
});
