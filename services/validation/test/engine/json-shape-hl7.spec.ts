/**
 * JSON shape, blank primitives, primitive value spaces and invariant results as the HL7
 * validator reads and reports them (its JSON parser, checkPrimitive and its boolean
 * conversion of invariant results). Fixtures are hand-written.
 */
import { expect } from 'chai';
import { InvariantEvaluator } from '#validation/domain/engine/checks/invariants.js';
import { Validator } from '#validation/domain/engine/validator.js';
import { FakeTerminology } from '../terminology/support/fake-terminology.js';
import { coreSource } from './support/core-definitions.js';
import { describe_, errorsOf, issuesWith } from './support/helpers.js';

describe('engine: JSON shape and primitives as the HL7 validator reads them', function () {
  this.timeout(60_000);
  let v: Validator;
  before(async () => {
    v = new Validator(await coreSource());
  });
  const patient = (extra: Record<string, unknown> = {}) => ({ resourceType: 'Patient', id: 'p1', text: { status: 'generated', div: '<div xmlns="http://www.w3.org/1999/xhtml">x</div>' }, ...extra });
  const dar = { extension: [{ url: 'http://hl7.org/fhir/StructureDefinition/data-absent-reason', valueCode: 'unknown' }] };

  describe('JSON text', () => {
    it('reports unquoted names and primitive values (JSON5) and validates what they hold', () => {
      const o = v.validate('{"resourceType": "Patient", active: true, "gender": male, "name": [{"given": [Jo]}]}');
      expect(issuesWith(o, "The JSON property 'active' has no quotes around the name", 'Patient')).to.have.length(1);
      expect(issuesWith(o, "The JSON property 'gender' has no quotes around the value of the property 'male'", 'Patient')).to.have.length(1);
      expect(issuesWith(o, "has no quotes around the value of the property 'Jo'", 'Patient.name[0].given[0]')).to.have.length(1);
      expect(errorsOf(o), describe_(o)).to.have.length(3);
      // an unknown property: its name is reported, and the property, but not its value
      const unknown = v.validate('{"resourceType": "Patient", foo: bar}');
      expect(issuesWith(unknown, "The JSON property 'foo' has no quotes around the name")).to.have.length(1);
      expect(issuesWith(unknown, "Unrecognized property 'foo'")).to.have.length(1);
      expect(errorsOf(unknown), describe_(unknown)).to.have.length(2);
      // the unquoted value is read as a string: a boolean element then has the wrong JSON type
      const bad = v.validate('{"resourceType": "Patient", "active": yes}');
      expect(issuesWith(bad, 'must be a boolean', 'Patient.active')).to.have.length(1);
      expect(errorsOf(bad), describe_(bad)).to.have.length(2);
    });

    it('a repeated property is reported at its object and the first value is the one validated', () => {
      const o = v.validate('{"resourceType": "Patient", "gender": "male", "gender": "nonsense"}');
      expect(issuesWith(o, "The JSON property 'gender' is a duplicate", 'Patient')).to.have.length(1);
      expect(errorsOf(o), describe_(o)).to.have.length(1);
    });
  });

  describe('comments', () => {
    it('a comment is an error, reported at the value that follows it (identical issues once)', () => {
      const o = v.validate('// one\n// two\n{"resourceType": "Patient",\n // three\n // four\n "gender": "male"}');
      expect(issuesWith(o, 'Comments are not allowed in JSON', 'Patient')).to.have.length(1);
      expect(issuesWith(o, 'Comments are not allowed in JSON', 'Patient.gender')).to.have.length(1);
      expect(errorsOf(v.validate('{"resourceType": "Patient", "gender": "male"}'))).to.deep.equal([]);
    });
  });

  describe('objects and arrays', () => {
    it('an empty object is an error where it stands; a non-empty one is fine', () => {
      const o = v.validate(patient({ maritalStatus: {}, name: [{ family: 'x' }] }));
      expect(issuesWith(o, 'Object must have some content', 'Patient.maritalStatus')).to.have.length(1);
      // the element is still there for the invariants: ele-1 fails on it as well
      expect(issuesWith(o, /Rule ele-1/, 'Patient.maritalStatus')).to.have.length(1);
      expect(errorsOf(o)).to.have.length(2);
      const ok = v.validate(patient({ maritalStatus: { text: 'single' } }));
      expect(errorsOf(ok), describe_(ok)).to.deep.equal([]);
    });

    it('an empty _x companion object is an error, and so is the value it leaves without content', () => {
      const o = v.validate(patient({ _birthDate: {} }));
      expect(issuesWith(o, 'Object must have some content', 'Patient.birthDate')).to.have.length(1);
      expect(issuesWith(o, 'Primitive types must have a value or must have child extensions', 'Patient.birthDate')).to.have.length(1);
    });

    it('an empty contained resource has no content and no resourceType', () => {
      const o = v.validate(patient({ contained: [{}] }));
      expect(issuesWith(o, 'Object must have some content')).to.have.length(1);
      expect(issuesWith(o, 'Unable to find resourceType property')).to.have.length(1);
    });

    it('an empty list of complex values is an error; an empty list of primitives is no values', () => {
      const o = v.validate(patient({ identifier: [] }));
      expect(issuesWith(o, 'Array cannot be empty', 'Patient.identifier')).to.have.length(1);
      const prim = v.validate(patient({ name: [{ family: 'x', given: [] }] }));
      expect(errorsOf(prim), describe_(prim)).to.deep.equal([]);
    });

    it('an array for a single value is reported once and its items are not read', () => {
      const o = v.validate(patient({ gender: ['male', 'nonsense'], maritalStatus: [{ text: 'a' }, {}] }));
      expect(issuesWith(o, 'not an Array', 'Patient.gender')).to.have.length(1);
      expect(issuesWith(o, 'not an Array', 'Patient.maritalStatus')).to.have.length(1);
      expect(errorsOf(o), describe_(o)).to.have.length(2);
    });

    it('a single value for a primitive list is reported once and not read', () => {
      const o = v.validate(patient({ name: [{ given: '  bad  ' }] }));
      expect(issuesWith(o, 'must be a JSON Array', 'Patient.name[0].given')).to.have.length(1);
      expect(o.issue, describe_(o)).to.have.length(1);
    });
  });

  describe('null and blank primitive values', () => {
    it('a single value written as null is an error even with extensions beside it', () => {
      const o = v.validate(patient({ birthDate: null, _birthDate: dar }));
      expect(issuesWith(o, "The element is not allowed to be 'null'", 'Patient.birthDate')).to.have.length(1);
    });

    it('a null value does not count as present: a required element written as null is also missing', () => {
      const o = v.validate({ resourceType: 'Observation', status: null, code: null });
      expect(issuesWith(o, "The element is not allowed to be 'null'", 'Observation.status')).to.have.length(1);
      expect(issuesWith(o, 'must be an Object, not a Null', 'Observation.code')).to.have.length(1);
      expect(issuesWith(o, 'Observation.status: minimum required = 1, but only found 0')).to.have.length(1);
      expect(issuesWith(o, 'Observation.code: minimum required = 1, but only found 0')).to.have.length(1);
      expect(errorsOf(v.validate({ resourceType: 'Observation', status: 'final', code: { text: 'x' } }))).to.deep.equal([]);
    });

    it('a single value\'s _x companion written as null is an error and the value is not read', () => {
      const o = v.validate(patient({ birthDate: 'not a date', _birthDate: null }));
      expect(issuesWith(o, 'must be an Object, not a Null', 'Patient.birthDate')).to.have.length(1);
      expect(errorsOf(o), describe_(o)).to.have.length(1);
    });

    it('a null item of a primitive list stands for a value given only by its extensions', () => {
      const ok = v.validate(patient({ name: [{ given: ['a', null], _given: [null, dar] }] }));
      expect(errorsOf(ok), describe_(ok)).to.deep.equal([]);
      const bad = v.validate(patient({ name: [{ given: ['a', null], _given: [null, null] }] }));
      expect(issuesWith(bad, 'Primitive types must have a value or must have child extensions', 'Patient.name[0].given[1]')).to.have.length(1);
    });

    it('an empty value is an error unless extensions stand in for it', () => {
      expect(issuesWith(v.validate(patient({ birthDate: '' })), 'value cannot be empty', 'Patient.birthDate')).to.have.length(1);
      const ok = v.validate(patient({ birthDate: '', _birthDate: dar }));
      expect(errorsOf(ok), describe_(ok)).to.deep.equal([]);
    });

    it('a whitespace-only value is a warning, not a format error', () => {
      const o = v.validate(patient({ birthDate: '   ', gender: ' ' }));
      expect(errorsOf(o), describe_(o)).to.deep.equal([]);
      expect(issuesWith(o, 'Primitive types should not only be whitespace', 'Patient.birthDate')[0]?.severity).to.equal('warning');
      expect(issuesWith(o, 'Primitive types should not only be whitespace', 'Patient.gender')).to.have.length(1);
    });
  });

  describe('numbers as written', () => {
    const obs = (value: string) => `{"resourceType":"Observation","status":"final","code":{"text":"x"},${value}}`;
    it('an integer may have leading zeros but no fraction, exponent or more than 32 bits', () => {
      expect(errorsOf(v.validate(obs('"valueInteger": 007')))).to.deep.equal([]);
      for (const n of ['1.0', '1e3', '2147483648', '-2147483649', '12345678901']) {
        expect(issuesWith(v.validate(obs(`"valueInteger": ${n}`)), `The value '${n}' is not a valid integer`, 'Observation.value.ofType(integer)'), n).to.have.length(1);
      }
      expect(errorsOf(v.validate(obs('"valueInteger": -2147483648')))).to.deep.equal([]);
    });

    it('a decimal may not have leading zeros or a trailing dot; very long ones are a warning', () => {
      const q = (n: string) => obs(`"valueQuantity": {"value": ${n}}`);
      expect(errorsOf(v.validate(q('0.5')))).to.deep.equal([]);
      expect(errorsOf(v.validate(q('-0')))).to.deep.equal([]);
      expect(errorsOf(v.validate(q('1.5e3')))).to.deep.equal([]);
      for (const n of ['007', '1.', '1.2.3']) {
        expect(issuesWith(v.validate(q(n)), `The value '${n}' is not a valid decimal`, 'Observation.value.ofType(Quantity).value'), n).to.have.length(1);
      }
      const long = v.validate(q('0.1234567890123456789'));
      expect(errorsOf(long)).to.deep.equal([]);
      expect(issuesWith(long, 'outside the range of commonly/reasonably supported decimals')[0]?.severity).to.equal('warning');
      expect(issuesWith(v.validate(q('1234567890123456')), 'outside the range')).to.deep.equal([]);
    });

    it('a number that is not JSON is read, not fatal: a string element reports its type', () => {
      const o = v.validate('{"resourceType":"Patient","birthDate": 007}');
      expect(o.issue.filter((i) => i.severity === 'fatal')).to.deep.equal([]);
      expect(issuesWith(o, 'must be a string', 'Patient.birthDate')).to.have.length(1);
    });
  });

  describe('primitive value spaces', () => {
    it('an instant may have any four-digit year, and must be a real day', () => {
      const inst = (t: string) => ({ resourceType: 'Observation', status: 'final', code: { text: 'x' }, issued: t });
      expect(errorsOf(v.validate(inst('0000-01-01T00:00:00Z')))).to.deep.equal([]);
      expect(issuesWith(v.validate(inst('2023-02-29T00:00:00Z')), 'Not a valid instant', 'Observation.issued')).to.have.length(1);
      expect(issuesWith(v.validate(inst('2023-02-01T00:00:00')), 'Not a valid instant')).to.have.length(1);
    });

    it('time takes no fraction of a second', () => {
      const obs = (t: string) => ({ resourceType: 'Observation', status: 'final', code: { text: 'x' }, valueTime: t });
      expect(errorsOf(v.validate(obs('10:20:30')))).to.deep.equal([]);
      expect(issuesWith(v.validate(obs('10:20:30.5')), 'Not a valid time', 'Observation.value.ofType(time)')).to.have.length(1);
    });

    it('a dateTime with a malformed time and no zone breaks both rules', () => {
      const o = v.validate(patient({ deceasedDateTime: '2020-01-01T10:00' }));
      expect(errorsOf(o), describe_(o)).to.have.length(2);
      expect(issuesWith(o, 'If a date has a time, it must have a timezone')).to.have.length(1);
      expect(errorsOf(v.validate(patient({ deceasedDateTime: '2020-01-01T10:00:00Z' })))).to.deep.equal([]);
      expect(errorsOf(v.validate(patient({ deceasedDateTime: '2020-01-01T10:00:00' })))).to.have.length(1);
    });

    it('each uri rule stands on its own; a urn:uuid is judged without its fragment or version', () => {
      const ident = (system: string) => patient({ identifier: [{ system, value: '1' }] });
      const two = v.validate(ident('urn:uuid:NOT A UUID'));
      expect(issuesWith(two, 'URI values cannot have whitespace', 'Patient.identifier[0].system')).to.have.length(1);
      expect(issuesWith(two, 'UUIDs must be valid', 'Patient.identifier[0].system')).to.have.length(1);
      expect(errorsOf(v.validate(ident('urn:uuid:0f8fad5b-d9cb-469f-a165-70867728950e#x')))).to.deep.equal([]);
      const q = { resourceType: 'Questionnaire', status: 'draft', derivedFrom: ['urn:uuid:0f8fad5b-d9cb-469f-a165-70867728950e|1.0'] };
      expect(issuesWith(v.validate(q), 'UUIDs must be valid')).to.deep.equal([]);
    });

    it('uris cannot start with oid: or uuid:', () => {
      const ident = (system: string) => patient({ identifier: [{ system, value: '1' }] });
      expect(issuesWith(v.validate(ident('oid:1.2.3.4.5')), 'URI values cannot start with oid:', 'Patient.identifier[0].system')).to.have.length(1);
      expect(issuesWith(v.validate(ident('uuid:0f8fad5b-d9cb-469f-a165-70867728950e')), 'URI values cannot start with uuid:')).to.have.length(1);
      expect(errorsOf(v.validate(ident('urn:oid:2.16.840.1.113883')))).to.deep.equal([]);
      // a short root is almost never a namespace (1.3 roots excepted)
      expect(issuesWith(v.validate(ident('urn:oid:1.2.3')), 'OIDs must be valid')).to.have.length(1);
      expect(errorsOf(v.validate(ident('urn:oid:1.3.6')))).to.deep.equal([]);
    });
  });

  describe('invariants', () => {
    it('an identifier-only reference passes ref-1, as in HL7 corrected form', () => {
      const o = v.validate(patient({ generalPractitioner: [{ identifier: { system: 'http://x.org', value: '1' } }] }));
      expect(issuesWith(o, /ref-1/), describe_(o)).to.deep.equal([]);
      const bad = v.validate(patient({ generalPractitioner: [{ reference: '#nothere' }] }));
      expect(issuesWith(bad, /Rule ref-1/)).to.have.length(1);
    });

    it('an expression fhirpath.js answers with empty passes (deqm-1 reads `start.value`, which the HL7 engine has and fhirpath.js has not)', () => {
      const invariants = new InvariantEvaluator(new FakeTerminology({}));
      const deqm1 = { key: 'deqm-1', severity: 'error' as const, human: 'day precision', bestPractice: false, base: 'Period', source: undefined,
        expression: "start.value.matches('^([0-9]{4})-(1[0-2]|0[1-9])-(3[01]|0[1-9]|[12][0-9]).*')" };
      const period = { start: '2024-08-07T02:36:13Z' };
      expect(invariants.evaluate(deqm1, period, { resource: period, rootResource: period })).to.equal('pass');
      const boolean = { ...deqm1, key: 'x-1', expression: "start.matches('^2025')" };
      expect(invariants.evaluate(boolean, period, { resource: period, rootResource: period })).to.equal('fail');
    });

    it('ref-1: `#` alone and references to a contained resource of the root pass; a local reference to nothing fails once per reference', () => {
      const contained = [{ resourceType: 'Practitioner', id: 'gp' }];
      expect(issuesWith(v.validate(patient({ contained, generalPractitioner: [{ reference: '#gp' }] })), /Rule ref-1/)).to.deep.equal([]);
      expect(issuesWith(v.validate(patient({ generalPractitioner: [{ reference: '#' }] })), /Rule ref-1/)).to.deep.equal([]);
      expect(issuesWith(v.validate(patient({ generalPractitioner: [{ reference: 'Practitioner/gp' }] })), /Rule ref-1/)).to.deep.equal([]);
      const two = v.validate(patient({ contained, generalPractitioner: [{ reference: '#gp' }, { reference: '#other' }, { reference: '#GP' }] }));
      expect(issuesWith(two, /Rule ref-1/).map((i) => i.expression?.[0])).to.deep.equal(['Patient.generalPractitioner[1]', 'Patient.generalPractitioner[2]']);
    });
  });
});
