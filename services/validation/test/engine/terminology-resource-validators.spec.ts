/**
 * The terminology resources' own rules (ValueSetValidator, CodeSystemValidator,
 * ConceptMapValidator) and the Attachment checks, on hand-written fixtures: a valid resource
 * reports no error, and each broken rule is reported once, at its location.
 */
import { expect } from 'chai';
import { Validator } from '#validation/domain/engine/validator.js';
import { EXT_COL, EXT_LINE, type Issue } from '#validation/domain/engine/outcome/issue.js';
import { sourceWith } from './support/core-definitions.js';
import { describe_, errorsOf, issuesWith } from './support/helpers.js';

const narrative = { status: 'generated', div: '<div xmlns="http://www.w3.org/1999/xhtml">x</div>' };

/** A loaded, complete code system with a hierarchy, a property and a filter. */
const colours = {
  resourceType: 'CodeSystem', id: 'colours', url: 'http://example.net/fhir/CodeSystem/colours', version: '2.0.0', name: 'Colours', status: 'active',
  content: 'complete', caseSensitive: true, hierarchyMeaning: 'is-a', count: 3,
  property: [{ code: 'shade', uri: 'http://example.net/fhir/properties#shade', type: 'integer' }],
  filter: [{ code: 'shade', operator: ['=', 'in'], value: 'an integer' }],
  concept: [{ code: 'red', display: 'Red', concept: [{ code: 'crimson', display: 'Crimson' }] }, { code: 'blue', display: 'Blue' }],
};
const fragment = { resourceType: 'CodeSystem', url: 'http://example.net/fhir/CodeSystem/partial', name: 'Partial', status: 'active', content: 'fragment', concept: [{ code: 'a' }] };
const supplementCs = { resourceType: 'CodeSystem', url: 'http://example.net/fhir/CodeSystem/colours-supp', name: 'Supp', status: 'active', content: 'supplement', supplements: 'http://example.net/fhir/CodeSystem/colours' };
const animalsVs = { resourceType: 'ValueSet', url: 'http://example.net/fhir/ValueSet/animals', status: 'active', compose: { include: [{ system: 'http://example.net/fhir/CodeSystem/animals' }] } };

const valueSet = (compose: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
  resourceType: 'ValueSet', text: narrative, url: 'http://example.net/fhir/ValueSet/test', name: 'Test', status: 'active', compose, ...extra,
});

describe('engine: terminology resource validators', function () {
  this.timeout(60_000);
  let v: Validator;
  before(async () => {
    v = new Validator(await sourceWith([colours, fragment, supplementCs, animalsVs]));
  });

  describe('ValueSet compose', () => {
    it('accepts includes of known codes, filters that fit the code system, and imports that exist', () => {
      const o = v.validate(valueSet({
        include: [
          { system: colours.url, concept: [{ code: 'red', display: 'Red' }, { code: 'crimson', display: 'Crimson' }] },
          { system: colours.url, filter: [{ property: 'concept', op: 'is-a', value: 'red' }, { property: 'shade', op: 'in', value: '1,2' }] },
          { valueSet: ['http://example.net/fhir/ValueSet/animals'] },
        ],
        exclude: [{ system: colours.url, concept: [{ code: 'blue' }] }],
      }));
      expect(errorsOf(o), describe_(o)).to.deep.equal([]);
    });

    it('reports codes that are not in a complete code system, in includes and excludes, at the concept', () => {
      const o = v.validate(valueSet({ include: [{ system: colours.url, concept: [{ code: 'red' }, { code: 'green' }] }], exclude: [{ system: colours.url, version: '2.0.0', concept: [{ code: 'Blue' }] }] }));
      expect(issuesWith(o, "The code 'green' is not valid in the system", 'ValueSet.compose.include[0].concept[1]'), describe_(o)).to.have.length(1);
      expect(issuesWith(o, "The code 'Blue' is not valid in the system http://example.net/fhir/CodeSystem/colours version 2.0.0", 'ValueSet.compose.exclude[0].concept[0]'), describe_(o)).to.have.length(1);
      expect(errorsOf(o)).to.have.length(2);
    });

    it('does not judge codes of a fragment, or of a system it does not have', () => {
      const o = v.validate(valueSet({ include: [{ system: fragment.url, concept: [{ code: 'zzz' }] }, { system: 'http://loinc.org', concept: [{ code: 'not-a-loinc-code' }] }] }));
      expect(errorsOf(o), describe_(o)).to.deep.equal([]);
      expect(issuesWith(o, "references CodeSystem 'http://example.net/fhir/CodeSystem/partial' which has status 'fragment'", 'ValueSet.compose.include[0]')[0]?.severity).to.equal('information');
    });

    it('reports a relative system, a #fragment system and the contained code system it names', () => {
      const o = v.validate(valueSet({ include: [{ system: 'colours', concept: [{ code: 'x' }] }, { system: '#cs1' }, { system: '#vs2' }] }, {
        contained: [{ resourceType: 'CodeSystem', id: 'cs1', url: 'http://example.net/cs1', status: 'active', content: 'complete' }, { resourceType: 'ValueSet', id: 'vs2', status: 'active' }],
      }));
      expect(issuesWith(o, 'URI values in ValueSet.compose.include.system must be absolute', 'ValueSet.compose.include[0]'), describe_(o)).to.have.length(1);
      expect(issuesWith(o, 'To reference a contained code system', 'ValueSet.compose.include[1]'), describe_(o)).to.have.length(1);
      expect(issuesWith(o, 'No matching contained code system', 'ValueSet.compose.include[1]'), describe_(o)).to.have.length(0);
      expect(issuesWith(o, "the contained resource with that id is not a CodeSystem, it's a ValueSet", 'ValueSet.compose.include[2]'), describe_(o)).to.have.length(1);
      expect(issuesWith(o, "No matching contained code system found for system '#vs2'", 'ValueSet.compose.include[2]'), describe_(o)).to.have.length(1);
    });

    it('keeps versions out of the system, and refuses a supplement or a value set as the system', () => {
      const o = v.validate(valueSet({ include: [
        { system: `${colours.url}|2.0.0` },
        { system: `${colours.url}|1.0.0`, version: '2.0.0' },
        { system: supplementCs.url },
        { system: animalsVs.url },
      ] }));
      expect(issuesWith(o, "The system carries a version ('2.0.0')", 'ValueSet.compose.include[0]'), describe_(o)).to.have.length(1);
      expect(issuesWith(o, "which differs from include.version '2.0.0'", 'ValueSet.compose.include[1]'), describe_(o)).to.have.length(1);
      expect(issuesWith(o, 'which is a supplement', 'ValueSet.compose.include[2]'), describe_(o)).to.have.length(1);
      expect(issuesWith(o, 'is actually a value set', 'ValueSet.compose.include[3]'), describe_(o)).to.have.length(1);
      expect(errorsOf(o)).to.have.length(4);
    });

    it('warns about concepts without a system and imports that cannot be found', () => {
      const o = v.validate(valueSet({ include: [{ concept: [{ code: 'a' }] }, { valueSet: ['http://example.net/fhir/ValueSet/missing', colours.url] }] }));
      // the errors are the invariants' (vsd-1, vsd-2): the rule itself only warns
      expect(errorsOf(o).map((i) => i.details.text.slice(0, 10)), describe_(o)).to.deep.equal(['Rule vsd-1', 'Rule vsd-2']);
      expect(issuesWith(o, 'No System specified', 'ValueSet.compose.include[0]')[0]?.severity).to.equal('warning');
      expect(issuesWith(o, 'could not be found so cannot be checked', 'ValueSet.compose.include[1].valueSet[0]')[0]?.severity).to.equal('warning');
      expect(issuesWith(o, 'points to a resource of type CodeSystem', 'ValueSet.compose.include[1].valueSet[1]')[0]?.severity).to.equal('warning');
    });

    it('reports filters whose operation, value or property does not fit', () => {
      const o = v.validate(valueSet({ include: [{ system: colours.url, filter: [
        { property: 'concept', op: 'regex', value: '[a-' },
        { property: 'concept', op: 'is-a', value: 'purple' },
        { property: 'shade', op: 'is-a', value: 'x1' },
        { property: 'inactive', op: '=', value: 'yes' },
        { property: 'effectiveDate', op: '=', value: '2020-13-01' },
        { property: 'flavour', op: '=', value: 'sweet' },
      ] }] }));
      const at = (i: number) => `ValueSet.compose.include[0].filter[${i}]`;
      expect(issuesWith(o, "The operation 'regex' is not allowed for property 'concept'", at(0)), describe_(o)).to.have.length(1);
      expect(issuesWith(o, 'should be a valid regex', at(0)), describe_(o)).to.have.length(1);
      expect(issuesWith(o, 'Cannot apply a regex filter', at(0)), describe_(o)).to.have.length(1);
      expect(issuesWith(o, "and 'purple' is not", at(1)), describe_(o)).to.have.length(1);
      expect(issuesWith(o, "The operation 'is-a' is not allowed for property 'shade'. Allowed ops: =,in", at(2)), describe_(o)).to.have.length(1);
      expect(issuesWith(o, "must be integer value, not 'x1'", at(2)), describe_(o)).to.have.length(1);
      expect(issuesWith(o, "must be either 'true' or 'false', not 'yes'", at(3)), describe_(o)).to.have.length(1);
      expect(issuesWith(o, "must be a valid date(/time), not '2020-13-01'", at(4)), describe_(o)).to.have.length(1);
      expect(issuesWith(o, "The property 'flavour' is not known", at(5))[0]?.severity, describe_(o)).to.equal('warning');
      expect(errorsOf(o)).to.have.length(8);
    });

    it('accepts Java regex syntax in a regex filter, and leaves filters on systems with their own grammar alone', () => {
      const o = v.validate(valueSet({ include: [
        { system: colours.url, filter: [{ property: 'code', op: 'regex', value: '(?i)r.*' }] },
        { system: 'http://snomed.info/sct', filter: [{ property: 'concept', op: 'regex', value: '[' }] },
      ] }));
      expect(errorsOf(o), describe_(o)).to.deep.equal([]);
    });
  });

  describe('CodeSystem', () => {
    const cs = (extra: Record<string, unknown>) => ({ resourceType: 'CodeSystem', text: narrative, url: 'http://example.net/fhir/CodeSystem/x', name: 'X', status: 'active', ...extra });

    it('accepts a complete code system whose count, codes and properties agree', () => {
      const o = v.validate(cs({ content: 'complete', caseSensitive: true, hierarchyMeaning: 'is-a', count: 3,
        property: [{ code: 'parent', uri: 'http://hl7.org/fhir/concept-properties#parent', type: 'code' }],
        concept: [{ code: 'a', concept: [{ code: 'a1', property: [{ code: 'parent', valueCode: 'a' }] }] }, { code: 'b' }] }));
      expect(errorsOf(o), describe_(o)).to.deep.equal([]);
    });

    it('reports a wrong count, concepts when content is not-present, and duplicate codes at the duplicate', () => {
      const wrong = v.validate(cs({ content: 'complete', caseSensitive: true, count: 5, concept: [{ code: 'a' }, { code: 'b', concept: [{ code: 'a' }] }] }));
      expect(issuesWith(wrong, 'the number of concepts (3) does not match the stated total number (5)', 'CodeSystem.count'), describe_(wrong)).to.have.length(1);
      expect(issuesWith(wrong, "The code 'a' has already been defined", 'CodeSystem.concept[1].concept[0]'), describe_(wrong)).to.have.length(1);
      const notPresent = v.validate(cs({ content: 'not-present', caseSensitive: true, concept: [{ code: 'a' }] }));
      expect(issuesWith(notPresent, 'says it has no content present, but concepts are found', 'CodeSystem.concept[0]'), describe_(notPresent)).to.have.length(1);
      const fragmentCount = v.validate(cs({ content: 'fragment', caseSensitive: true, count: 1, concept: [{ code: 'a' }] }));
      expect(errorsOf(fragmentCount), describe_(fragmentCount)).to.deep.equal([]);
      expect(issuesWith(fragmentCount, 'exceeds or matches the stated total number', 'CodeSystem.count')[0]?.severity).to.equal('warning');
    });

    it('supplements: content must say supplement, no caseSensitive, and codes must be in the loaded base', () => {
      const o = v.validate(cs({ content: 'complete', caseSensitive: true, supplements: colours.url, concept: [{ code: 'red' }, { code: 'mauve' }] }));
      expect(issuesWith(o, "CodeSystem Supplements SHALL have a content value of 'supplement'", 'CodeSystem.content'), describe_(o)).to.have.length(1);
      expect(issuesWith(o, 'SHOULD NOT have a stated value for the caseSensitive element', 'CodeSystem.caseSensitive'), describe_(o)).to.have.length(1);
      expect(issuesWith(o, "The code 'mauve' is not declared in the base CodeSystem", 'CodeSystem.concept[1]'), describe_(o)).to.have.length(1);
      expect(errorsOf(o)).to.have.length(3);
      const noBase = v.validate(cs({ content: 'supplement' }));
      expect(issuesWith(noBase, 'SHALL have a supplements element', 'CodeSystem.content'), describe_(noBase)).to.have.length(1);
      expect(issuesWith(noBase, 'does not define what code system it supplements', 'CodeSystem'), describe_(noBase)).to.have.length(1);
    });

    it('reports property definitions and values that do not agree', () => {
      const o = v.validate(cs({ content: 'complete', caseSensitive: true,
        property: [
          { code: 'parent', uri: 'http://hl7.org/fhir/concept-properties#parent', type: 'string' },
          { code: 'weight', uri: 'http://hl7.org/fhir/concept-properties#weight', type: 'decimal' },
          { code: 'weight', uri: 'http://example.net/weight', type: 'decimal' },
        ],
        concept: [{ code: 'a', property: [{ code: 'weight', valueString: 'heavy' }, { code: 'colour', valueCode: 'x' }] }] }));
      expect(issuesWith(o, "Wrong type 'string': The URI 'http://hl7.org/fhir/concept-properties#parent' identifies a property that has the type 'code'", 'CodeSystem.property[0]'), describe_(o)).to.have.length(1);
      expect(issuesWith(o, "Unknown CodeSystem Property 'http://hl7.org/fhir/concept-properties#weight'", 'CodeSystem.property[1]'), describe_(o)).to.have.length(1);
      expect(issuesWith(o, "A property is already defined with the code 'weight'", 'CodeSystem.property[2]'), describe_(o)).to.have.length(1);
      expect(issuesWith(o, "The property 'weight' has the invalid type 'string', when it is defined to have the type 'decimal'", 'CodeSystem.concept[0].property[0]'), describe_(o)).to.have.length(1);
      expect(issuesWith(o, "The property 'colour' has no definition", 'CodeSystem.concept[0].property[1]')[0]?.severity, describe_(o)).to.equal('warning');
      expect(errorsOf(o)).to.have.length(4);
    });

    it('a parent property must name a code of the code system', () => {
      const o = v.validate(cs({ content: 'complete', caseSensitive: true,
        property: [{ code: 'parent', uri: 'http://hl7.org/fhir/concept-properties#parent', type: 'code' }],
        concept: [{ code: 'a', property: [{ code: 'parent', valueCode: 'zz' }] }] }));
      expect(issuesWith(o, "The code 'zz' is not a valid code in this code system", 'CodeSystem.concept[0].property[0]'), describe_(o)).to.have.length(1);
    });

    it('asks (as warnings) for content details of HL7 code systems, and only hints for others', () => {
      const hl7 = v.validate(cs({ url: 'http://hl7.org/fhir/CodeSystem/test-only', content: 'complete', concept: [{ code: 'a', concept: [{ code: 'b' }] }] }));
      expect(issuesWith(hl7, 'HL7 Defined CodeSystems SHOULD have a stated value for the caseSensitive element')[0]?.severity, describe_(hl7)).to.equal('warning');
      expect(issuesWith(hl7, 'HL7 Defined CodeSystems SHOULD have a stated value for the hierarchyMeaning element')[0]?.severity, describe_(hl7)).to.equal('warning');
      const other = v.validate(cs({ content: 'complete', concept: [{ code: 'a' }] }));
      expect(issuesWith(other, 'CodeSystems SHOULD have a stated value for the caseSensitive element')[0]?.severity, describe_(other)).to.equal('information');
    });
    it('reports where the value stands in the text: a nested concept at the concept, a missing element at the CodeSystem', () => {
      const text = [
        '{"resourceType": "CodeSystem", "url": "http://hl7.org/fhir/CodeSystem/test-only", "name": "X", "status": "active",',
        ' "content": "complete",',
        ' "concept": [{"code": "a", "display": "A", "definition": "a",',
        '   "concept": [{"code": "a", "display": "A", "definition": "a"}]}]}',
      ].join('\n');
      const o = v.validate(text);
      const lineCol = (i: Issue | undefined) => [i?.extension?.find((e) => e.url === EXT_LINE)?.valueInteger, i?.extension?.find((e) => e.url === EXT_COL)?.valueInteger];
      expect(lineCol(issuesWith(o, "The code 'a' has already been defined", 'CodeSystem.concept[0].concept[0]')[0]), describe_(o)).to.deep.equal([4, 16]);
      expect(lineCol(issuesWith(o, 'SHOULD have a stated value for the caseSensitive element', 'CodeSystem')[0]), describe_(o)).to.deep.equal([1, 1]);
    });
  });

  describe('ConceptMap', () => {
    it('checks element and target codes against loaded complete code systems', () => {
      const cm = {
        resourceType: 'ConceptMap', text: narrative, url: 'http://example.net/fhir/ConceptMap/m', status: 'active',
        group: [{ source: colours.url, target: 'http://example.net/fhir/CodeSystem/unknown', element: [
          { code: 'red', display: 'Red', target: [{ code: 'anything', equivalence: 'equivalent' }] },
          { code: 'green', target: [{ code: 'x', equivalence: 'equivalent' }] },
          { code: 'blue', display: 'Navy', target: [{ code: 'y', equivalence: 'equivalent' }] },
        ] }],
      };
      const o = v.validate(cm);
      expect(issuesWith(o, "The source code 'green' is not valid in the code system", 'ConceptMap.group[0].element[1].code'), describe_(o)).to.have.length(1);
      expect(errorsOf(o)).to.have.length(1);
      expect(issuesWith(o, "The source display 'Navy'", 'ConceptMap.group[0].element[2].code')[0]?.severity).to.equal('warning');
      expect(issuesWith(o, 'The Target Code System http://example.net/fhir/CodeSystem/unknown is not fully defined', 'ConceptMap.group[0].target')[0]?.severity).to.equal('warning');
    });
  });

  describe('Attachment', () => {
    const media = (content: Record<string, unknown>) => ({ resourceType: 'Media', text: narrative, status: 'completed', content });

    it('accepts data whose stated size is its decoded size', () => {
      const o = v.validate(media({ contentType: 'text/plain', data: 'aGVsbG8=', size: 5 }));
      expect(errorsOf(o), describe_(o)).to.deep.equal([]);
    });

    it('reports a stated size that differs from the data, at the Attachment', () => {
      const o = v.validate(media({ contentType: 'text/plain', data: 'aGVsbG8=', size: 7 }));
      expect(issuesWith(o, 'Stated Attachment Size 7 does not match actual attachment size 5', 'Media.content'), describe_(o)).to.have.length(1);
      expect(errorsOf(o)).to.have.length(1);
    });

    it('reports undecodable data once: at the Attachment when the base64 check lets it through, else at the data', () => {
      const dots = v.validate(media({ contentType: 'text/plain', data: '....' }));
      expect(issuesWith(dots, 'The base64 content in the data element is not valid base64: Illegal base64 character 2e', 'Media.content'), describe_(dots)).to.have.length(1);
      expect(errorsOf(dots)).to.have.length(1);
      const count = v.validate(media({ contentType: 'text/plain', data: 'abc' }));
      expect(issuesWith(count, "The value 'abc' is not a valid Base64 value", 'Media.content.data'), describe_(count)).to.have.length(1);
      expect(errorsOf(count)).to.have.length(1);
    });

    it('warns about an attachment with no content at all', () => {
      const o = v.validate(media({ title: 'nothing' }));
      expect(errorsOf(o), describe_(o)).to.deep.equal([]);
      expect(issuesWith(o, 'Attachments have data and/or url', 'Media.content')[0]?.severity).to.equal('warning');
    });
  });
});
