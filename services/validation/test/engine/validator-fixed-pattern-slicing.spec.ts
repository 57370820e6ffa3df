/**
 * fixed[x] / pattern[x] on complex values as the HL7 validator's checkFixedValue compares them
 * (each difference where it is), slicing discriminators of type `type` (by the JSON name of a
 * choice) and through `resolve()` (the reference's target), and a profile the caller names that
 * cannot be found.
 */
import { expect } from 'chai';
import { type ValidationOutcome } from '#validation/domain/engine/outcome/issue.js';
import { Validator } from '#validation/domain/engine/validator.js';
import { sourceWith } from './support/core-definitions.js';
import { describe_, errorsOf, profile, engineKeyOf } from './support/helpers.js';

const BASE = 'http://example.org/fhir/StructureDefinition/';
const narrative = { status: 'generated', div: '<div xmlns="http://www.w3.org/1999/xhtml">x</div>' };
const MARITAL = 'http://terminology.hl7.org/CodeSystem/v3-MaritalStatus';

const fixedPatient = profile(BASE + 'fixed-patient', 'Patient', [
  { id: 'Patient.identifier', path: 'Patient.identifier', patternIdentifier: { system: 'http://example.org/mrn' } },
  { id: 'Patient.maritalStatus', path: 'Patient.maritalStatus', fixedCodeableConcept: { coding: [{ system: MARITAL, code: 'M' }] } },
]);
const patternPatient = profile(BASE + 'pattern-patient', 'Patient', [
  { id: 'Patient.maritalStatus', path: 'Patient.maritalStatus', patternCodeableConcept: { coding: [{ system: MARITAL, code: 'M' }] } },
]);
const componentTypes = profile(BASE + 'component-types', 'Observation', [
  { id: 'Observation.component', path: 'Observation.component', slicing: { discriminator: [{ type: 'type', path: 'value' }], rules: 'closed' } },
  { id: 'Observation.component:qty', path: 'Observation.component', sliceName: 'qty', min: 0, max: '1' },
  { id: 'Observation.component:qty.value[x]', path: 'Observation.component.value[x]', min: 1, type: [{ code: 'Quantity' }] },
  { id: 'Observation.component:cc', path: 'Observation.component', sliceName: 'cc', min: 0, max: '1' },
  { id: 'Observation.component:cc.value[x]', path: 'Observation.component.value[x]', min: 1, type: [{ code: 'CodeableConcept' }] },
]);
const finalObservation = profile(BASE + 'final-observation', 'Observation', [
  { id: 'Observation.status', path: 'Observation.status', fixedCode: 'final' },
]);
const membersByProfile = profile(BASE + 'members-by-profile', 'Observation', [
  { id: 'Observation.hasMember', path: 'Observation.hasMember', slicing: { discriminator: [{ type: 'profile', path: 'resolve()' }], rules: 'closed' } },
  { id: 'Observation.hasMember:final', path: 'Observation.hasMember', sliceName: 'final', min: 1, max: '*', type: [{ code: 'Reference', targetProfile: [BASE + 'final-observation'] }] },
]);
const membersByType = profile(BASE + 'members-by-type', 'Observation', [
  { id: 'Observation.hasMember', path: 'Observation.hasMember', slicing: { discriminator: [{ type: 'type', path: 'resolve()' }], rules: 'closed' } },
  { id: 'Observation.hasMember:obs', path: 'Observation.hasMember', sliceName: 'obs', min: 0, max: '*', type: [{ code: 'Reference', targetProfile: ['http://hl7.org/fhir/StructureDefinition/Observation'] }] },
]);
const identifierSlices = profile(BASE + 'identifier-slices', 'Patient', [
  { id: 'Patient.identifier', path: 'Patient.identifier', slicing: { discriminator: [{ type: 'value', path: 'system' }], rules: 'closed' } },
  { id: 'Patient.identifier:mrn', path: 'Patient.identifier', sliceName: 'mrn', min: 0, max: '1' },
  { id: 'Patient.identifier:mrn.system', path: 'Patient.identifier.system', min: 1, fixedUri: 'http://example.org/mrn' },
  { id: 'Patient.identifier:local', path: 'Patient.identifier', sliceName: 'local', min: 0, max: '*' },
  { id: 'Patient.identifier:local.system', path: 'Patient.identifier.system', max: '0' },
]);

const errors = (o: ValidationOutcome) => errorsOf(o).map((i) => `${i.expression?.[0] ?? ''} ${String(engineKeyOf(i))}`);

describe('engine: fixed and pattern values, type and resolve() discriminators', function () {
  this.timeout(60_000);
  let v: Validator;
  before(async () => {
    v = new Validator(await sourceWith([fixedPatient, patternPatient, componentTypes, finalObservation, membersByProfile, membersByType, identifierSlices]));
  });

  const patient = (url: string, more: Record<string, unknown>) => v.validate({ resourceType: 'Patient', id: 'p', text: narrative, meta: { profile: [BASE + url] }, ...more });

  describe('fixed and pattern', () => {
    it('accepts values equal to the fixed value and containing the pattern', () => {
      const o = patient('fixed-patient', { identifier: [{ system: 'http://example.org/mrn', value: '1' }], maritalStatus: { coding: [{ system: MARITAL, code: 'M' }] } });
      expect(errors(o), describe_(o)).to.deep.equal([]);
    });

    it('reports a difference inside a pattern where it is, and an element the pattern needs that is missing', () => {
      const o = patient('fixed-patient', { identifier: [{ system: 'http://example.org/other', value: '1' }, { value: '2' }] });
      expect(errors(o), describe_(o)).to.deep.equal(['Patient.identifier[0].system FIXED_VALUE', 'Patient.identifier[1].system FIXED_MISSING_ELEMENT']);
      expect(errorsOf(o)[0]?.details.text).to.equal("Value is 'http://example.org/other' but must be 'http://example.org/mrn'");
    });

    it('a fixed value allows nothing more: other elements, other codings, extensions', () => {
      const extra = patient('fixed-patient', { maritalStatus: { coding: [{ system: MARITAL, code: 'M' }], text: 'married' } });
      expect(errors(extra), describe_(extra)).to.deep.equal(['Patient.maritalStatus.text FIXED_NOT_ALLOWED']);
      const more = patient('fixed-patient', { maritalStatus: { coding: [{ system: MARITAL, code: 'M' }, { system: MARITAL, code: 'S' }] } });
      expect(errors(more), describe_(more)).to.deep.equal(['Patient.maritalStatus FIXED_COUNT']);
      const ext = patient('fixed-patient', { maritalStatus: { extension: [{ url: 'http://example.org/x', valueString: 'x' }], coding: [{ system: MARITAL, code: 'M' }] } });
      expect(errors(ext), describe_(ext)).to.deep.equal(['Patient.maritalStatus FIXED_EXTENSIONS_BANNED']);
    });

    it('a CodeableConcept pattern needs each pattern coding in at least one coding of the value', () => {
      const ok = patient('pattern-patient', { maritalStatus: { coding: [{ system: MARITAL, code: 'S' }, { system: MARITAL, code: 'M', display: 'Married' }], text: 'x' } });
      expect(errors(ok), describe_(ok)).to.deep.equal([]);
      const bad = patient('pattern-patient', { maritalStatus: { coding: [{ system: MARITAL, code: 'S' }] } });
      expect(errors(bad), describe_(bad)).to.deep.equal(['Patient.maritalStatus PATTERN_CODING_NOT_FOUND']);
      expect(errorsOf(bad)[0]?.details.text).to.match(/^The pattern \[system http:\/\/terminology.hl7.org\/CodeSystem\/v3-MaritalStatus, code M, and display ''\] defined in the profile http:\/\/example.org\/fhir\/StructureDefinition\/pattern-patient\|1.0.0 not found/);
      const none = patient('pattern-patient', { maritalStatus: { text: 'x' } });
      expect(errors(none), describe_(none)).to.deep.equal(['Patient.maritalStatus.coding FIXED_MISSING_ELEMENT']);
    });
  });

  describe('type discriminators', () => {
    const observation = (profileUrl: string, more: Record<string, unknown>) => v.validate({
      resourceType: 'Observation', id: 'o', text: narrative, meta: { profile: [BASE + profileUrl] }, status: 'final', code: { text: 'x' }, ...more,
    });

    it('tells choice values apart by the type their name states', () => {
      const o = observation('component-types', { component: [{ code: { text: 'a' }, valueQuantity: { value: 1 } }, { code: { text: 'b' }, valueCodeableConcept: { text: 'y' } }] });
      expect(errors(o), describe_(o)).to.deep.equal([]);
      const bad = observation('component-types', { component: [{ code: { text: 'a' }, valueQuantity: { value: 1 } }, { code: { text: 'b' }, valueString: 'y' }] });
      expect(errors(bad), describe_(bad)).to.deep.equal(['Observation.component[1] SLICE_UNMATCHED_CLOSED']);
    });

    it('through resolve(): the type of the referenced resource', () => {
      const contained = [{ resourceType: 'Observation', id: 'm1', status: 'final', code: { text: 'm' } }, { resourceType: 'MolecularSequence', id: 'm2', coordinateSystem: 0 }];
      const ok = observation('members-by-type', { contained: contained.slice(0, 1), hasMember: [{ reference: '#m1' }] });
      expect(errors(ok), describe_(ok)).to.deep.equal([]);
      const bad = observation('members-by-type', { contained, hasMember: [{ reference: '#m1' }, { reference: '#m2' }] });
      expect(errors(bad), describe_(bad)).to.deep.equal(['Observation.hasMember[1] SLICE_UNMATCHED_CLOSED']);
    });
  });

  describe('slices that prohibit the discriminating element', () => {
    it('take the items without it, whatever the discriminator type', () => {
      const ok = patient('identifier-slices', { identifier: [{ system: 'http://example.org/mrn', value: '1' }, { value: 'local-1' }] });
      expect(errors(ok), describe_(ok)).to.deep.equal([]);
      const bad = patient('identifier-slices', { identifier: [{ system: 'http://example.org/other', value: '1' }] });
      expect(errors(bad), describe_(bad)).to.deep.equal(['Patient.identifier[0] SLICE_UNMATCHED_CLOSED']);
    });
  });

  describe('type slices of a choice', () => {
    it('a type slice that needs a value is missing when the value has another type or is absent', async () => {
      const quantityOnly = profile(BASE + 'quantity-slice', 'Observation', [
        { id: 'Observation.value[x]', path: 'Observation.value[x]', slicing: { discriminator: [{ type: 'type', path: '$this' }], rules: 'open' } },
        { id: 'Observation.value[x]:valueQuantity', path: 'Observation.value[x]', sliceName: 'valueQuantity', min: 1, max: '1', type: [{ code: 'Quantity' }] },
      ]);
      const qv = new Validator(await sourceWith([quantityOnly]));
      const obs = (more: Record<string, unknown>) => qv.validate({ resourceType: 'Observation', id: 'o', text: narrative, status: 'final', code: { text: 'x' }, ...more }, { profiles: [BASE + 'quantity-slice'] });
      const ok = obs({ valueQuantity: { value: 1 } });
      expect(errors(ok), describe_(ok)).to.deep.equal([]);
      const other = obs({ valueString: 'x' });
      // (type slices of a choice are closed in the snapshot, as HL7's snapshot generator makes them)
      expect(errors(other), describe_(other)).to.deep.equal(['Observation.value.ofType(string) SLICE_UNMATCHED_CLOSED', 'Observation SLICE_REQUIRED_CLOSED']);
      const none = obs({});
      expect(errors(none), describe_(none)).to.deep.equal(['Observation SLICE_REQUIRED_CLOSED']);
    });
  });

  describe('an item matching two slices', () => {
    it('is an error (the first slice keeps it)', async () => {
      const twice = profile(BASE + 'twice-sliced', 'Patient', [
        { id: 'Patient.identifier', path: 'Patient.identifier', slicing: { discriminator: [{ type: 'value', path: 'system' }], rules: 'open' } },
        { id: 'Patient.identifier:a', path: 'Patient.identifier', sliceName: 'a', max: '1' },
        { id: 'Patient.identifier:a.system', path: 'Patient.identifier.system', fixedUri: 'http://example.org/a' },
        { id: 'Patient.identifier:b', path: 'Patient.identifier', sliceName: 'b' },
        { id: 'Patient.identifier:b.system', path: 'Patient.identifier.system', fixedUri: 'http://example.org/a' },
      ]);
      const tv = new Validator(await sourceWith([twice]));
      const o = tv.validate({ resourceType: 'Patient', id: 'p', text: narrative, identifier: [{ system: 'http://example.org/a', value: '1' }] }, { profiles: [BASE + 'twice-sliced'] });
      expect(errors(o), describe_(o)).to.deep.equal(['Patient.identifier[0] SLICE_MATCH_MULTIPLE']);
      expect(errorsOf(o)[0]?.details.text).to.equal(`Profile ${BASE}twice-sliced|1.0.0, Element matches more than one slice - a, b`);
    });
  });

  describe('profile discriminators through resolve()', () => {
    it('match the referenced resource against the target profile', () => {
      const v2 = (status: string) => v.validate({
        resourceType: 'Observation', id: 'o', text: narrative, meta: { profile: [BASE + 'members-by-profile'] }, status: 'final', code: { text: 'x' },
        contained: [{ resourceType: 'Observation', id: 'm1', status, code: { text: 'm' } }], hasMember: [{ reference: '#m1' }],
      });
      const ok = v2('final');
      expect(errors(ok), describe_(ok)).to.deep.equal([]);
      const bad = v2('preliminary');
      expect(errors(bad), describe_(bad)).to.deep.equal(['Observation.hasMember[0] SLICE_UNMATCHED_CLOSED', 'Observation SLICE_REQUIRED_CLOSED']);
    });
  });

  describe('profiles that cannot be found', () => {
    it('a resource inside another: a type the profile does not allow, or a profile for it that cannot be found, is an error', async () => {
      const patientParams = profile(BASE + 'patient-params', 'Parameters', [
        { id: 'Parameters.parameter.resource', path: 'Parameters.parameter.resource', type: [{ code: 'Patient' }] },
      ]);
      const missingParams = profile(BASE + 'missing-params', 'Parameters', [
        { id: 'Parameters.parameter.resource', path: 'Parameters.parameter.resource', type: [{ code: 'Resource', profile: [BASE + 'no-such-patient'] }] },
      ]);
      const pv = new Validator(await sourceWith([patientParams, missingParams]));
      const params = (url: string, resource: Record<string, unknown>) => pv.validate({ resourceType: 'Parameters', meta: { profile: [BASE + url] }, parameter: [{ name: 'p', resource }] });
      const ok = params('patient-params', { resourceType: 'Patient', id: 'p', text: narrative });
      expect(errors(ok), describe_(ok)).to.deep.equal([]);
      const wrongType = params('patient-params', { resourceType: 'Basic', id: 'b', text: narrative, code: { text: 'x' } });
      expect(errors(wrongType), describe_(wrongType)).to.deep.equal(["Parameters.parameter[0].resource.ofType(Basic).where(id = 'b') BUNDLE_BUNDLE_ENTRY_TYPE"]);
      const missing = params('missing-params', { resourceType: 'Patient', id: 'p', text: narrative });
      expect(errors(missing), describe_(missing)).to.deep.equal(["Parameters.parameter[0].resource.ofType(Patient).where(id = 'p') PROFILE_NOT_FOUND"]);
    });

    it('a type profile that cannot be found is an error where a value of the type is', async () => {
      const named = profile(BASE + 'missing-type-profile', 'Patient', [
        { id: 'Patient.name', path: 'Patient.name', type: [{ code: 'HumanName', profile: [BASE + 'no-such-name'] }] },
      ]);
      const nv = new Validator(await sourceWith([named]));
      const opts = { profiles: [BASE + 'missing-type-profile'] };
      const without = nv.validate({ resourceType: 'Patient', id: 'p', text: narrative }, opts);
      expect(errors(without), describe_(without)).to.deep.equal([]);
      const o = nv.validate({ resourceType: 'Patient', id: 'p', text: narrative, name: [{ family: 'x' }] }, opts);
      expect(errors(o), describe_(o)).to.deep.equal(['Patient.name[0] VALIDATION_VAL_UNKNOWN_PROFILE']);
      expect(errorsOf(o)[0]?.details.text).to.equal(`Unknown profile ${BASE}no-such-name`);
    });

    it('a warning when named in meta.profile, an error when the caller names it', () => {
      const meta = v.validate({ resourceType: 'Patient', id: 'p', text: narrative, meta: { profile: [BASE + 'missing'] } });
      expect(meta.issue.filter((i) => engineKeyOf(i) === 'PROFILE_NOT_FOUND').map((i) => [i.severity, i.expression?.[0]])).to.deep.equal([['warning', 'Patient.meta.profile[0]']]);
      const caller = v.validate({ resourceType: 'Patient', id: 'p', text: narrative }, { profiles: [BASE + 'missing'] });
      expect(errors(caller), describe_(caller)).to.deep.equal(['Patient PROFILE_NOT_FOUND']);
    });
  });
});

describe('engine: an item in a slice follows the slice and the sliced element (HL7 checks it against both)', function () {
  this.timeout(60_000);
  // what the differential says of the sliced element's children (before the slices) holds in each slice
  const noExtensions = profile(BASE + 'plain-parameters', 'Parameters', [
    { id: 'Parameters.parameter', path: 'Parameters.parameter', slicing: { discriminator: [{ type: 'value', path: 'name' }], rules: 'open' } },
    { id: 'Parameters.parameter.extension', path: 'Parameters.parameter.extension', max: '0' },
    { id: 'Parameters.parameter.value[x]', path: 'Parameters.parameter.value[x]', type: [{ code: 'string' }, { code: 'integer' }] },
    { id: 'Parameters.parameter:count', path: 'Parameters.parameter', sliceName: 'count', min: 1, max: '1' },
    { id: 'Parameters.parameter:count.name', path: 'Parameters.parameter.name', fixedString: 'count' },
    { id: 'Parameters.parameter:count.value[x]', path: 'Parameters.parameter.value[x]', min: 1, type: [{ code: 'integer' }] },
  ]);
  let v: Validator;
  before(async () => {
    v = new Validator(await sourceWith([noExtensions]));
  });
  const params = (parameter: unknown[]) => ({ resourceType: 'Parameters', meta: { profile: [BASE + 'plain-parameters'] }, parameter });
  const texts = (o: ValidationOutcome) => errorsOf(o).map((i) => `${i.expression?.[0]} ${i.details.text?.replace(/ \(from .*$/, '')}`).sort();

  it('a constraint on the sliced element\'s child is reported for the slice and for the sliced element, each by its id', () => {
    const ext = [{ url: 'http://hl7.org/fhir/StructureDefinition/data-absent-reason', valueCode: 'unknown' }];
    const o = v.validate(params([{ name: 'count', valueInteger: 2, extension: ext }, { name: 'other', valueString: 'x', extension: ext }]));
    expect(texts(o), describe_(o)).to.deep.equal([
      'Parameters.parameter[0] Parameters.parameter.extension: max allowed = 0, but found 1',
      'Parameters.parameter[0] Parameters.parameter:count.extension: max allowed = 0, but found 1',
      'Parameters.parameter[1] Parameters.parameter.extension: max allowed = 0, but found 1',
    ]);
  });

  it('items that follow both pass', () => {
    const o = v.validate(params([{ name: 'count', valueInteger: 2 }, { name: 'other', valueString: 'x' }]));
    expect(errorsOf(o), describe_(o)).to.deep.equal([]);
  });
});
