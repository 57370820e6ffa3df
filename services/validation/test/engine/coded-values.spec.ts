/**
 * HL7's datatype checks on the structural walk: a Coding standing on its own and a Quantity
 * (checkCoding / checkCodedElement / checkCode: rules/coded-values.ts), every Identifier
 * (checkIdentifier: rules/identifiers.ts) and meta.security as a set (validateResourceRules).
 */
import { expect } from 'chai';
import { Validator } from '#validation/domain/engine/validator.js';
import type { ValidationOutcome } from '#validation/domain/engine/outcome/issue.js';
import { LocalTerminology } from '#validation/domain/terminology/local-terminology.js';
import { sourceWith } from './support/core-definitions.js';
import { describe_ } from './support/helpers.js';

const narrative = { status: 'generated', div: '<div xmlns="http://www.w3.org/1999/xhtml">x</div>' };
const tagged = (tag: Record<string, unknown>) => ({ resourceType: 'Patient', id: 'p', text: narrative, meta: { tag: [tag] } });
const identified = (identifier: Record<string, unknown>) => ({ resourceType: 'Patient', id: 'p', text: narrative, identifier: [identifier] });

describe('engine: Codings on their own, Quantities and Identifiers (HL7\'s datatype checks)', function () {
  this.timeout(60_000);
  const validate = async (resource: unknown): Promise<ValidationOutcome> => {
    const source = await sourceWith([{ resourceType: 'CodeSystem', id: 'fruit', url: 'http://fruit.test/CodeSystem/fruit', status: 'active', content: 'complete', concept: [{ code: 'apple' }] }]);
    return new Validator(source, new LocalTerminology(source)).validate(resource);
  };
  /** `severity text` of the issues at `at`, dom-6 aside. */
  const at = (o: ValidationOutcome, path: string) => o.issue.filter((i) => i.expression?.[0] === path).map((i) => `${i.severity} ${i.details.text}`);

  it('warns about a code without a system, and checks the code against its code system', async () => {
    expect(at(await validate(tagged({ code: 'x' })), 'Patient.meta.tag[0]')).to.deep.equal(['warning A code with no system has no defined meaning, and it cannot be validated. A system should be provided']);
    const bogus = await validate(tagged({ system: 'http://hl7.org/fhir/administrative-gender', code: 'bogus' }));
    expect(at(bogus, 'Patient.meta.tag[0]'), describe_(bogus)).to.deep.equal(["error Unknown code 'bogus' in the CodeSystem 'http://hl7.org/fhir/administrative-gender' version '4.0.1'"]);
    const good = await validate(tagged({ system: 'http://fruit.test/CodeSystem/fruit', code: 'apple' }));
    expect(at(good, 'Patient.meta.tag[0]'), describe_(good)).to.deep.equal([]);
  });

  it('refuses system URLs that cannot name a code system', async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ system: 'MRN', code: 'x' }, 'error Coding.system must be an absolute reference, not a local reference'],
      [{ system: 'http://hl7.org/fhir/ValueSet/administrative-gender', code: 'male' }, "error The Coding references a value set, not a code system ('http://hl7.org/fhir/ValueSet/administrative-gender')"],
      [{ system: 'http://build.fhir.org/ig/x/CodeSystem-y', code: 'a' }, 'error The code system reference http://build.fhir.org/ig/x/CodeSystem-y is wrong - the code system reference cannot be a reference to build.fhir.org. This may be the correct reference: {unable to determine intended url}'],
      [{ system: 'http://hl7.org/fhir/codesystem-administrative-gender.html', code: 'male' }, 'error The code system reference http://hl7.org/fhir/codesystem-administrative-gender.html is wrong - the code system reference cannot be to an HTML page. This may be the correct reference: http://hl7.org/fhir/administrative-gender'],
      [{ system: 'http://hl7.org/fhir/no-such-system', code: 'a' }, "error Unknown Code System 'http://hl7.org/fhir/no-such-system'"],
      [{ system: 'http://snomed.info/sct/900000000000207008', code: '123' }, 'error Invalid System URI: http://snomed.info/sct/900000000000207008'],
      [{ system: 'https://loinc.org', code: '1234-5' }, "error The system URL 'https://loinc.org' wrongly starts with https: not http:"],
      [{ system: 'https://fruit.test/CodeSystem/fruit', code: 'apple' }, "error The system URL 'https://fruit.test/CodeSystem/fruit' wrongly starts with https: not http:"],
      [{ system: 'urn:oid:1.2.840.114350.1.13.0.1.7.10.698084', code: 'x' }, "information Code System URI 'urn:oid:1.2.840.114350.1.13.0.1.7.10.698084' is unknown so the code cannot be validated"],
    ];
    for (const [tag, expected] of cases) {
      const o = await validate(tagged(tag));
      expect(at(o, 'Patient.meta.tag[0]'), `${String(tag.system)}: ${describe_(o)}`).to.deep.equal([expected]);
    }
    // HL7's own sid/ and test URLs are left alone, as are example.org systems while examples are allowed
    for (const system of ['http://hl7.org/fhir/sid/us-ssn', 'http://hl7.org/fhir/test/cs', 'http://example.org/cs']) {
      expect(at(await validate(tagged({ system, code: 'x' })), 'Patient.meta.tag[0]'), system).to.deep.equal([]);
    }
  });

  it('leaves a Coding inside a CodeableConcept, and one whose binding checks it, to the binding', async () => {
    const concept = await validate({ resourceType: 'Observation', id: 'o', text: narrative, status: 'final', code: { coding: [{ system: 'https://loinc.org', code: '1234-5' }] } });
    expect(concept.issue.filter((i) => i.details.text.includes('wrongly starts with https')), describe_(concept)).to.deep.equal([]);
    const bound = await validate({ resourceType: 'Encounter', id: 'e', text: narrative, status: 'planned', class: { system: 'https://terminology.hl7.org/CodeSystem/v3-ActCode', code: 'AMB' } });
    expect(bound.issue.filter((i) => i.details.text.includes('wrongly starts with https')), describe_(bound)).to.deep.equal([]);
  });

  it('checks a Quantity\'s system as a Coding\'s', async () => {
    const o = await validate({ resourceType: 'Observation', id: 'o', text: narrative, status: 'final', code: { text: 'x' }, valueQuantity: { value: 1, system: 'https://unitsofmeasure.org', code: 'mg' } });
    expect(at(o, 'Observation.value.ofType(Quantity)'), describe_(o)).to.deep.equal(["error The system URL 'https://unitsofmeasure.org' wrongly starts with https: not http:"]);
  });

  it('checks every Identifier\'s system, and the value the system urn:ietf:rfc:3986 promises', async () => {
    const cases: [Record<string, unknown>, string[]][] = [
      [{ system: 'MRN', value: '1' }, ['error Identifier.system must be an absolute reference, not a local reference']],
      [{ system: 'ldap:o=hospital', value: '1' }, []],
      [{ system: 'urn:ietf:rfc:3986', value: 'abc' }, ["error if identifier.system is 'urn:ietf:rfc:3986', then the identifier.value must be a full URI (e.g. start with a scheme), not 'abc'"]],
      [{ system: 'urn:ietf:rfc:3986', value: 'urn:uuid:6e9ab4b1-8c2b-4b5a-9f40-44b7c2d8e0a1' }, []],
      [{ system: 'https://tools.ietf.org/html/rfc4122', value: '6e9ab4b1-8c2b-4b5a-9f40-44b7c2d8e0a1' }, ["warning The URL 'https://tools.ietf.org/html/rfc4122' should not be used with the UUID '6e9ab4b1-8c2b-4b5a-9f40-44b7c2d8e0a1'. Prefix the value with 'urn:uuid:' and use the system value 'urn:ietf:rfc:3986' instead"]],
      [{ system: 'https://tools.ietf.org/html/rfc4122', value: 'not-a-uuid' }, ["error The URL 'https://tools.ietf.org/html/rfc4122' is not correct for the identifier 'not-a-uuid'"]],
    ];
    for (const [identifier, expected] of cases) {
      const o = await validate(identified(identifier));
      expect(at(o, 'Patient.identifier[0]'), `${JSON.stringify(identifier)}: ${describe_(o)}`).to.deep.equal(expected);
    }
  });

  it('reports a security label given twice', async () => {
    const label = { system: 'http://terminology.hl7.org/CodeSystem/v3-Confidentiality', code: 'R' };
    const o = await validate({ resourceType: 'Patient', id: 'p', text: narrative, meta: { security: [label, { system: label.system, code: 'N' }, label] } });
    expect(o.issue.filter((i) => i.details.text.startsWith('Duplicate Security Label')).map((i) => [i.severity, i.expression?.[0], i.details.text]), describe_(o))
      .to.deep.equal([['error', 'Patient.meta.security[2]', 'Duplicate Security Label http://terminology.hl7.org/CodeSystem/v3-Confidentiality#R']]);
  });
});
