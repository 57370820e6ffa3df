/**
 * Rules that need another resource or more than one element: QuestionnaireResponse against its
 * Questionnaire, MeasureReport against its Measure, references in document Bundles, additional
 * bindings, date limits as durations, narrative links. Fixtures are hand-written.
 */
import { expect } from 'chai';
import { Validator } from '#validation/domain/engine/validator.js';
import type { TerminologyPort } from '#validation/domain/ports/terminology.js';
import { sourceWith } from './support/core-definitions.js';
import { describe_, errorsOf, issuesWith, profile } from './support/helpers.js';

const narrative = { status: 'generated', div: '<div xmlns="http://www.w3.org/1999/xhtml">x</div>' };

const questionnaire = {
  resourceType: 'Questionnaire', url: 'http://example.org/Questionnaire/q', status: 'active',
  item: [
    { linkId: 'age', type: 'integer', extension: [{ url: 'http://hl7.org/fhir/StructureDefinition/minValue', valueInteger: 0 }, { url: 'http://hl7.org/fhir/StructureDefinition/maxValue', valueInteger: 120 }] },
    { linkId: 'name', type: 'string', maxLength: 5 },
    { linkId: 'email', type: 'string', extension: [{ url: 'http://hl7.org/fhir/StructureDefinition/regex', valueString: '[^@]+@[^@]+' }] },
    { linkId: 'many', type: 'string', repeats: true },
  ],
};

const measure = {
  resourceType: 'Measure', url: 'http://example.org/Measure/m', status: 'active',
  scoring: { coding: [{ system: 'http://terminology.hl7.org/CodeSystem/measure-scoring', code: 'cohort' }] },
  group: [{ code: { coding: [{ system: 'http://x', code: 'g' }] }, stratifier: [{ id: 's1', code: { coding: [{ system: 'http://x', code: 'age' }] } }] }],
};

/** A canonical resource of another type at a url a report names as its Measure. */
const notAMeasure = { resourceType: 'Library', url: 'http://example.org/Library/not-a-measure', status: 'active', type: { coding: [{ system: 'http://terminology.hl7.org/CodeSystem/library-type', code: 'logic-library' }] } };

const POP = 'http://terminology.hl7.org/CodeSystem/measure-population';
const pop = (code: string) => ({ code: { coding: [{ system: POP, code }] } });
const scored = (scoring: string, extra: Record<string, unknown> = {}) => ({
  resourceType: 'Measure', url: `http://example.org/Measure/${scoring}`, status: 'active', ...extra,
  scoring: { coding: [{ system: 'http://terminology.hl7.org/CodeSystem/measure-scoring', code: scoring }] },
  group: [{ population: [pop('initial-population')] }],
});
const twoGroups = {
  resourceType: 'Measure', url: 'http://example.org/Measure/two-groups', status: 'active',
  scoring: { coding: [{ system: 'http://terminology.hl7.org/CodeSystem/measure-scoring', code: 'cohort' }] },
  group: ['g1', 'g2'].map((g) => ({ code: { coding: [{ system: 'http://x', code: g }] }, population: [pop('initial-population'), pop('numerator')], stratifier: [{ code: { text: 'age band' } }] })),
};

describe('engine: business rules across resources', function () {
  this.timeout(60_000);
  let v: Validator;
  before(async () => {
    v = new Validator(await sourceWith([questionnaire, measure, twoGroups, notAMeasure, scored('composite'), scored('proportion'), scored('ratio', { extension: [{ url: 'http://hl7.org/fhir/StructureDefinition/questionnaire-unit', valueCoding: { system: 'http://unitsofmeasure.org', code: '%' } }] })]));
  });

  const qr = (items: unknown[]) => ({ resourceType: 'QuestionnaireResponse', text: narrative, questionnaire: 'http://example.org/Questionnaire/q', status: 'completed', item: items });

  describe('QuestionnaireResponse against its Questionnaire', () => {
    it('accepts answers that fit the questions', () => {
      const o = v.validate(qr([{ linkId: 'age', answer: [{ valueInteger: 40 }] }, { linkId: 'name', answer: [{ valueString: 'Ann' }] }, { linkId: 'many', answer: [{ valueString: 'a' }, { valueString: 'b' }] }]));
      expect(errorsOf(o), describe_(o)).to.deep.equal([]);
    });

    it('reports unknown linkIds, wrong answer types, limits, lengths, formats and repeats', () => {
      const o = v.validate(qr([
        { linkId: 'nope', answer: [{ valueString: 'x' }] },
        { linkId: 'age', answer: [{ valueInteger: 130 }] },
        { linkId: 'name', answer: [{ valueString: 'Annabel' }, { valueString: 'Bo' }] },
        { linkId: 'email', answer: [{ valueCoding: { code: 'x' } }, { valueString: 'not-an-email' }] },
      ]));
      expect(issuesWith(o, "LinkId 'nope' not found in questionnaire", 'QuestionnaireResponse')).to.have.length(1);
      expect(issuesWith(o, 'The value 130 is greater than the allowed maximum of 120', 'QuestionnaireResponse.item[1].answer[0].value.ofType(integer)')).to.have.length(1);
      expect(issuesWith(o, "The answer 'Annabel' is longer then the allowed maximum length of 5", 'QuestionnaireResponse.item[2].answer[0].value.ofType(string)')).to.have.length(1);
      expect(issuesWith(o, 'Only one response answer item with this linkId allowed', 'QuestionnaireResponse.item[2]')).to.have.length(1);
      expect(issuesWith(o, 'Answer value must be of the type string not Coding', 'QuestionnaireResponse.item[3].answer[0].value.ofType(Coding)')).to.have.length(1);
      expect(issuesWith(o, "The answer 'not-an-email' does not conform to the expected format", 'QuestionnaireResponse.item[3].answer[1].value.ofType(string)')).to.have.length(1);
    });

    it('warns when the Questionnaire cannot be found (only informs for example.org urls, as the HL7 validator)', () => {
      const o = v.validate({ ...qr([]), questionnaire: 'http://forms.example.net/Questionnaire/unknown' });
      expect(issuesWith(o, "The questionnaire 'http://forms.example.net/Questionnaire/unknown' could not be resolved", 'QuestionnaireResponse')[0]?.severity).to.equal('warning');
      const example = v.validate({ ...qr([]), questionnaire: 'http://example.org/Questionnaire/unknown' });
      expect(issuesWith(example, "The questionnaire 'http://example.org/Questionnaire/unknown' could not be resolved", 'QuestionnaireResponse')[0]?.severity).to.equal('information');
    });
  });

  describe('MeasureReport against its Measure', () => {
    const report = (group: Record<string, unknown>) => ({ resourceType: 'MeasureReport', text: narrative, status: 'complete', type: 'summary', measure: 'http://example.org/Measure/m', period: { start: '2024-01-01', end: '2024-01-31' }, group: [group] });

    it('accepts a report whose stratifiers match the measure', () => {
      const o = v.validate(report({ code: { coding: [{ system: 'http://x', code: 'g' }] }, stratifier: [{ code: [{ coding: [{ system: 'http://x', code: 'age' }] }] }] }));
      expect(errorsOf(o), describe_(o)).to.deep.equal([]);
    });

    it('reports a measureScore on a cohort measure and stratifiers that do not match', () => {
      const o = v.validate(report({ code: { coding: [{ system: 'http://x', code: 'g' }] }, measureScore: { value: 1 }, stratifier: [{ code: [{ coding: [{ system: 'http://x', code: 'sex' }] }] }] }));
      expect(issuesWith(o, "No measureScore when the scoring of the message is ''cohort''", 'MeasureReport.group[0].measureScore')).to.have.length(1);
      expect(issuesWith(o, 'Group should have a code that matches the group stratifier definition', 'MeasureReport.group[0].stratifier[0]')).to.have.length(1);
      expect(issuesWith(o, "does not include a stratifier for the stratifier with code 'age' (id = 's1')", 'MeasureReport.group[0]')).to.have.length(1);
    });
  });

  describe('MeasureReport and the Measure it names (HL7 validateMeasureReport)', () => {
    const base = { resourceType: 'MeasureReport', text: narrative, status: 'complete', type: 'summary', period: { start: '2024-01-01', end: '2024-01-31' } };
    const groupG = { code: { coding: [{ system: 'http://x', code: 'g' }] }, stratifier: [{ code: [{ coding: [{ system: 'http://x', code: 'age' }] }] }] };

    it('a Measure that does not resolve is a warning at the report, and nothing is checked against it', () => {
      for (const url of ['http://example.org/Measure/unknown', 'http://example.org/Library/not-a-measure']) {
        const o = v.validate({ ...base, measure: url, group: [{ measureScore: { value: 1 } }] });
        const notFound = issuesWith(o, `The Measure '${url}' could not be resolved, so no validation can be performed against the Measure`, 'MeasureReport');
        expect(notFound.map((i) => i.severity), describe_(o)).to.deep.equal(['warning']);
        expect(errorsOf(o), describe_(o)).to.deep.equal([]);
      }
    });

    it('a report that names no Measure only informs', () => {
      const o = v.validate({ ...base, group: [groupG] });
      expect(issuesWith(o, 'No Measure is identified, so no validation can be performed against the Measure', 'MeasureReport').map((i) => i.severity)).to.deep.equal(['information']);
    });

    it('a contained Measure named by #id is the one checked against', () => {
      const contained = { ...measure, id: 'm1', url: undefined };
      const o = v.validate({ ...base, contained: [contained], measure: '#m1', group: [{ ...groupG, measureScore: { value: 1 } }] });
      expect(issuesWith(o, 'could not be resolved', 'MeasureReport'), describe_(o)).to.deep.equal([]);
      expect(issuesWith(o, "No measureScore when the scoring of the message is ''cohort''", 'MeasureReport.group[0].measureScore')).to.have.length(1);
      const missing = v.validate({ ...base, contained: [contained], measure: '#other', group: [groupG] });
      expect(issuesWith(missing, "The Measure '#other' could not be resolved", 'MeasureReport')).to.have.length(1);
    });

    it('a Measure whose scoring HL7 does not know informs at measure that its scores cannot be checked', () => {
      const o = v.validate({ ...base, measure: 'http://example.org/Measure/composite', group: [] });
      expect(issuesWith(o, 'The scoring system in this measure is unknown, so the measureScore values cannot be checked', 'MeasureReport.measure').map((i) => i.severity), describe_(o)).to.deep.equal(['information']);
      const known = v.validate({ ...base, measure: 'http://example.org/Measure/m', group: [groupG] });
      expect(issuesWith(known, 'The scoring system in this measure is unknown')).to.deep.equal([]);
    });
  });

  describe('MeasureReport groups and populations against the Measure (HL7 MeasureValidator)', () => {
    const report = (groups: unknown[], type = 'summary') => ({ resourceType: 'MeasureReport', text: narrative, status: 'complete', type, measure: 'http://example.org/Measure/two-groups', period: { start: '2024-01-01', end: '2024-01-31' }, group: groups });
    const group = (code: string | undefined, pops: string[], extra: Record<string, unknown> = {}) => ({
      ...(code ? { code: { coding: [{ system: 'http://x', code }] } } : {}), population: pops.map((p) => ({ ...pop(p), count: 1 })), stratifier: [{ code: [{ text: 'age band' }] }], ...extra,
    });
    const found = (o: ReturnType<Validator['validate']>) => errorsOf(o).map((i) => `${i.expression?.[0]} ${i.details.text}`).sort();

    it('groups matched by code, each population and stratifier (a text-only code matches by text) reported: no error', () => {
      const o = v.validate(report([group('g1', ['initial-population', 'numerator']), group('g2', ['initial-population', 'numerator'])]));
      expect(errorsOf(o), describe_(o)).to.deep.equal([]);
    });

    it('a group without a code, a population the group does not define, and what the Measure defines but the report leaves out', () => {
      const o = v.validate(report([group(undefined, ['initial-population']), group('g1', ['initial-population', 'denominator'])]));
      expect(found(o), describe_(o)).to.deep.equal([
        "MeasureReport The MeasureReport does not include a group for the group with code 'g2'",
        'MeasureReport.group[0] Group should have a code that matches the group definition in the measure',
        "MeasureReport.group[1] The MeasureReport does not include a group for the group with code 'numerator'",
        'MeasureReport.group[1].population[1] The code for this group population has no match in the measure definition',
      ]);
    });

    it('a subject list counts its subjects; other reports list none', () => {
      const subjects = (n: number) => ({ subjectResults: { reference: `List/l${n}` } });
      const list = v.validate(report([group('g1', ['initial-population', 'numerator']), group('g2', ['initial-population', 'numerator'])].map((g) => ({ ...g, population: g.population.map((p) => ({ ...p, count: 3, ...subjects(1) })) })), 'subject-list'));
      expect(issuesWith(list, 'Mismatch between count 3 and number of subjects 1'), describe_(list)).to.have.length(4);
      const summary = v.validate(report([group('g1', ['initial-population', 'numerator']), group('g2', ['initial-population', 'numerator'])].map((g, i) => (i === 0 ? { ...g, population: [{ ...g.population[0], ...subjects(2) }, g.population[1]] } : g))));
      expect(found(summary), describe_(summary)).to.deep.equal(["MeasureReport.group[0].population[0] Reports where type is not 'subject-list' don't have subjects listed"]);
    });
  });

  describe('a Measure\'s stratifier criteria in CQL against its libraries\' compiled ELM (HL7 validateMeasure)', () => {
    const elm = '<?xml version="1.0"?><library xmlns="urn:hl7-org:elm:r1"><parameters><def name="Measurement Period"/></parameters>'
      + '<statements><def name="Patient" context="Patient"/><def localId="9" name="Age Band" context="Patient"><expression/></def></statements></library>';
    const library = { resourceType: 'Library', url: 'http://example.org/Library/Screening', name: 'Screening', status: 'active', type: { text: 'logic' }, content: [{ contentType: 'application/elm+xml', data: Buffer.from(elm).toString('base64') }] };
    const measureWith = (expressions: string[], libraries = ['http://example.org/Library/Screening']) => ({
      resourceType: 'Measure', text: narrative, url: 'http://example.org/Measure/strata', status: 'active', library: libraries,
      group: [{ population: [{ code: { text: 'ip' }, criteria: { language: 'text/cql', expression: 'Nowhere.Initial' } }], stratifier: expressions.map((expression) => ({ criteria: { language: 'text/cql', expression } })) }],
    });
    let mv: Validator;
    before(async () => {
      mv = new Validator(await sourceWith([library]));
    });
    const found = (o: ReturnType<Validator['validate']>) => errorsOf(o).map((i) => `${i.expression?.[0]} ${i.details.text}`);

    it('a definition the library has passes (by namespace or the only library); population criteria are not checked', () => {
      const o = mv.validate(measureWith(['Screening.Age Band', 'Age Band']));
      expect(errorsOf(o), describe_(o)).to.deep.equal([]);
    });

    it('a definition the ELM lacks, a namespace no library has, and CQL without libraries are errors', () => {
      const o = mv.validate(measureWith(['Screening.AgesUpToNine', 'Other.Age Band']));
      expect(found(o), describe_(o)).to.deep.equal([
        'Measure.group[0].stratifier[0].criteria The function AgesUpToNine does not exist in the library http://example.org/Library/Screening',
        'Measure.group[0].stratifier[1].criteria No matching Library found for the namespace Other',
      ]);
      const none = mv.validate(measureWith(['Age Band'], []));
      expect(found(none), describe_(none)).to.deep.equal(['Measure.group[0].stratifier[0].criteria No CQL Libraries found on this Measure']);
    });
  });

  describe('a MeasureReport group\'s measureScore by the Measure\'s scoring (HL7 validateScore)', () => {
    const report = (scoring: string, group: Record<string, unknown>, type = 'summary') => ({
      resourceType: 'MeasureReport', text: narrative, status: 'complete', type, measure: `http://example.org/Measure/${scoring}`,
      period: { start: '2024-01-01', end: '2024-01-31' }, group: [{ population: [{ ...pop('initial-population'), count: 1 }], ...group }],
    });
    const found = (o: ReturnType<Validator['validate']>) => errorsOf(o).map((i) => `${i.expression?.[0]} ${i.details.text}`);

    it('a proportion is a unitless value from 0 to 1, and required', () => {
      expect(errorsOf(v.validate(report('proportion', { measureScore: { value: 0.5 } })))).to.deep.equal([]);
      expect(found(v.validate(report('proportion', {})))).to.deep.equal(['MeasureReport.group[0] A measureScore is required when the Measure.scoring=proportion']);
      expect(found(v.validate(report('proportion', { measureScore: { value: 1.5, unit: '%' } })))).to.deep.equal([
        'MeasureReport.group[0].measureScore.unit A measureScore for this Measure Scoring (proportion) should not have units',
        'MeasureReport.group[0].measureScore.value The value is invalid - it must be between 0 and 1',
      ]);
    });

    it('a ratio needs a value, in the unit the Measure fixes; a data collection reports no score', () => {
      expect(errorsOf(v.validate(report('ratio', { measureScore: { value: 3, system: 'http://unitsofmeasure.org', code: '%' } })))).to.deep.equal([]);
      expect(found(v.validate(report('ratio', { measureScore: { value: 3, system: 'http://unitsofmeasure.org', code: 'mg' } })))).to.deep.equal([
        "MeasureReport.group[0].measureScore.code This value is fixed by the Measure to '%'",
      ]);
      // (the core invariant mrp-1 says the same of the whole report)
      expect(found(v.validate(report('proportion', { measureScore: { value: 0.5 } }, 'data-collection'))).filter((t) => !t.includes('mrp-1'))).to.deep.equal([
        "MeasureReport.group[0].measureScore No measureScore when the type of the report is 'data-collection'",
      ]);
    });
  });

  describe('references in document Bundles', () => {
    const doc = (refs: string[]) => ({
      resourceType: 'Bundle', type: 'document', identifier: { system: 'http://x', value: '1' }, timestamp: '2024-01-01T00:00:00Z',
      entry: [
        { fullUrl: 'http://example.org/fhir/Composition/c1', resource: { resourceType: 'Composition', id: 'c1', text: narrative, status: 'final', type: { text: 't' }, date: '2024-01-01', author: [{ display: 'a' }], title: 't', section: [{ title: 's', text: narrative, entry: refs.map((reference) => ({ reference })) }] } },
        { fullUrl: 'http://example.org/fhir/Observation/o1', resource: { resourceType: 'Observation', id: 'o1', meta: { versionId: '1' }, text: narrative, status: 'final', code: { text: 'x' } } },
        { fullUrl: 'http://example.org/fhir/Observation/o1', resource: { resourceType: 'Observation', id: 'o1', meta: { versionId: '2' }, text: narrative, status: 'final', code: { text: 'x' } } },
      ],
    });

    it('a versioned reference resolves to its version', () => {
      const o = v.validate(doc(['Observation/o1/_history/2']));
      expect(issuesWith(o, 'in the bundle').concat(issuesWith(o, 'Multiple matches')), describe_(o)).to.deep.equal([]);
    });

    it('ambiguous and unresolvable references: errors from the document rules (at the HL7 validator\'s 1-based locations), a warning from the walk', () => {
      const o = v.validate(doc(['Observation/o1', 'Observation/o1/_history/3']));
      const section = "Bundle.entry[0].resource.ofType(Composition).where(id = 'c1').section[0]";
      expect(issuesWith(o, 'Multiple matches in bundle for reference Observation/o1', `${section}.entry[0]`)[0]?.severity, describe_(o)).to.equal('error');
      expect(issuesWith(o, "Can't find 'Observation/o1/_history/3' in the bundle", `${section}.entry[1]`)[0]?.severity).to.equal('warning');
      expect(issuesWith(o, "Found 2 matches for 'Observation/o1' in the bundle (Section Entry)", 'Bundle.entry[1].resource.section[1].entry[1]')[0]?.severity).to.equal('error');
      expect(issuesWith(o, "Can't find 'Observation/o1/_history/3' in the bundle (Section Entry). Note that there are 2 resources", 'Bundle.entry[1].resource.section[1].entry[2]')[0]?.severity).to.equal('error');
    });
  });

  it('additional bindings (required purpose) are checked with the terminology port', async () => {
    const p = profile('http://example.org/StructureDefinition/extra-binding', 'Observation', [
      { id: 'Observation.code', path: 'Observation.code', binding: { strength: 'example', valueSet: 'http://example.org/vs/any', extension: [{ url: 'http://hl7.org/fhir/tools/StructureDefinition/additional-binding', extension: [{ url: 'purpose', valueCode: 'required' }, { url: 'valueSet', valueCanonical: 'http://example.org/vs/strict' }] }] } },
    ]);
    const port: TerminologyPort = { validateCode: (r) => ({ valid: r.valueSet === 'http://example.org/vs/strict' ? r.codings?.some((c) => c.code === 'ok') : undefined, issues: [], source: 'local' }) };
    const tv = new Validator(await sourceWith([p]), port);
    const opts = { profiles: ['http://example.org/StructureDefinition/extra-binding'] };
    const ok = tv.validate({ resourceType: 'Observation', text: narrative, status: 'final', code: { coding: [{ system: 'http://x', code: 'ok' }] } }, opts);
    expect(errorsOf(ok), describe_(ok)).to.deep.equal([]);
    const bad = tv.validate({ resourceType: 'Observation', text: narrative, status: 'final', code: { coding: [{ system: 'http://x', code: 'other' }] } }, opts);
    expect(issuesWith(bad, 'specified in an additional binding', 'Observation.code')).to.have.length(1);
  });

  it('minValueDuration on a date: no further back than the duration', async () => {
    const p = profile('http://example.org/StructureDefinition/recent-birth', 'Patient', [
      { id: 'Patient.birthDate', path: 'Patient.birthDate', minValueDuration: { value: 100, unit: 'a', system: 'http://unitsofmeasure.org', code: 'a' } },
    ]);
    const dv = new Validator(await sourceWith([p]));
    const opts = { profiles: ['http://example.org/StructureDefinition/recent-birth'] };
    expect(errorsOf(dv.validate({ resourceType: 'Patient', text: narrative, birthDate: '1990-05-01' }, opts))).to.deep.equal([]);
    expect(issuesWith(dv.validate({ resourceType: 'Patient', text: narrative, birthDate: '1850-05-01' }, opts), 'less than the specified minimum value', 'Patient.birthDate')).to.have.length(1);
  });

  it('narrative hyperlinks to #anchors must resolve', () => {
    const div = (href: string) => `<div xmlns="http://www.w3.org/1999/xhtml"><a name="here"> </a><a href="${href}">link</a></div>`;
    expect(errorsOf(v.validate({ resourceType: 'Patient', text: { status: 'generated', div: div('#here') } }))).to.deep.equal([]);
    const o = v.validate({ resourceType: 'Patient', text: { status: 'generated', div: div('#nowhere') } });
    expect(issuesWith(o, "Hyperlink '#nowhere' at 'div/a' for 'link' does not resolve", 'Patient.text.div')).to.have.length(1);
  });

  it('CapabilityStatement search parameters must have the type of the SearchParameter they cite', () => {
    const cs = (type: string) => ({ resourceType: 'CapabilityStatement', text: narrative, status: 'active', date: '2024-01-01', kind: 'instance', fhirVersion: '4.0.1', format: ['json'], implementation: { description: 'x' },
      rest: [{ mode: 'server', resource: [{ type: 'Patient', searchParam: [{ name: 'gender', definition: 'http://hl7.org/fhir/SearchParameter/individual-gender', type }] }] }] });
    expect(errorsOf(v.validate(cs('token'))), describe_(v.validate(cs('token')))).to.deep.equal([]);
    expect(issuesWith(v.validate(cs('date')), 'Type mismatch', 'CapabilityStatement.rest[0].resource[0].searchParam[0]')).to.have.length(1);
  });

  it('a derived SearchParameter keeps the bases of its parent and uses them in its expression', () => {
    const sp = (base: string, expression: string) => ({ resourceType: 'SearchParameter', text: narrative, url: 'http://example.org/sp', name: 'n', status: 'active', description: 'd', code: 'name', base: [base], type: 'string', expression, derivedFrom: 'http://hl7.org/fhir/SearchParameter/Organization-name' });
    expect(errorsOf(v.validate(sp('Organization', 'Organization.name')))).to.deep.equal([]);
    const o = v.validate(sp('Patient', 'Organization.name'));
    expect(issuesWith(o, 'The resource type Patient is not listed as a base', 'SearchParameter')).to.have.length(1);
    expect(issuesWith(o, "The name 'Organization' is not valid", 'SearchParameter.expression')).to.have.length(1);
  });

  describe('differential-only StructureDefinitions', () => {
    const sd = (elements: Record<string, unknown>[]) => ({
      resourceType: 'StructureDefinition', text: narrative, url: 'http://example.org/StructureDefinition/p', name: 'P', status: 'draft', kind: 'resource', abstract: false,
      type: 'Patient', baseDefinition: 'http://hl7.org/fhir/StructureDefinition/Patient', derivation: 'constraint', differential: { element: elements },
    });

    it('accepts a well-formed differential', () => {
      const o = v.validate(sd([{ id: 'Patient.identifier', path: 'Patient.identifier', min: 1 }, { id: 'Patient.birthDate', path: 'Patient.birthDate', min: 1 }]));
      expect(errorsOf(o), describe_(o)).to.deep.equal([]);
    });

    it('reports elements out of order, bindings on non-coded types, bad choice renames and bad discriminators', () => {
      const o = v.validate(sd([
        { id: 'Patient.birthDate', path: 'Patient.birthDate', binding: { strength: 'required', valueSet: 'http://example.org/vs' } },
        { id: 'Patient.identifier', path: 'Patient.identifier', slicing: { discriminator: [{ type: 'value', path: 'nothere' }], rules: 'open' } },
        { id: 'Patient.deceasedFoo', path: 'Patient.deceasedFoo' },
      ]));
      expect(issuesWith(o, 'No match found for Patient.birthDate', 'StructureDefinition.differential.element[0]'), describe_(o)).to.have.length(1);
      expect(issuesWith(o, 'This element has a Binding but the types [date]', 'StructureDefinition.differential.element[0]')).to.have.length(1);
      expect(issuesWith(o, "The discriminator path 'nothere' does not appear to be valid", 'StructureDefinition.differential.element[1].slicing.discriminator[0]')).to.have.length(1);
      expect(issuesWith(o, "The path must be 'Patient.deceased[x]' not 'Patient.deceasedFoo'", 'StructureDefinition')).to.have.length(1);
    });
  });

  it('an OperationDefinition agrees with its input/output Parameters profiles', async () => {
    const inProfile = profile('http://example.org/StructureDefinition/op-in', 'Parameters', [
      { id: 'Parameters.parameter', path: 'Parameters.parameter', slicing: { discriminator: [{ type: 'value', path: 'name' }], rules: 'open' } },
      { id: 'Parameters.parameter:subject', path: 'Parameters.parameter', sliceName: 'subject', min: 1, max: '1' },
      { id: 'Parameters.parameter:subject.name', path: 'Parameters.parameter.name', fixedString: 'subject' },
      { id: 'Parameters.parameter:subject.value[x]', path: 'Parameters.parameter.value[x]', type: [{ code: 'Reference', targetProfile: ['http://hl7.org/fhir/StructureDefinition/Patient'] }] },
      { id: 'Parameters.parameter:subject.resource', path: 'Parameters.parameter.resource', max: '0' },
    ]);
    const ov = new Validator(await sourceWith([inProfile]));
    const od = (min: number, type: string) => ({ resourceType: 'OperationDefinition', text: narrative, url: 'http://example.org/op', name: 'Op', status: 'active', kind: 'operation', code: 'op', system: false, type: false, instance: true, resource: ['Patient'],
      inputProfile: 'http://example.org/StructureDefinition/op-in',
      parameter: [{ name: 'subject', use: 'in', min, max: '1', type, targetProfile: ['http://hl7.org/fhir/StructureDefinition/Patient'] }] });
    const ok = ov.validate(od(1, 'Reference'));
    expect(errorsOf(ok), describe_(ok)).to.deep.equal([]);
    const bad = ov.validate(od(0, 'string'));
    expect(issuesWith(bad, "has a value for 'min' of '1' in the 'in' profile", 'OperationDefinition.inputProfile.parameter[0]'), describe_(bad)).to.have.length(1);
    expect(issuesWith(bad, "The type 'Reference' is allowed for the parameter 'subject'", 'OperationDefinition.inputProfile.parameter[0]')).to.have.length(1);
  });
});

describe('engine: a Quantity in UCUM is a UCUM unit (HL7 checkQuantity)', function () {
  this.timeout(60_000);
  let v: Validator;
  before(async () => {
    v = new Validator(await sourceWith([]));
  });
  const observation = (code: string) => ({
    resourceType: 'Observation', text: narrative, status: 'final', code: { text: 'x' },
    valueQuantity: { value: 1, unit: code, system: 'http://unitsofmeasure.org', code },
  });

  it('refuses a code that is no UCUM unit (mgg), wherever the Quantity is and whether or not it has a binding', () => {
    const o = v.validate(observation('mgg'));
    expect(errorsOf(o).map((i) => [i.expression?.[0], i.details.text]), describe_(o)).to.deep.equal([
      ['Observation.value.ofType(Quantity)', "Unknown code 'mgg' in the CodeSystem 'http://unitsofmeasure.org' (mgg is not a valid UCUM code.)"],
    ]);
    const dose = v.validate({
      resourceType: 'MedicationAdministration', text: narrative, status: 'completed', medicationCodeableConcept: { text: 'x' },
      subject: { display: 'x' }, effectiveDateTime: '2024-01-01',
      dosage: { dose: { value: 1, system: 'http://unitsofmeasure.org', code: 'mgg' } },
    });
    expect(errorsOf(dose).map((i) => i.expression?.[0]), describe_(dose)).to.deep.equal(['MedicationAdministration.dosage.dose']);
  });

  it('a unit the UCUM library cannot parse (blank spaces) is refused without the library writing to the console (the CLI\'s stdout is JSON)', () => {
    const written: unknown[] = [];
    const log = console.log;
    console.log = (...args: unknown[]) => { written.push(args); };
    let o: ReturnType<Validator['validate']>;
    try {
      o = v.validate(observation('chewable tablet'));
    } finally {
      console.log = log;
    }
    expect(written).to.deep.equal([]);
    expect(errorsOf(o).map((i) => i.details.text), describe_(o)).to.deep.equal([
      "Unknown code 'chewable tablet' in the CodeSystem 'http://unitsofmeasure.org' (chewable tablet is not a valid unit.  Blank spaces are not allowed in unit expressions.)",
    ]);
  });

  it('accepts UCUM units (mg, mg/dL, a unit with an annotation only as best practice), and leaves other systems alone', () => {
    for (const code of ['mg', 'mg/dL', '10*3/uL']) expect(errorsOf(v.validate(observation(code))), code).to.deep.equal([]);
    const annotated = v.validate(observation('{beats}/min'));
    expect(errorsOf(annotated), describe_(annotated)).to.deep.equal([]);
    expect(annotated.issue.filter((i) => i.severity === 'warning' && i.details.text?.includes('{beats}'))).to.have.length(1);
    const other = v.validate({ ...observation('mgg'), valueQuantity: { value: 1, system: 'http://example.org/units', code: 'mgg' } });
    expect(errorsOf(other)).to.deep.equal([]);
  });
});
