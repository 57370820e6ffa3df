/**
 * The structural walk against R4 core: JSON shape, unknown properties, cardinality, choice
 * types, primitives, invariants, locations and message ids. Fixtures are hand-written.
 */
import { expect } from 'chai';
import { Validator } from '#validation/domain/engine/validator.js';
import { EXT_COL, EXT_LINE, EXT_MESSAGE_ID } from '#validation/domain/engine/outcome/issue.js';
import { coreSource } from './support/core-definitions.js';
import { describe_, errorsOf, issuesWith } from './support/helpers.js';

describe('engine: structural validation against R4 core', function () {
  this.timeout(60_000);
  let v: Validator;
  before(async () => {
    v = new Validator(await coreSource());
  });

  const narrativeOf = () => ({ status: 'generated', div: '<div xmlns="http://www.w3.org/1999/xhtml">x</div>' });
  const patient = (extra: Record<string, unknown> = {}) => ({ resourceType: 'Patient', id: 'p1', text: { status: 'generated', div: '<div xmlns="http://www.w3.org/1999/xhtml">x</div>' }, ...extra });

  describe('JSON', () => {
    it('accepts a valid resource given as text and reports no errors', () => {
      const o = v.validate(JSON.stringify(patient({ gender: 'female', name: [{ family: 'Doe', given: ['Jane', 'Q'] }] })));
      expect(errorsOf(o), describe_(o)).to.deep.equal([]);
    });

    it('reports a syntax error as fatal with line and column, never throwing', () => {
      const o = v.validate('{\n  "resourceType": "Patient",\n  "id": "p1" #\n}');
      const fatal = o.issue.find((i) => i.severity === 'fatal')!;
      expect(fatal.details.text).to.match(/^Error parsing JSON: Error parsing JSON source: Unexpected content '#'/);
      expect(fatal.extension?.find((e) => e.url === EXT_LINE)?.valueInteger).to.equal(3);
      expect(fatal.extension?.find((e) => e.url === EXT_COL)?.valueInteger).to.equal(14);
    });

    it('reports comments, duplicate properties, missing and trailing commas', () => {
      const o = v.validate('// c\n{"resourceType":"Patient","id":"a","gender":"male","gender":"female","name":[{"family":"x" "given":["a",]}]}');
      expect(issuesWith(o, 'Comments are not allowed in JSON', 'Patient')).to.have.length(1);
      expect(issuesWith(o, "The JSON property 'gender' is a duplicate")).to.have.length(1);
      expect(issuesWith(o, 'A Comma is missing in the JSON', 'Patient.name[0]')).to.have.length(1);
      expect(issuesWith(o, 'There is an extra comma at the end of the Array', 'Patient.name[0].given')).to.have.length(1);
    });

    it('reports a missing or unknown resourceType', () => {
      expect(v.validate({ id: 'x' }).issue[0]?.details.text).to.equal('Unable to find resourceType property');
      const o = v.validate({ resourceType: 'Patientt' });
      expect(issuesWith(o, "This content cannot be parsed (unknown or unrecognized resource name 'Patientt')")).to.have.length(1);
    });

    it('reports unknown properties at the parent, with the HL7 wording', () => {
      const o = v.validate(patient({ unknownElement: 1 }));
      expect(issuesWith(o, "Unrecognized property 'unknownElement'", 'Patient')).to.have.length(1);
    });

    it('requires arrays for repeating elements and objects for single ones', () => {
      const o = v.validate({ resourceType: 'Encounter', status: 'finished', class: { code: 'AMB' }, reasonCode: { text: 'x' } });
      expect(issuesWith(o, 'The property reasonCode must be a JSON Array, not an Object (at Encounter)', 'Encounter.reasonCode')).to.have.length(1);
      const o2 = v.validate(patient({ gender: ['male'] }));
      expect(errorsOf(o2).map((i) => i.expression?.[0])).to.include('Patient.gender');
    });

    it('rejects null and empty values where they are not allowed', () => {
      const o = v.validate(patient({ meta: null, birthDate: '', identifier: [] }));
      expect(issuesWith(o, 'The property meta must be an Object, not a Null', 'Patient.meta')).to.have.length(1);
      expect(issuesWith(o, 'value cannot be empty', 'Patient.birthDate')).to.have.length(1);
      expect(issuesWith(o, 'Array cannot be empty', 'Patient.identifier')).to.have.length(1);
    });

    it('an integer written with a fraction in the JSON text is not an integer', () => {
      const o = v.validate('{"resourceType":"Patient","multipleBirthInteger":2.0}');
      expect(issuesWith(o, "The value '2.0' is not a valid integer", 'Patient.multipleBirth.ofType(integer)')).to.have.length(1);
      expect(errorsOf(v.validate('{"resourceType":"Patient","multipleBirthInteger":2}'))).to.deep.equal([]);
    });

    it('checks primitive JSON types', () => {
      const o = v.validate(patient({ active: 'true' }));
      expect(issuesWith(o, 'must be a boolean', 'Patient.active')).to.have.length(1);
      expect(errorsOf(v.validate(patient({ active: true })))).to.deep.equal([]);
    });

    it('aligns _field primitive extensions with their values', () => {
      const ext = { extension: [{ url: 'http://hl7.org/fhir/StructureDefinition/data-absent-reason', valueCode: 'unknown' }] };
      const ok = v.validate(patient({ name: [{ given: ['a', null], _given: [null, ext] }] }));
      expect(errorsOf(ok), describe_(ok)).to.deep.equal([]);
      // as the HL7 parser: items pair up by index, and the two lists may differ in length
      const shorter = v.validate(patient({ name: [{ given: ['a', 'b'], _given: [null] }] }));
      expect(errorsOf(shorter), describe_(shorter)).to.deep.equal([]);
      const noValue = v.validate(patient({ name: [{ given: [null] }] }));
      expect(errorsOf(noValue)).to.have.length.greaterThan(0);
    });
  });

  describe('cardinality and choice types', () => {
    it('reports a missing required element at the parent with the profile it comes from', () => {
      const o = v.validate({ resourceType: 'Observation', code: { text: 'x' } });
      expect(issuesWith(o, 'Observation.status: minimum required = 1, but only found 0 (from http://hl7.org/fhir/StructureDefinition/Observation|4.0.1)', 'Observation')).to.have.length(1);
      expect(errorsOf(v.validate({ resourceType: 'Observation', status: 'final', code: { text: 'x' } }))).to.deep.equal([]);
    });

    it('reports two values for one choice element', () => {
      const o = v.validate({ resourceType: 'Observation', status: 'final', code: { text: 'x' }, valueString: 'a', valueBoolean: true });
      expect(issuesWith(o, 'Only one of the choice properties value[x]')).to.have.length(1);
    });

    it('reports a choice type that does not exist', () => {
      const o = v.validate({ resourceType: 'Observation', status: 'final', code: { text: 'x' }, valueFoo: 'a' });
      expect(errorsOf(o)).to.have.length(1);
    });

    it('locates choice values with ofType() and repeating elements with indexes', () => {
      const o = v.validate({ resourceType: 'Observation', status: 'final', code: { text: 'x' }, valueQuantity: { value: 1, system: 'http://unitsofmeasure.org', code: ' mg' }, component: [{ code: { text: 'a' }, valueDateTime: '2020-01-01T10:00:00' }] });
      expect(issuesWith(o, 'If a date has a time, it must have a timezone', 'Observation.component[0].value.ofType(dateTime)')).to.have.length(1);
      expect(issuesWith(o, "The code ' mg' is not valid (whitespace rules)", 'Observation.value.ofType(Quantity).code')).to.have.length(1);
    });
  });

  describe('primitive datatypes', () => {
    const cases: [string, Record<string, unknown>, Record<string, unknown>, string][] = [
      ['date', { birthDate: '2001-02-28' }, { birthDate: '2001-02-30' }, 'Not a valid date (2001-02-30)'],
      ['dateTime', { deceasedDateTime: '2001-02-28T10:00:00+01:00' }, { deceasedDateTime: '2001-02-28T25:00:00Z' }, 'Not a valid date/time'],
      ['uri', { implicitRules: 'http://example.org/rules' }, { implicitRules: 'http://example.org/a b' }, 'URI values cannot have whitespace'],
      ['code', { gender: 'male' }, { gender: 'ma  le' }, 'is not valid (whitespace rules)'],
      ['string whitespace', { name: [{ family: 'Doe' }] }, { name: [{ family: 'Doe ' }] }, "value should not start or finish with whitespace 'Doe '"],
      ['integer range', { multipleBirthInteger: 2 }, { multipleBirthInteger: 2.5 }, "The value '2.5' is not a valid integer"],
      ['base64Binary', { photo: [{ contentType: 'image/png', data: 'aGVsbG8=' }] }, { photo: [{ contentType: 'image/png', data: '%%%2@()()' }] }, "The value '%%%2@()()' is not a valid Base64 value"],
      ['resource id', { id: 'abc-1.2' }, { id: 'x'.repeat(65) }, 'Invalid Resource id: Too long (65 chars)'],
      ['xhtml', {}, { text: { status: 'generated', div: '<div xmlns="http://www.w3.org/1999/xhtml"><script>alert(1)</script></div>' } }, "Invalid element name in the XHTML ('script')"],
      ['xhtml image source', { text: { status: 'generated', div: '<div xmlns="http://www.w3.org/1999/xhtml"><img src="#pic"/></div>' }, contained: [{ resourceType: 'Binary', id: 'pic', contentType: 'image/png' }], photo: [{ url: '#pic' }] }, { text: { status: 'generated', div: '<div xmlns="http://www.w3.org/1999/xhtml"><p><img src="#nope"/></p></div>' } }, "Image source '#nope' at 'Patient.text.div/img' does not resolve"],
      ['control characters in a string', { name: [{ family: 'Doe\tSmith' }] }, { name: [{ family: 'Doe\u0001Smith\u001f\u0001' }] }, 'This content includes the characters [1, 1f] (hex values). These characters are illegal in the XML version of FHIR'],
      ['xhtml block in a paragraph', { text: { status: 'generated', div: '<div xmlns="http://www.w3.org/1999/xhtml"><p>a</p><div>b</div></div>' } }, { text: { status: 'generated', div: '<div xmlns="http://www.w3.org/1999/xhtml"><p>a<ul><li>b</li></ul></p></div>' } }, "Invalid element name inside a paragraph in the XHTML ('ul')"],
    ];
    for (const [name, good, bad, text] of cases) {
      it(`${name}: valid passes, invalid is reported`, () => {
        const ok = v.validate(patient(good));
        expect(errorsOf(ok).concat(issuesWith(ok, text)), describe_(ok)).to.deep.equal([]);
        const o = v.validate(patient(bad));
        expect(issuesWith(o, text), describe_(o)).to.have.length.greaterThan(0);
      });
    }

    it('checks url, canonical, decimal and markdown values', () => {
      const good = v.validate({ resourceType: 'Questionnaire', text: narrativeOf(), status: 'active', url: 'http://example.org/q', derivedFrom: ['http://example.org/q0'], description: 'Some *markdown*', item: [{ linkId: '1', type: 'decimal', initial: [{ valueDecimal: 1.5 }] }] });
      expect(errorsOf(good), describe_(good)).to.deep.equal([]);
      const bad = v.validate({ resourceType: 'Questionnaire', text: narrativeOf(), status: 'active', url: 'http://example.org/a b', derivedFrom: ['urn:uuid:NOT-A-UUID'], description: '', item: [{ linkId: '1', type: 'decimal', initial: [{ valueDecimal: '1.5' }] }] });
      expect(issuesWith(bad, 'URI values cannot have whitespace', 'Questionnaire.url')).to.have.length(1);
      expect(issuesWith(bad, 'UUIDs must be valid and lowercase', 'Questionnaire.derivedFrom[0]')).to.have.length(1);
      expect(issuesWith(bad, 'value cannot be empty', 'Questionnaire.description')).to.have.length(1);
      expect(issuesWith(bad, 'must be a number', 'Questionnaire.item[0].initial[0].value.ofType(decimal)')).to.have.length(1);
    });

    it('canonical values must be absolute (or #fragments); narrative needs the xhtml namespace; abstract types are refused', () => {
      const q = (extra: Record<string, unknown>) => ({ resourceType: 'Questionnaire', text: narrativeOf(), status: 'active', ...extra });
      expect(errorsOf(v.validate(q({ derivedFrom: ['http://example.org/q0'] })))).to.deep.equal([]);
      expect(issuesWith(v.validate(q({ derivedFrom: ['Questionnaire/q0'] })), 'Canonical URLs must be absolute URLs', 'Questionnaire.derivedFrom[0]')).to.have.length(1);
      const noNs = v.validate(patient({ text: { status: 'generated', div: '<div>x</div>' } }));
      expect(issuesWith(noNs, 'Wrong namespace on the XHTML', 'Patient.text.div')).to.have.length(1);
      expect(issuesWith(v.validate({ resourceType: 'DomainResource' }), "The type 'DomainResource' is abstract")).to.have.length(1);
    });

    it('checks oid, uuid, instant, time, positiveInt and unsignedInt value spaces', () => {
      const o = v.validate({ resourceType: 'Observation', status: 'final', code: { text: 'x' }, issued: '2020-01-01', valueTime: '25:00:00', identifier: [{ system: 'urn:oid:1.2.x' }, { system: 'urn:uuid:ABC' }], referenceRange: [{ text: 'x' }] });
      expect(issuesWith(o, 'Not a valid instant', 'Observation.issued')).to.have.length(1);
      expect(issuesWith(o, 'Not a valid time', 'Observation.value.ofType(time)')).to.have.length(1);
      expect(issuesWith(o, 'OIDs must be valid', 'Observation.identifier[0].system')).to.have.length(1);
      expect(issuesWith(o, 'UUIDs must be valid and lowercase', 'Observation.identifier[1].system')).to.have.length(1);
      const counts = v.validate({ resourceType: 'Observation', status: 'final', code: { text: 'x' }, valueSampledData: { origin: { value: 1 }, period: 1, dimensions: 0, factor: 1 } });
      expect(issuesWith(counts, 'value is less than permitted minimum value of 1', 'Observation.value.ofType(SampledData).dimensions')).to.have.length(1);
    });
  });

  describe('invariants', () => {
    it('evaluates invariants at their severity and location (pat-1)', () => {
      const o = v.validate(patient({ contact: [{ gender: 'male' }] }));
      const hit = issuesWith(o, "Rule pat-1: 'SHALL at least contain a contact's details or a reference to an organization' Failed", 'Patient.contact[0]');
      expect(hit, describe_(o)).to.have.length(1);
      expect(hit[0]?.severity).to.equal('error');
      expect(errorsOf(v.validate(patient({ contact: [{ name: { family: 'x' } }] })))).to.deep.equal([]);
    });

    it('reports best-practice invariants as warnings (dom-6)', () => {
      const o = v.validate({ resourceType: 'Patient' });
      const hit = issuesWith(o, 'Rule dom-6');
      expect(hit).to.have.length(1);
      expect(hit[0]?.severity).to.equal('warning');
    });

    it('evaluates dom-3 natively: contained resources must be referenced', () => {
      const contained = [{ resourceType: 'Organization', id: 'org1', name: 'x' }];
      const ok = v.validate(patient({ contained, managingOrganization: { reference: '#org1' } }));
      expect(errorsOf(ok), describe_(ok)).to.deep.equal([]);
      const bad = v.validate(patient({ contained }));
      expect(issuesWith(bad, 'Rule dom-3', 'Patient')).to.have.length(1);
    });

    it('contained resources need distinct ids', () => {
      const org = (id: string) => ({ resourceType: 'Organization', id, name: id });
      const ok = v.validate(patient({ contained: [org('a'), org('b')], managingOrganization: { reference: '#a' }, generalPractitioner: [{ reference: '#b' }] }));
      expect(errorsOf(ok), describe_(ok)).to.deep.equal([]);
      const bad = v.validate(patient({ contained: [org('a'), org('a')], managingOrganization: { reference: '#a' } }));
      expect(issuesWith(bad, "Duplicate id value 'a'", 'Patient.contained[1]')).to.have.length(1);
    });

    it('reports ele-1 for an element with no content', () => {
      const o = v.validate(patient({ maritalStatus: {} }));
      expect(issuesWith(o, 'Rule ele-1', 'Patient.maritalStatus')).to.have.length(1);
    });

    it('validates contained resources and their invariants with the container as %rootResource', () => {
      const o = v.validate(patient({ contained: [{ resourceType: 'Patient', id: 'c1', contact: [{}] }], link: [{ other: { reference: '#c1' }, type: 'seealso' }] }));
      expect(issuesWith(o, 'Rule pat-1', "Patient.contained[0].ofType(Patient).where(id = 'c1').contact[0]"), describe_(o)).to.have.length(1);
    });
  });

  it('places each issue at the value its location names: a list item, a property, a `_x` companion, a profile', () => {
    const text = [
      '{"resourceType":"Patient",',
      ' "meta":{"profile":["http://example.org/a",',
      '   "http://example.org/StructureDefinition/missing"]},',
      ' "name":[{"family":"x"},',
      '   {"family":"y","foo":1}],',
      ' "birthDate":"1990",',
      ' "_birthDate":{},',
      ' "contained":[{"resourceType":"Basic","id":"b","code":{"text":"a"}},',
      '  {"resourceType":"Basic","id":"b","code":{"text":"a"}}]}',
    ].join('\n');
    const o = v.validate(text);
    const placed = (message: string, path: string) => {
      const issue = issuesWith(o, message, path)[0];
      return [issue?.extension?.find((e) => e.url === EXT_LINE)?.valueInteger, issue?.extension?.find((e) => e.url === EXT_COL)?.valueInteger];
    };
    expect(placed("Unrecognized property 'foo'", 'Patient.name[1]'), describe_(o)).to.deep.equal([5, 24]);
    // the companion's own problem is where the companion is, not where the value is
    expect(placed('Object must have some content', 'Patient.birthDate'), describe_(o)).to.deep.equal([7, 15]);
    expect(placed("Duplicate id value 'b'", 'Patient.contained[1]'), describe_(o)).to.deep.equal([9, 3]);
    expect(placed('missing', 'Patient.meta.profile[1]'), describe_(o)).to.deep.equal([3, 4]);
  });

  it('adds a message id to every issue, and line/column for text input', () => {
    const o = v.validate('{"resourceType":"Patient",\n "id":"p1",\n "gender": "x  y"}');
    const issue = issuesWith(o, 'whitespace rules')[0];
    expect(issue?.extension?.find((e) => e.url === EXT_MESSAGE_ID)?.valueCode).to.equal('Type_Specific_Checks_DT_Code_WS');
    expect(issue?.extension?.find((e) => e.url === EXT_LINE)?.valueInteger).to.equal(3);
    expect(issue?.code).to.equal('invalid');
  });
});
