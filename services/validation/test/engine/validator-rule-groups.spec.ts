/**
 * Rule groups of the HL7 suite where the engine once disagreed with the HL7 validator: invariants
 * inside contained resources, core extensions on Bundle entries, extensions derived from another
 * extension, character references in JSON strings, profile claims. Fixtures are hand-written.
 */
import { expect } from 'chai';
import { Validator } from '#validation/domain/engine/validator.js';
import { sourceWith } from './support/core-definitions.js';
import { describe_, errorsOf, issuesWith, profile } from './support/helpers.js';

const narrative = { status: 'generated', div: '<div xmlns="http://www.w3.org/1999/xhtml">x</div>' };
const coding = (code: string) => ({ coding: [{ system: 'http://example.org/codes', code }] });

describe('engine: HL7 rule groups', function () {
  this.timeout(60_000);
  let v: Validator;
  before(async () => {
    const imposing = profile('http://example.org/fhir/StructureDefinition/imposing', 'Patient', [{ id: 'Patient.gender', path: 'Patient.gender', min: 1 }], {
      extension: ['imposed', 'missing'].map((id) => ({ url: 'http://hl7.org/fhir/StructureDefinition/structuredefinition-imposeProfile', valueCanonical: `http://example.org/fhir/StructureDefinition/${id}` })),
    });
    const imposed = profile('http://example.org/fhir/StructureDefinition/imposed', 'Patient', [{ id: 'Patient.birthDate', path: 'Patient.birthDate', min: 1 }]);
    const basicProfile = profile('http://example.org/fhir/StructureDefinition/basic-with-subject', 'Basic', [{ id: 'Basic.subject', path: 'Basic.subject', min: 1 }]);
    const ig = {
      resourceType: 'ImplementationGuide', url: 'http://example.org/fhir/ImplementationGuide/ig', version: '0.1.0', name: 'TestIg', status: 'active', packageId: 'example.ig', fhirVersion: ['4.0.1'],
      global: [{ type: 'Basic', profile: basicProfile.url }, { type: 'Basic', profile: 'http://example.org/fhir/StructureDefinition/nowhere' }],
    };
    const patterned = profile('http://example.org/fhir/StructureDefinition/patterned', 'Observation', [{ id: 'Observation.status', path: 'Observation.status', patternCode: 'final' }]);
    v = new Validator(await sourceWith([imposing, imposed, basicProfile, ig, patterned]));
  });

  describe('invariants of contained resources', () => {
    // obs-7 compares component codes with %resource.code: inside a contained Observation %resource is
    // that Observation (HL7 starts each resource as its own resource), not the DiagnosticReport around it
    const report = (componentCode: string) => ({
      resourceType: 'DiagnosticReport', id: 'dr', text: narrative, status: 'final', code: coding('report'),
      contained: [{ resourceType: 'Observation', id: 'o1', status: 'final', code: coding('obs'), valueString: 'x', component: [{ code: coding(componentCode), valueString: 'y' }] }],
      result: [{ reference: '#o1' }],
    });

    it('evaluates %resource as the contained resource itself', () => {
      const o = v.validate(report('obs'));
      expect(issuesWith(o, 'obs-7', "DiagnosticReport.contained[0].ofType(Observation).where(id = 'o1')"), describe_(o)).to.have.length(1);
    });

    it('does not see the container through %resource', () => {
      const o = v.validate(report('report'));
      expect(issuesWith(o, 'obs-7'), describe_(o)).to.deep.equal([]);
      expect(errorsOf(o), describe_(o)).to.deep.equal([]);
    });
  });

  describe('profile claims with a version-specific url', () => {
    const patient = (profileUrl: string) => ({ resourceType: 'Patient', id: 'p', meta: { profile: [profileUrl] }, text: narrative });

    it('fails a Patient that claims another type this FHIR version defines', () => {
      const o = v.validate(patient('http://hl7.org/fhir/4.0/StructureDefinition/Observation'));
      expect(errorsOf(o).map((i) => [i.expression?.[0], i.details.text]), describe_(o)).to.deep.equal([['Patient.meta.profile[0]', 'Profile is for this version of FHIR, but is an invalid type Observation']]);
    });

    it('accepts its own type in this version, and ignores another version, with a note each', () => {
      const cases: [string, string][] = [['http://hl7.org/fhir/4.0/StructureDefinition/Patient', 'all OK'], ['http://hl7.org/fhir/3.0/StructureDefinition/Patient', 'different version of FHIR (3.0)']];
      for (const [url, text] of cases) {
        const o = v.validate(patient(url));
        expect(errorsOf(o), describe_(o)).to.deep.equal([]);
        expect(o.issue.filter((i) => i.severity === 'information' && i.details.text.includes(text)), describe_(o)).to.have.length(1);
      }
    });
  });

  describe('extension definitions derived from another extension', () => {
    const NATIONALITY = 'http://hl7.org/fhir/StructureDefinition/patient-nationality';
    const derived = (urlElement: Record<string, unknown> | undefined) => ({
      resourceType: 'StructureDefinition', id: 'my-nat', url: 'http://example.org/fhir/StructureDefinition/my-nat', version: '1.0.0', name: 'MyNat', status: 'draft',
      text: narrative, fhirVersion: '4.0.1', kind: 'complex-type', abstract: false, context: [{ type: 'element', expression: 'Patient' }],
      type: 'Extension', baseDefinition: NATIONALITY, derivation: 'constraint',
      differential: { element: [{ id: 'Extension', path: 'Extension', short: 'x' }, ...(urlElement ? [{ id: 'Extension.url', path: 'Extension.url', ...urlElement }] : [])] },
    });

    it('may not fix Extension.url again to another value than the base extension fixes', () => {
      const o = v.validate(derived({ fixedUri: 'http://example.org/fhir/StructureDefinition/my-nat' }));
      expect(errorsOf(o).map((i) => i.expression?.[0]), describe_(o)).to.deep.equal(['Extension.url']);
      expect(issuesWith(o, NATIONALITY, 'Extension.url'), describe_(o)).to.have.length(1);
    });

    it('may not fix it with another type, and passes when it leaves the url alone or repeats it', () => {
      const wrongType = v.validate(derived({ fixedString: NATIONALITY }));
      expect(issuesWith(wrongType, "fixed value of the same type, not 'uri'"), describe_(wrongType)).to.have.length(1);
      for (const ok of [derived(undefined), derived({ fixedUri: NATIONALITY })]) {
        const o = v.validate(ok);
        expect(errorsOf(o), describe_(o)).to.deep.equal([]);
      }
    });
  });

  describe('a derived profile against the pattern of its base', () => {
    const derived = (status: Record<string, unknown>) => ({
      ...profile('http://example.org/fhir/StructureDefinition/derived', 'Observation', [{ id: 'Observation.status', path: 'Observation.status', ...status }]),
      baseDefinition: 'http://example.org/fhir/StructureDefinition/patterned', text: narrative,
    });

    it('may narrow a base pattern with a fixed value, not restate it as a pattern', () => {
      const again = v.validate(derived({ patternCode: 'final' }));
      expect(errorsOf(again).map((i) => i.expression?.[0]), describe_(again)).to.deep.equal(['StructureDefinition.differential.element[1].patternCode']);
      const narrowed = v.validate(derived({ fixedCode: 'final' }));
      expect(errorsOf(narrowed), describe_(narrowed)).to.deep.equal([]);
    });
  });

  describe('profiles a claimed profile imposes', () => {
    it('fails a Patient against a profile its claimed profile imposes, and warns of one not found', () => {
      const o = v.validate({ resourceType: 'Patient', id: 'p', meta: { profile: ['http://example.org/fhir/StructureDefinition/imposing'] }, gender: 'male', text: narrative });
      expect(errorsOf(o).map((i) => i.details.text), describe_(o)).to.deep.equal(['Patient.birthDate: minimum required = 1, but only found 0 (from http://example.org/fhir/StructureDefinition/imposed|1.0.0)']);
      expect(issuesWith(o, 'http://example.org/fhir/StructureDefinition/missing as a dependency', 'Patient.meta.profile[0]').map((i) => i.severity), describe_(o)).to.deep.equal(['warning']);
    });
  });

  describe('global profiles of the ImplementationGuides given', () => {
    it('validates every resource of the type against them, and warns of one not found', () => {
      const basic = (extra: Record<string, unknown>) => ({ resourceType: 'Basic', id: 'b', text: narrative, code: { text: 'x' }, ...extra });
      const bad = v.validate(basic({}));
      expect(errorsOf(bad).map((i) => i.details.text), describe_(bad)).to.deep.equal(['Basic.subject: minimum required = 1, but only found 0 (from http://example.org/fhir/StructureDefinition/basic-with-subject|1.0.0)']);
      expect(issuesWith(bad, "Global Profile reference 'http://example.org/fhir/StructureDefinition/nowhere' from IG http://example.org/fhir/ImplementationGuide/ig|0.1.0").map((i) => i.severity), describe_(bad)).to.deep.equal(['warning']);
      const good = v.validate(basic({ subject: { reference: 'Patient/1' } }));
      expect(errorsOf(good), describe_(good)).to.deep.equal([]);
    });
  });

  describe('character references in a JSON narrative', () => {
    const patient = (div: string) => ({ resourceType: 'Patient', id: 'p', text: { status: 'generated', div: `<div xmlns="http://www.w3.org/1999/xhtml">${div}</div>` } });

    it('reports an HTML entity as illegal in XHTML, and passes numeric and XML references', () => {
      const html = v.validate(patient('a&nbsp;b'));
      expect(errorsOf(html).map((i) => i.details.text), describe_(html)).to.deep.equal(["Illegal entity in the XHTML ('&nbsp;')"]);
      const fine = v.validate(patient('a&#160;b &amp; &lt;c&gt;'));
      expect(errorsOf(fine), describe_(fine)).to.deep.equal([]);
    });

    it('treats an & that starts no reference as a narrative that cannot be parsed (and so fails txt-1)', () => {
      const o = v.validate(patient('AT&T rocks, <a href="http://x.org/?a=1&b=2">x</a>'));
      const errors = errorsOf(o);
      expect(errors.map((i) => i.expression?.[0]), describe_(o)).to.deep.equal(['Patient.text.div', 'Patient.text.div']);
      expect(issuesWith(o, "unable to parse character reference 'T rocks, '"), describe_(o)).to.have.length(1);
      expect(issuesWith(o, 'txt-1'), describe_(o)).to.have.length(1);
    });
  });
});
