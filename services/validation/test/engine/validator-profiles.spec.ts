/**
 * Profiles, slicing, extensions, references, Bundles and bindings. The profiles here are
 * hand-written differentials; their snapshots are generated on first use.
 */
import { expect } from 'chai';
import { Validator } from '#validation/domain/engine/validator.js';
import type { TerminologyPort, ValidateCodeRequest } from '#validation/domain/ports/terminology.js';
import { FakeTerminology } from '../terminology/support/fake-terminology.js';
import { sourceWith } from './support/core-definitions.js';
import { describe_, errorsOf, issuesWith, profile } from './support/helpers.js';

const BASE = 'http://example.org/fhir/StructureDefinition/';
const narrative = { status: 'generated', div: '<div xmlns="http://www.w3.org/1999/xhtml">x</div>' };

const patientProfile = profile(BASE + 'strict-patient', 'Patient', [
  { id: 'Patient.identifier', path: 'Patient.identifier', min: 1, slicing: { discriminator: [{ type: 'value', path: 'system' }], rules: 'closed' } },
  { id: 'Patient.identifier:mrn', path: 'Patient.identifier', sliceName: 'mrn', min: 1, max: '1' },
  { id: 'Patient.identifier:mrn.system', path: 'Patient.identifier.system', min: 1, fixedUri: 'http://example.org/mrn' },
  { id: 'Patient.identifier:ssn', path: 'Patient.identifier', sliceName: 'ssn', min: 0, max: '1' },
  { id: 'Patient.identifier:ssn.system', path: 'Patient.identifier.system', min: 1, fixedUri: 'http://example.org/ssn' },
  { id: 'Patient.name', path: 'Patient.name', min: 1 },
  { id: 'Patient.name.family', path: 'Patient.name.family', maxLength: 5 },
  { id: 'Patient.gender', path: 'Patient.gender', fixedCode: 'female' },
  { id: 'Patient.maritalStatus', path: 'Patient.maritalStatus', patternCodeableConcept: { coding: [{ system: 'http://terminology.hl7.org/CodeSystem/v3-MaritalStatus', code: 'M' }] } },
  { id: 'Patient.multipleBirth[x]', path: 'Patient.multipleBirth[x]', type: [{ code: 'integer' }], minValueInteger: 1, maxValueInteger: 5 },
]);

const obsProfile = profile(BASE + 'typed-observation', 'Observation', [
  { id: 'Observation.value[x]', path: 'Observation.value[x]', type: [{ code: 'Quantity' }] },
  { id: 'Observation.component', path: 'Observation.component', slicing: { discriminator: [{ type: 'exists', path: 'value' }], rules: 'open' } },
  { id: 'Observation.component:withValue', path: 'Observation.component', sliceName: 'withValue', min: 1, max: '1' },
  { id: 'Observation.component:withValue.value[x]', path: 'Observation.component.value[x]', min: 1 },
]);

const birthPlaceUrl = 'http://hl7.org/fhir/StructureDefinition/patient-birthPlace';

describe('engine: profiles, slicing, extensions, references, Bundles, bindings', function () {
  this.timeout(60_000);
  let v: Validator;
  before(async () => {
    v = new Validator(await sourceWith([patientProfile, obsProfile]));
  });

  const goodPatient = () => ({
    resourceType: 'Patient', id: 'p1', text: narrative, meta: { profile: [BASE + 'strict-patient'] },
    identifier: [{ system: 'http://example.org/mrn', value: '1' }, { system: 'http://example.org/ssn', value: '2' }],
    name: [{ family: 'Doe' }], gender: 'female', multipleBirthInteger: 2,
    maritalStatus: { coding: [{ system: 'http://terminology.hl7.org/CodeSystem/v3-MaritalStatus', code: 'M', display: 'Married' }] },
  });

  describe('profiles', () => {
    it('accepts a resource that conforms to its meta.profile', () => {
      const o = v.validate(goodPatient());
      expect(errorsOf(o), describe_(o)).to.deep.equal([]);
    });

    it("warns with exactly `Can't find profile <url>` and still validates against core", () => {
      const o = v.validate({ resourceType: 'Patient', text: narrative, meta: { profile: ['http://example.org/missing'] }, gender: 'x  y' });
      const w = issuesWith(o, "Can't find profile http://example.org/missing");
      expect(w).to.have.length(1);
      expect(w[0]?.severity).to.equal('warning');
      expect(w[0]?.details.text).to.equal("Can't find profile http://example.org/missing");
      expect(issuesWith(o, 'whitespace rules')).to.have.length(1);
    });

    it('validates against profiles named by the caller', () => {
      const o = v.validate({ resourceType: 'Patient', text: narrative }, { profiles: [BASE + 'strict-patient'] });
      expect(issuesWith(o, `Patient.name: minimum required = 1, but only found 0 (from ${BASE}strict-patient|1.0.0)`, 'Patient')).to.have.length(1);
    });

    it('checks profile cardinality, maxLength, fixed, pattern and min/max values', () => {
      const p = { ...goodPatient(), name: [{ family: 'Doeringer' }], gender: 'male', multipleBirthInteger: 9, maritalStatus: { coding: [{ system: 'http://terminology.hl7.org/CodeSystem/v3-MaritalStatus', code: 'S' }] } };
      const o = v.validate(p);
      expect(issuesWith(o, 'value is longer than permitted maximum length of 5', 'Patient.name[0].family'), describe_(o)).to.have.length(1);
      expect(issuesWith(o, "Value is 'male' but must be 'female'", 'Patient.gender')).to.have.length(1);
      expect(issuesWith(o, 'The pattern [system http://terminology.hl7.org/CodeSystem/v3-MaritalStatus, code M, and display \'\'] defined in the profile', 'Patient.maritalStatus')).to.have.length(1);
      expect(issuesWith(o, 'integer value is greater than permitted maximum value of 5', 'Patient.multipleBirth.ofType(integer)'), describe_(o)).to.have.length(1);
    });

    it('reports a choice type the profile does not allow', () => {
      const o = v.validate({ resourceType: 'Observation', status: 'final', code: { text: 'x' }, valueString: 'a', component: [{ code: { text: 'c' }, valueBoolean: true }] }, { profiles: [BASE + 'typed-observation'] });
      expect(issuesWith(o, 'definition allows for the type Quantity but found type string', 'Observation.value.ofType(string)'), describe_(o)).to.have.length(1);
    });
  });

  describe('slicing', () => {
    it('value discriminator, closed: an unmatched element is reported with the HL7 wording', () => {
      const p = { ...goodPatient(), identifier: [{ system: 'http://example.org/mrn', value: '1' }, { system: 'http://other', value: '3' }] };
      const o = v.validate(p);
      expect(issuesWith(o, `This element does not match any known slice defined in the profile ${BASE}strict-patient|1.0.0`, 'Patient.identifier[1]'), describe_(o)).to.have.length(1);
    });

    it('open slicing: an element matching no slice is a hint (information), not an error', async () => {
      const open = profile(BASE + 'open-patient', 'Patient', [
        { id: 'Patient.identifier', path: 'Patient.identifier', slicing: { discriminator: [{ type: 'value', path: 'system' }], rules: 'open' } },
        { id: 'Patient.identifier:mrn', path: 'Patient.identifier', sliceName: 'mrn' },
        { id: 'Patient.identifier:mrn.system', path: 'Patient.identifier.system', fixedUri: 'http://example.org/mrn' },
      ]);
      const ov = new Validator(await sourceWith([open]));
      const o = ov.validate({ resourceType: 'Patient', text: narrative, identifier: [{ system: 'http://other', value: '1' }] }, { profiles: [BASE + 'open-patient'] });
      expect(errorsOf(o), describe_(o)).to.deep.equal([]);
      const hint = issuesWith(o, `This element does not match any known slice defined in the profile ${BASE}open-patient|1.0.0`, 'Patient.identifier[0]');
      expect(hint).to.have.length(1);
      expect(hint[0]?.severity).to.equal('information');
    });

    it('slice cardinality: a required slice missing, and a slice over its maximum', () => {
      const missing = v.validate({ ...goodPatient(), identifier: [{ system: 'http://example.org/ssn', value: '2' }] });
      expect(issuesWith(missing, "Slice 'Patient.identifier:mrn': a matching slice is required, but not found", 'Patient'), describe_(missing)).to.have.length(1);
      const twice = v.validate({ ...goodPatient(), identifier: [{ system: 'http://example.org/mrn', value: '1' }, { system: 'http://example.org/mrn', value: '2' }] });
      expect(issuesWith(twice, 'Patient.identifier:mrn: max allowed = 1, but found 2', 'Patient'), describe_(twice)).to.have.length(1);
    });

    it('exists discriminator', () => {
      const base = { resourceType: 'Observation', status: 'final', code: { text: 'x' }, valueQuantity: { value: 1 } };
      const ok = v.validate({ ...base, component: [{ code: { text: 'a' } }, { code: { text: 'b' }, valueBoolean: true }] }, { profiles: [BASE + 'typed-observation'] });
      expect(errorsOf(ok), describe_(ok)).to.deep.equal([]);
      const bad = v.validate({ ...base, component: [{ code: { text: 'a' } }] }, { profiles: [BASE + 'typed-observation'] });
      expect(issuesWith(bad, "Slice 'Observation.component:withValue': a matching slice is required")).to.have.length(1);
    });

    it('re-slicing: a slice sliced again checks its own slices', async () => {
      const resliced = profile(BASE + 'resliced-patient', 'Patient', [
        { id: 'Patient.identifier', path: 'Patient.identifier', slicing: { discriminator: [{ type: 'value', path: 'system' }], rules: 'open' } },
        { id: 'Patient.identifier:mrn', path: 'Patient.identifier', sliceName: 'mrn', min: 0, max: '*', slicing: { discriminator: [{ type: 'value', path: 'use' }], rules: 'open' } },
        { id: 'Patient.identifier:mrn.system', path: 'Patient.identifier.system', fixedUri: 'http://example.org/mrn' },
        { id: 'Patient.identifier:mrn/official', path: 'Patient.identifier', sliceName: 'mrn/official', min: 1, max: '1' },
        { id: 'Patient.identifier:mrn/official.use', path: 'Patient.identifier.use', fixedCode: 'official' },
      ]);
      const rv = new Validator(await sourceWith([resliced]));
      const opts = { profiles: [BASE + 'resliced-patient'] };
      const ok = rv.validate({ resourceType: 'Patient', text: narrative, identifier: [{ system: 'http://example.org/mrn', use: 'official', value: '1' }] }, opts);
      expect(errorsOf(ok), describe_(ok)).to.deep.equal([]);
      const bad = rv.validate({ resourceType: 'Patient', text: narrative, identifier: [{ system: 'http://example.org/mrn', use: 'usual', value: '1' }] }, opts);
      expect(issuesWith(bad, "Slice 'Patient.identifier:mrn/official': a matching slice is required", 'Patient'), describe_(bad)).to.have.length(1);
      // as HL7 counts each re-slice: with no item in the slice, none is in its re-slice either
      const otherSystem = rv.validate({ resourceType: 'Patient', text: narrative, identifier: [{ system: 'http://example.org/other', value: '1' }] }, opts);
      expect(issuesWith(otherSystem, "Slice 'Patient.identifier:mrn/official': a matching slice is required", 'Patient'), describe_(otherSystem)).to.have.length(1);
      const none = rv.validate({ resourceType: 'Patient', text: narrative }, opts);
      expect(issuesWith(none, "Slice 'Patient.identifier:mrn/official': a matching slice is required", 'Patient'), describe_(none)).to.have.length(1);
    });

    it('ordered and openAtEnd slicing', async () => {
      const ordered = profile(BASE + 'ordered-patient', 'Patient', [
        { id: 'Patient.identifier', path: 'Patient.identifier', slicing: { discriminator: [{ type: 'value', path: 'system' }], rules: 'openAtEnd', ordered: true } },
        { id: 'Patient.identifier:a', path: 'Patient.identifier', sliceName: 'a' },
        { id: 'Patient.identifier:a.system', path: 'Patient.identifier.system', fixedUri: 'http://a' },
        { id: 'Patient.identifier:b', path: 'Patient.identifier', sliceName: 'b' },
        { id: 'Patient.identifier:b.system', path: 'Patient.identifier.system', fixedUri: 'http://b' },
      ]);
      const ov = new Validator(await sourceWith([ordered]));
      const opts = { profiles: [BASE + 'ordered-patient'] };
      const ok = ov.validate({ resourceType: 'Patient', text: narrative, identifier: [{ system: 'http://a' }, { system: 'http://b' }, { system: 'http://other' }] }, opts);
      expect(errorsOf(ok), describe_(ok)).to.deep.equal([]);
      // as HL7: an item's slice is compared with the previous item's; openAtEnd is checked as open
      const bad = ov.validate({ resourceType: 'Patient', text: narrative, identifier: [{ system: 'http://b' }, { system: 'http://a' }, { system: 'http://other' }] }, opts);
      expect(errorsOf(bad).map((i) => i.expression?.[0]), describe_(bad)).to.deep.equal(['Patient.identifier[1]']);
      expect(issuesWith(bad, `As specified by profile ${BASE}ordered-patient|1.0.0, Element 'identifier' is out of order in ordered slice`, 'Patient.identifier[1]')).to.have.length(1);
      const notAtEnd = ov.validate({ resourceType: 'Patient', text: narrative, identifier: [{ system: 'http://b' }, { system: 'http://other' }, { system: 'http://a' }] }, opts);
      expect(errorsOf(notAtEnd), describe_(notAtEnd)).to.deep.equal([]);
    });

    it('pattern discriminator on a CodeableConcept', async () => {
      const catProfile = profile(BASE + 'categorised-observation', 'Observation', [
        { id: 'Observation.category', path: 'Observation.category', slicing: { discriminator: [{ type: 'pattern', path: '$this' }], rules: 'open' }, min: 1 },
        { id: 'Observation.category:lab', path: 'Observation.category', sliceName: 'lab', min: 1, max: '1', patternCodeableConcept: { coding: [{ system: 'http://terminology.hl7.org/CodeSystem/observation-category', code: 'laboratory' }] } },
      ]);
      const pv = new Validator(await sourceWith([catProfile]));
      const opts = { profiles: [BASE + 'categorised-observation'] };
      const base = { resourceType: 'Observation', text: narrative, status: 'final', code: { text: 'x' } };
      const ok = pv.validate({ ...base, category: [{ coding: [{ system: 'http://terminology.hl7.org/CodeSystem/observation-category', code: 'laboratory', display: 'Laboratory' }] }] }, opts);
      expect(errorsOf(ok), describe_(ok)).to.deep.equal([]);
      const bad = pv.validate({ ...base, category: [{ coding: [{ system: 'http://terminology.hl7.org/CodeSystem/observation-category', code: 'vital-signs' }] }] }, opts);
      expect(issuesWith(bad, "Slice 'Observation.category:lab': a matching slice is required", 'Observation'), describe_(bad)).to.have.length(1);
    });

    it('profile discriminator: Bundle entries sliced by the profile their resource conforms to', async () => {
      const namedPatient = profile(BASE + 'named-patient', 'Patient', [{ id: 'Patient.name', path: 'Patient.name', min: 1 }]);
      const bundleProfile = profile(BASE + 'patient-bundle', 'Bundle', [
        { id: 'Bundle.entry', path: 'Bundle.entry', slicing: { discriminator: [{ type: 'profile', path: 'resource' }], rules: 'closed' } },
        { id: 'Bundle.entry:patient', path: 'Bundle.entry', sliceName: 'patient', min: 1, max: '1' },
        { id: 'Bundle.entry:patient.resource', path: 'Bundle.entry.resource', type: [{ code: 'Patient', profile: [BASE + 'named-patient'] }] },
      ]);
      const bv = new Validator(await sourceWith([namedPatient, bundleProfile]));
      const opts = { profiles: [BASE + 'patient-bundle'] };
      const entry = (resource: Record<string, unknown>) => ({ fullUrl: 'urn:uuid:7f0c1a2b-3c4d-4e5f-8a9b-0c1d2e3f4a5b', resource: { text: narrative, ...resource } });
      const ok = bv.validate({ resourceType: 'Bundle', type: 'collection', entry: [entry({ resourceType: 'Patient', name: [{ family: 'x' }] })] }, opts);
      expect(errorsOf(ok), describe_(ok)).to.deep.equal([]);
      const bad = bv.validate({ resourceType: 'Bundle', type: 'collection', entry: [entry({ resourceType: 'Patient' })] }, opts);
      expect(issuesWith(bad, 'This element does not match any known slice', 'Bundle.entry[0]'), describe_(bad)).to.have.length(1);
      expect(issuesWith(bad, "Slice 'Bundle.entry:patient': a matching slice is required", 'Bundle')).to.have.length(1);
    });

    it('type slicing on a choice (core bp profile): a type without a slice is reported', () => {
      const o = v.validate({ resourceType: 'Observation', status: 'final', code: { text: 'x' }, valueString: 'a' }, { profiles: ['http://hl7.org/fhir/StructureDefinition/bp'] });
      expect(errorsOf(o).length, describe_(o)).to.be.greaterThan(0);
    });
  });

  describe('extensions', () => {
    it('validates a known extension against its definition (value type)', () => {
      const ok = v.validate({ resourceType: 'Patient', text: narrative, extension: [{ url: birthPlaceUrl, valueAddress: { city: 'Paris' } }] });
      expect(errorsOf(ok), describe_(ok)).to.deep.equal([]);
      const bad = v.validate({ resourceType: 'Patient', text: narrative, extension: [{ url: birthPlaceUrl, valueString: 'Paris' }] });
      expect(issuesWith(bad, `The Extension '${birthPlaceUrl}' definition allows for the types [Address] but found type string`, 'Patient.extension[0]'), describe_(bad)).to.have.length(1);
    });

    it('reports an unknown extension with the HL7 wording, and an unknown modifier extension as an error', () => {
      const o = v.validate({ resourceType: 'Patient', text: narrative, extension: [{ url: 'http://vendor.test/unknown-ext', valueString: 'x' }], modifierExtension: [{ url: 'http://vendor.test/unknown-mod', valueString: 'x' }] });
      expect(issuesWith(o, 'The extension http://vendor.test/unknown-ext is unknown, and not allowed here', 'Patient.extension[0]')).to.have.length(1);
      expect(issuesWith(o, 'The extension http://vendor.test/unknown-mod is unknown, and not allowed here', 'Patient.modifierExtension[0]')[0]?.severity).to.equal('error');
    });

    it('a non-modifier extension may not sit in modifierExtension', () => {
      const o = v.validate({ resourceType: 'Patient', text: narrative, modifierExtension: [{ url: birthPlaceUrl, valueAddress: { city: 'Paris' } }] });
      expect(issuesWith(o, `The Extension '${birthPlaceUrl}' must not be used as a modifierExtension (it's a regular extension)`, `Patient.modifierExtension[0][url='${birthPlaceUrl}']`), describe_(o)).to.have.length(1);
    });

    it('checks the extension context (where an extension may be used)', async () => {
      const patientOnly = profile('http://example.org/ext/patient-only', 'Extension', [
        { id: 'Extension.url', path: 'Extension.url', fixedUri: 'http://example.org/ext/patient-only' },
        { id: 'Extension.value[x]', path: 'Extension.value[x]', type: [{ code: 'string' }] },
      ], { context: [{ type: 'element', expression: 'Patient' }] });
      const cv = new Validator(await sourceWith([patientOnly]));
      const ext = [{ url: 'http://example.org/ext/patient-only', valueString: 'x' }];
      const ok = cv.validate({ resourceType: 'Patient', text: narrative, extension: ext });
      expect(errorsOf(ok), describe_(ok)).to.deep.equal([]);
      const bad = cv.validate({ resourceType: 'Observation', text: narrative, status: 'final', code: { text: 'x' }, extension: ext });
      expect(issuesWith(bad, 'is not allowed to be used at this point (allowed = e:Patient; this element is [Observation])', 'Observation'), describe_(bad)).to.have.length(1);
    });

    it('complex extensions: sub-extensions with relative urls are checked by the parent definition', async () => {
      const complex = profile('http://example.org/ext/complex', 'Extension', [
        { id: 'Extension.extension', path: 'Extension.extension', slicing: { discriminator: [{ type: 'value', path: 'url' }], rules: 'closed' } },
        { id: 'Extension.extension:part', path: 'Extension.extension', sliceName: 'part', min: 1, max: '1' },
        { id: 'Extension.extension:part.url', path: 'Extension.extension.url', fixedUri: 'part' },
        { id: 'Extension.extension:part.value[x]', path: 'Extension.extension.value[x]', type: [{ code: 'string' }] },
        { id: 'Extension.url', path: 'Extension.url', fixedUri: 'http://example.org/ext/complex' },
        { id: 'Extension.value[x]', path: 'Extension.value[x]', max: '0' },
      ], { context: [{ type: 'element', expression: 'Patient' }] });
      const ev = new Validator(await sourceWith([complex]));
      const ok = ev.validate({ resourceType: 'Patient', text: narrative, extension: [{ url: 'http://example.org/ext/complex', extension: [{ url: 'part', valueString: 'a' }] }] });
      expect(errorsOf(ok), describe_(ok)).to.deep.equal([]);
      const bad = ev.validate({ resourceType: 'Patient', text: narrative, extension: [{ url: 'http://example.org/ext/complex', extension: [{ url: 'other', valueString: 'a' }] }] });
      expect(issuesWith(bad, "Slice 'Extension.extension:part': a matching slice is required", 'Patient.extension[0]'), describe_(bad)).to.have.length(1);
      expect(issuesWith(bad, 'This element does not match any known slice', 'Patient.extension[0].extension[0]')).to.have.length(1);
    });
  });

  describe('references', () => {
    it('checks the target type implied by the reference', () => {
      const ok = v.validate({ resourceType: 'Observation', text: narrative, status: 'final', code: { text: 'x' }, subject: { reference: 'Patient/1' } });
      expect(errorsOf(ok), describe_(ok)).to.deep.equal([]);
      const bad = v.validate({ resourceType: 'Observation', text: narrative, status: 'final', code: { text: 'x' }, subject: { reference: 'Medication/1' } });
      expect(issuesWith(bad, "The type 'Medication' implied by the reference URL Medication/1 is not a valid Target for this element", 'Observation.subject')).to.have.length(1);
    });

    it('resolves local references to contained resources', () => {
      const bad = v.validate({ resourceType: 'Observation', text: narrative, status: 'final', code: { text: 'x' }, subject: { reference: '#nope' } });
      expect(issuesWith(bad, "Unable to resolve resource with reference '#nope'", 'Observation.subject')).to.have.length(1);
    });

    it('warns about a reference with neither reference, identifier nor display', () => {
      const o = v.validate({ resourceType: 'Observation', text: narrative, status: 'final', code: { text: 'x' }, subject: { type: 'Patient' } });
      expect(issuesWith(o, 'A Reference without an actual reference or identifier should have a display')[0]?.severity).to.equal('warning');
    });
  });

  describe('Bundles', () => {
    const bundle = (entries: unknown[]) => ({ resourceType: 'Bundle', type: 'collection', entry: entries });

    it('validates each entry resource on its own, locating issues with ofType/where', () => {
      const o = v.validate(bundle([
        { fullUrl: 'http://example.org/fhir/Patient/p1', resource: { resourceType: 'Patient', id: 'p1', text: narrative } },
        { fullUrl: 'http://example.org/fhir/Encounter/e1', resource: { resourceType: 'Encounter', id: 'e1', text: narrative, status: 'finished', class: { system: 'x', code: 'IMP' }, subject: { reference: 'Patient/p1' }, period: { start: '2020-01-01T10:00:00' } } },
      ]));
      expect(issuesWith(o, 'If a date has a time, it must have a timezone', "Bundle.entry[1].resource.ofType(Encounter).where(id = 'e1').period.start"), describe_(o)).to.have.length(1);
      expect(errorsOf(o)).to.have.length(1);
    });

    it('applies each entry\'s meta.profile', () => {
      const o = v.validate(bundle([{ fullUrl: 'urn:uuid:3d6b2c7e-9f7a-4c1e-8f3b-1a2b3c4d5e6f', resource: { resourceType: 'Patient', text: narrative, meta: { profile: [BASE + 'strict-patient'] } } }]));
      expect(issuesWith(o, 'Patient.name: minimum required = 1', 'Bundle.entry[0].resource.ofType(Patient)'), describe_(o)).to.have.length(1);
    });

    it('checks fullUrl is absolute and agrees with the resource id, and duplicate ids', () => {
      const o = v.validate(bundle([
        { fullUrl: 'Patient/1', resource: { resourceType: 'Patient', id: '1', text: narrative } },
        { fullUrl: 'http://example.org/fhir/Patient/2', resource: { resourceType: 'Patient', id: '3', text: narrative } },
        { fullUrl: 'http://example.org/fhir/Patient/4', resource: { resourceType: 'Patient', id: '4', text: narrative } },
        { fullUrl: 'http://example.org/fhir/Patient/4', resource: { resourceType: 'Patient', id: '4', text: narrative } },
      ]));
      expect(issuesWith(o, "The fullUrl must be an absolute URL (not 'Patient/1')", 'Bundle.entry[0]')).to.have.length(1);
      // the HL7 validator names the entry of a fullUrl problem Bundle.entry[0], whatever its position
      expect(issuesWith(o, 'must end with the correct type and id (/Patient/3)', 'Bundle.entry[0]')).to.have.length(1);
      expect(issuesWith(o, "Duplicate id value '4'", 'Bundle.entry[3]')).to.have.length(1);
    });

    it('resolves references inside the Bundle and checks the target type', () => {
      const o = v.validate(bundle([
        { fullUrl: 'urn:uuid:5f0c1a2b-3c4d-4e5f-8a9b-0c1d2e3f4a5b', resource: { resourceType: 'Medication', text: narrative } },
        { fullUrl: 'urn:uuid:6f0c1a2b-3c4d-4e5f-8a9b-0c1d2e3f4a5b', resource: { resourceType: 'Observation', text: narrative, status: 'final', code: { text: 'x' }, subject: { reference: 'urn:uuid:5f0c1a2b-3c4d-4e5f-8a9b-0c1d2e3f4a5b' } } },
      ]));
      expect(issuesWith(o, 'Invalid Resource target type. Found Medication', 'Bundle.entry[1].resource.ofType(Observation).subject'), describe_(o)).to.have.length(1);
    });
  });

  describe('bindings (through the terminology port)', () => {
    // Gender codes held; marital status not: "Can't find value set".
    const terminology = new FakeTerminology({
      valueSets: { 'http://hl7.org/fhir/ValueSet/administrative-gender': ['male', 'female', 'other', 'unknown'].map((code) => ({ system: 'http://hl7.org/fhir/administrative-gender', code })) },
    });
    const requests = terminology.requests;

    it('turns a required binding failure into an error and passes terminology issues through', async () => {
      const tv = new Validator(await sourceWith([]), terminology);
      const ok = tv.validate({ resourceType: 'Patient', text: narrative, gender: 'male' });
      expect(errorsOf(ok)).to.deep.equal([]);
      const bad = tv.validate({ resourceType: 'Patient', text: narrative, gender: 'mail', maritalStatus: { coding: [{ system: 'http://x', code: 'y' }] } });
      expect(issuesWith(bad, "The value provided ('mail') is not in the value set", 'Patient.gender')[0]?.severity).to.equal('error');
      const w = issuesWith(bad, "Can't find value set http://hl7.org/fhir/ValueSet/marital-status", 'Patient.maritalStatus');
      expect(w).to.have.length(1);
      expect(w[0]?.severity).to.equal('warning');
      expect(requests.some((r) => r.codings?.[0]?.code === 'y')).to.equal(true);
    });

    it('hands the binding strength, element kind and maxValueSet to the port', async () => {
      const seen: ValidateCodeRequest[] = [];
      const port: TerminologyPort = { validateCode: (r) => { seen.push(r); return { valid: undefined, issues: [], source: 'none' }; } };
      const p = profile(BASE + 'max-vs', 'Observation', [
        { id: 'Observation.code', path: 'Observation.code', binding: { strength: 'extensible', valueSet: 'http://example.org/vs/a', extension: [{ url: 'http://hl7.org/fhir/StructureDefinition/elementdefinition-maxValueSet', valueCanonical: 'http://example.org/vs/max' }] } },
      ]);
      const tv = new Validator(await sourceWith([p]), port);
      tv.validate({ resourceType: 'Observation', text: narrative, status: 'final', code: { coding: [{ system: 'http://x', code: 'a' }, { system: 'http://y', code: 'b' }] } }, { profiles: [BASE + 'max-vs'] });
      const r = seen.find((x) => x.valueSet === 'http://example.org/vs/a');
      expect(r).to.deep.include({ strength: 'extensible', elementKind: 'CodeableConcept', maxValueSet: 'http://example.org/vs/max' });
      expect(r?.codings).to.have.length(2);
    });

    it('awaits asynchronous answers in validateAsync', async () => {
      const slow: TerminologyPort = { validateCode: async () => ({ valid: false, issues: [], source: 'remote' }) };
      const tv = new Validator(await sourceWith([]), slow);
      const o = await tv.validateAsync({ resourceType: 'Patient', text: narrative, gender: 'male' });
      expect(issuesWith(o, "The value provided ('male') was not found in the value set", 'Patient.gender')).to.have.length(1);
    });

    it('answers memberOf() in invariants synchronously from the port', async () => {
      const ext = profile(BASE + 'member-patient', 'Patient', [
        { id: 'Patient', path: 'Patient', constraint: [{ key: 'mem-1', severity: 'error', human: 'gender in set', expression: "gender.memberOf('http://example.org/vs')" }] },
      ]);
      const port: TerminologyPort = { validateCode: () => ({ valid: undefined, issues: [], source: 'none' }), isMemberOf: (c) => c.code === 'female' };
      const tv = new Validator(await sourceWith([ext]), port);
      const ok = tv.validate({ resourceType: 'Patient', text: narrative, gender: 'female' }, { profiles: [BASE + 'member-patient'] });
      expect(errorsOf(ok), describe_(ok)).to.deep.equal([]);
      const bad = tv.validate({ resourceType: 'Patient', text: narrative, gender: 'male' }, { profiles: [BASE + 'member-patient'] });
      expect(issuesWith(bad, "Rule mem-1: 'gender in set' Failed", 'Patient')).to.have.length(1);
    });

    it('reports a malformed invariant once as a warning, never as an error or a crash', async () => {
      const broken = profile(BASE + 'broken-patient', 'Patient', [
        { id: 'Patient.name', path: 'Patient.name', constraint: [{ key: 'brk-1', severity: 'error', human: 'broken', expression: "extension.('x').exists()" }] },
      ]);
      const tv = new Validator(await sourceWith([broken]));
      const o = tv.validate({ resourceType: 'Patient', text: narrative, name: [{ family: 'a' }, { family: 'b' }] }, { profiles: [BASE + 'broken-patient'] });
      expect(errorsOf(o), describe_(o)).to.deep.equal([]);
      // HL7's message for an expression its parser refuses: the expression, the profile and the path
      expect(issuesWith(o, "Problem processing expression 'extension.('x').exists()' in profile").map((i) => i.severity), describe_(o)).to.deep.equal(['warning']);
    });
  });
});
