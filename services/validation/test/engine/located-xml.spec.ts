/**
 * The FHIR XML reader: the located model it yields (values shaped as FHIR's JSON, positions),
 * the XML rules of the HL7 validator's XmlParser, and hostile input (XXE, entity expansion, deep
 * nesting, huge attributes) refused or answered quickly with a fatal issue.
 */
import { expect } from 'chai';
import type { ArrayLocation, ObjectLocation } from '#validation/domain/engine/json/located-json.js';
import { PlanRegistry } from '#validation/domain/engine/plan/plan-registry.js';
import { Validator } from '#validation/domain/engine/validator.js';
import { composeXml } from '#validation/domain/engine/xml/compose-xml.js';
import { looksLikeXml, parseLocatedXml, type LocatedXml } from '#validation/domain/engine/xml/located-xml.js';
import { parseResourceText, UnreadableResourceError } from '#validation/domain/engine/xml/resource-text.js';
import { coreSource } from './support/core-definitions.js';

const F = 'xmlns="http://hl7.org/fhir"';
const X = 'xmlns="http://www.w3.org/1999/xhtml"';

describe('FHIR XML reader', function () {
  this.timeout(30_000);
  let plans: PlanRegistry;
  let validator: Validator;
  const read = (xml: string): LocatedXml => parseLocatedXml(xml, plans);
  const messages = (r: LocatedXml) => r.issues.map((i) => `${i.severity} ${i.messageId} ${i.expression}`);

  before(async () => {
    const source = await coreSource();
    plans = new PlanRegistry(source);
    validator = new Validator(source);
  });

  describe('shape (FHIR JSON)', () => {
    it('reads primitives by type, repeating elements as arrays and single ones as values', () => {
      const r = read(`<Patient ${F}><id value="p1"/><active value="true"/><name><family value="Chalmers"/><given value="Peter"/><given value="James"/></name>`
        + `<multipleBirthInteger value="2"/></Patient>`);
      expect(r.issues).to.deep.equal([]);
      expect(r.value).to.deep.equal({ resourceType: 'Patient', id: 'p1', active: true, name: [{ family: 'Chalmers', given: ['Peter', 'James'] }], multipleBirthInteger: 2 });
    });

    it('puts id and extensions of primitives into the _x companion, aligned by index', () => {
      const r = read(`<Patient ${F}><name><given value="a"/><given id="g2"><extension url="http://example.org/e"><valueString value="x"/></extension></given></name>`
        + `<birthDate id="b" value="1970-01-01"/></Patient>`);
      const v = r.value as { name: { given: unknown[]; _given: unknown[] }[]; birthDate: string; _birthDate: unknown };
      expect(v.name[0]!.given).to.deep.equal(['a', null]);
      expect(v.name[0]!._given).to.deep.equal([null, { id: 'g2', extension: [{ url: 'http://example.org/e', valueString: 'x' }] }]);
      expect(v.birthDate).to.equal('1970-01-01');
      expect(v._birthDate).to.deep.equal({ id: 'b' });
    });

    it('keeps the text of decimals whose JSON rendering differs, and leaves unreadable numbers and booleans as text', () => {
      const r = read(`<Observation ${F}><status value="final"/><code><text value="x"/></code><valueQuantity><value value="1.50"/></valueQuantity></Observation>`);
      const v = r.value as { valueQuantity: Record<string, unknown> };
      expect(v.valueQuantity.value).to.equal(1.5);
      expect((r.locations.get(v.valueQuantity) as ObjectLocation).rawNumbers).to.deep.equal({ value: '1.50' });
      const bad = read(`<Patient ${F}><active value="yes"/><multipleBirthInteger value="two"/></Patient>`).value as Record<string, unknown>;
      expect(bad.active).to.equal('yes');
      expect(bad.multipleBirthInteger).to.equal('two');
    });

    it('reads contained resources, Bundle entries and choice types', () => {
      const r = read(`<Bundle ${F}><type value="collection"/><entry><fullUrl value="urn:uuid:1"/><resource><Observation><contained><Patient><id value="c"/></Patient></contained>`
        + `<status value="final"/><code><text value="t"/></code><subject><reference value="#c"/></subject><valueCodeableConcept><text value="v"/></valueCodeableConcept></Observation></resource></entry></Bundle>`);
      expect(r.issues).to.deep.equal([]);
      expect(r.value).to.deep.equal({
        resourceType: 'Bundle', type: 'collection', entry: [{ fullUrl: 'urn:uuid:1', resource: {
          resourceType: 'Observation', contained: [{ resourceType: 'Patient', id: 'c' }], status: 'final', code: { text: 't' },
          subject: { reference: '#c' }, valueCodeableConcept: { text: 'v' },
        } }],
      });
    });

    it('keeps the narrative div verbatim (declaring the namespace it inherited)', () => {
      const div = `<div ${X}><p>a &amp; <b>b</b><!-- c --></p></div>`;
      const r = read(`<Patient ${F}><text><status value="generated"/>${div}</text></Patient>`);
      expect((r.value as { text: { div: string } }).text.div).to.equal(div);
      const inherited = read(`<Patient ${F} xmlns:h="http://www.w3.org/1999/xhtml"><text><status value="generated"/><div><p>x</p></div></text></Patient>`);
      expect((inherited.value as { text: { div: string } }).text.div).to.equal(`<div xmlns="${'http://hl7.org/fhir'}"><p>x</p></div>`);
    });

    it('keeps the narrative div verbatim from its `<` when a line break ends its tag name, in LF and CRLF files, with either reader', () => {
      for (const eol of ['\n', '\r\n']) {
        const div = `<div${eol}  ${X}><p>x</p></div>`;
        const xml = [`<Patient ${F}>`, `<text><status value="generated"/>${div}</text>`, '</Patient>'].join(eol);
        for (const fullParser of [false, true]) {
          const r = parseLocatedXml(xml, plans, { fullParser });
          expect((r.value as { text: { div: string } }).text.div, `${JSON.stringify(eol)} fullParser=${String(fullParser)}`).to.equal(div);
        }
      }
    });

    it('locates every element (line and column of its start tag)', () => {
      const r = read(`<Patient ${F}>\n  <name>\n    <given value="a"/>\n  </name>\n</Patient>`);
      const v = r.value as { name: { given: string[] }[] };
      expect(r.locations.get(v)).to.include({ line: 1, col: 1 });
      expect((r.locations.get(v.name) as ArrayLocation).items[0]).to.deep.equal({ line: 2, col: 3 });
      expect((r.locations.get(v.name[0]!.given) as ArrayLocation).items[0]).to.deep.equal({ line: 3, col: 5 });
    });

    it('tells XML from JSON by the first character', () => {
      expect(looksLikeXml('\ufeff  <Patient/>')).to.equal(true);
      expect(looksLikeXml(' {"resourceType":"Patient"}')).to.equal(false);
    });
  });

  describe('XML rules (as the HL7 XmlParser words and locates them)', () => {
    it('reports unknown elements and attributes at their XPath, and drops them', () => {
      const r = read(`<Observation ${F}><status id="s" something="that" value="final"/><valueInteger><value value="0"/></valueInteger><foo/></Observation>`);
      expect(messages(r)).to.deep.equal([
        'error Undefined_attribute__on__for_type__properties__ /f:Observation/f:status',
        'error Undefined_element_ /f:Observation/f:valueInteger',
        'error Undefined_element_ /f:Observation',
      ]);
      expect(r.issues[0]!.args).to.deep.equal(['something', 'status', 'code']);
      expect(r.value).to.deep.equal({ resourceType: 'Observation', status: 'final', _status: { id: 's' }, _valueInteger: {} });
    });

    it('reports elements out of the order of their definition', () => {
      const r = read(`<Patient ${F}><gender value="male"/><active value="true"/></Patient>`);
      expect(messages(r)).to.deep.equal(['error Validation_VAL_Profile_OutOfOrder Patient.active']);
      expect(r.issues[0]!.args).to.deep.equal(['http://hl7.org/fhir/StructureDefinition/Patient|4.0.1', 'active', 'gender']);
    });

    it('reports wrong namespaces, empty elements, text, CDATA and processing instructions', () => {
      const r = read(`<?xml-stylesheet href="x"?><Patient ${F}><active xmlns="urn:other" value="true"/><name/>text<![CDATA[x]]><?pi x?></Patient>`);
      expect(messages(r)).to.have.members([
        'error Wrong_namespace__expected_ /f:Patient/?:active',
        'error Text_should_not_be_present /f:Patient',
        'error CDATA_is_not_allowed /f:Patient',
        'error Node_type__is_not_allowed /f:Patient',
        'error Element_must_have_some_content /f:Patient/f:name',
        'error No_processing_instructions_allowed_in_resources (document)',
      ]);
    });

    it('refuses a root that is not a FHIR resource', () => {
      expect(messages(read('<Patient/>'))).to.deep.equal(['fatal This__cannot_be_parsed_as_a_FHIR_object_no_namespace (xml)']);
      expect(messages(read(`<Nothing ${F}/>`))).to.deep.equal(['fatal This_does_not_appear_to_be_a_FHIR_resource_unknown_name_ (xml)']);
    });

    it('validates XML end to end: HL7 locations for XML problems, FHIRPath for the rest', () => {
      const outcome = validator.validate(`<Observation ${F}>\n<status value="final"/>\n<valueInteger/>\n</Observation>`);
      const errors = outcome.issue.filter((i) => i.severity === 'error').map((i) => `${i.expression?.[0]} ${i.details.text}`);
      expect(errors).to.include('/f:Observation/f:valueInteger Element must have some content');
      expect(errors).to.include('Observation.value.ofType(integer) Primitive types must have a value or must have child extensions');
      expect(errors).to.include('Observation Observation.code: minimum required = 1, but only found 0 (from http://hl7.org/fhir/StructureDefinition/Observation|4.0.1)');
      const boolean = validator.validate(`<Patient ${F}><active value="yes"/></Patient>`);
      expect(boolean.issue.map((i) => i.details.text)).to.include("boolean values must be 'true' or 'false'");
    });

    it('counts a non-repeating element written twice (max 1, found 2)', () => {
      const outcome = validator.validate(`<Patient ${F}><gender value="male"/><gender value="female"/></Patient>`);
      expect(outcome.issue.map((i) => i.details.text)).to.include('Patient.gender: max allowed = 1, but found 2 (from http://hl7.org/fhir/StructureDefinition/Patient|4.0.1)');
    });
  });

  describe('bad and hostile XML: a fatal issue at the failing line, never a throw or a hang', () => {
    const fatalOf = (r: LocatedXml) => r.issues.filter((i) => i.severity === 'fatal');

    it('reports malformed XML at the line where it fails', () => {
      const r = read(`<Patient ${F}>\n  <active value="true">\n</Patient>`);
      expect(r.value).to.equal(undefined);
      expect(fatalOf(r)).to.have.length(1);
      expect(fatalOf(r)[0]).to.include({ line: 3, expression: '(xml)' });
    });

    it('words an undeclared entity as the HL7 validator (Xerces) does', () => {
      const r = read(`<Patient ${F}><name><text value="a &reg; b"/></name></Patient>`);
      expect(fatalOf(r)[0]!.args[0]).to.equal('The entity "reg" was referenced, but not declared.');
    });

    it('refuses XXE (an external entity) with a DOCTYPE error', function () {
      this.timeout(2_000);
      const r = read(`<?xml version="1.0"?>\n<!DOCTYPE Patient [<!ENTITY xxe SYSTEM "file:///etc/passwd">]>\n<Patient ${F}><name><text value="&xxe;"/></name></Patient>`);
      expect(r.value).to.equal(undefined);
      expect(fatalOf(r)[0]!.args[0]).to.contain('DOCTYPE is disallowed');
    });

    it('refuses billion laughs without expanding anything', function () {
      this.timeout(2_000);
      const entities = ['<!ENTITY lol "lol">'];
      for (let i = 1; i < 10; i++) entities.push(`<!ENTITY lol${i} "${`&lol${i === 1 ? '' : i - 1};`.repeat(10)}">`);
      const r = read(`<?xml version="1.0"?>\n<!DOCTYPE lolz [${entities.join('')}]>\n<Patient ${F}><name><text value="&lol9;"/></name></Patient>`);
      expect(r.value).to.equal(undefined);
      expect(fatalOf(r)[0]!.args[0]).to.contain('DOCTYPE is disallowed');
    });

    it('answers deep nesting with a fatal issue', function () {
      this.timeout(2_000);
      const depth = 100_000;
      const xml = `<Patient ${F}>` + '<extension url="http://example.org/x">'.repeat(depth) + '</extension>'.repeat(depth) + '</Patient>';
      const outcome = validator.validate(xml);
      expect(outcome.issue.filter((i) => i.severity === 'fatal').map((i) => i.details.text).join()).to.contain('nested too deeply');
    });

    it('answers a 50 MB attribute value', function () {
      this.timeout(2_000);
      const xml = `<Patient ${F}>\n<name><text value="${'a'.repeat(50 * 1024 * 1024)}"/></name></Patient>`;
      const outcome = validator.validate(xml);
      const fatal = outcome.issue.filter((i) => i.severity === 'fatal');
      expect(fatal.map((i) => i.details.text)).to.deep.equal([`An attribute value is too large (${50 * 1024 * 1024} characters; the limit is ${16 * 1024 * 1024})`]);
      expect(fatal[0]!.extension?.find((e) => e.url.endsWith('issue-line'))?.valueInteger).to.equal(2);
    });
  });

  describe('writing XML (the inverse)', () => {
    it('writes FHIR JSON as XML in definition order that reads back to the same value', () => {
      const resource = {
        resourceType: 'Observation', id: 'o', status: 'final', code: { coding: [{ system: 'http://loinc.org', code: '1-8' }], text: 'a "b" & <c>\n' },
        extension: [{ url: 'http://example.org/e', valueDecimal: 1.5 }], _status: { extension: [{ url: 'http://example.org/s', valueBoolean: true }] },
        contained: [{ resourceType: 'Patient', id: 'p', name: [{ given: ['a', null], _given: [null, { id: 'g' }] }] }],
        subject: { reference: '#p' }, valueQuantity: { value: 2, unit: 'mg' },
        text: { status: 'generated', div: `<div ${X}><p>x</p></div>` },
      };
      const xml = composeXml(resource, plans, 2);
      expect(xml.indexOf('<extension url="http://example.org/e"')).to.be.below(xml.indexOf('<status value="final"'));
      const back = read(xml);
      expect(back.issues).to.deep.equal([]);
      expect(back.value).to.deep.equal(resource);
    });
  });

  describe('loading conformance resources from text', () => {
    it('reads JSON or XML, and refuses what it cannot read', () => {
      expect(parseResourceText('{"resourceType":"ValueSet","url":"http://x"}', plans)).to.deep.equal({ resourceType: 'ValueSet', url: 'http://x' });
      expect(parseResourceText(`<ValueSet ${F}><url value="http://x"/></ValueSet>`, plans)).to.deep.equal({ resourceType: 'ValueSet', url: 'http://x' });
      expect(() => parseResourceText(`<ValueSet ${F}>`, plans)).to.throw(UnreadableResourceError);
    });
  });
});
