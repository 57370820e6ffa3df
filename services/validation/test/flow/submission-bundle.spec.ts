/** Flow steps (2) and (4), pure: the Bundle from what the report service answered, and the aggregated outcome. */
import { expect } from 'chai';
import type { Issue, IssueSeverity, ValidationOutcome } from '#validation/domain/engine/outcome/issue.js';
import { aggregatedOutcomeJson, encodeEntryIssues, rebaseExpression, submissionBundle, submissionFromBytes, SubmissionFormatError, type FhirResourceJson } from '#validation/domain/flow/index.js';

const patient = { resourceType: 'Patient', id: 'p1' };
const encounter = { resourceType: 'Encounter', id: 'e1' };

describe('validation flow (domain): submission bundle and aggregated outcome', () => {
  it('a MeasureReport: contained resources become entries, then the MeasureReport without contained', () => {
    const report = { resourceType: 'MeasureReport', id: 'mr', status: 'complete', contained: [patient, encounter, 'junk'] };
    const bundle = submissionBundle(report);
    expect(bundle.entry.map((e) => e.resource.resourceType)).to.deep.equal(['Patient', 'Encounter', 'MeasureReport']);
    expect(bundle.entry[2]!.resource).to.deep.equal({ resourceType: 'MeasureReport', id: 'mr', status: 'complete' });
    expect(report.contained, 'the answer is not modified').to.have.length(3);
  });

  it('a Bundle is used as given (entries without a resource dropped), also as JSON text', () => {
    const given = { resourceType: 'Bundle', type: 'collection', meta: { tag: [{ code: 'x' }] }, entry: [{ fullUrl: 'urn:1', resource: patient }, { fullUrl: 'urn:2' }] };
    const bundle = submissionBundle(JSON.stringify(given));
    expect(bundle.meta).to.deep.equal(given.meta);
    expect(bundle.entry).to.deep.equal([{ fullUrl: 'urn:1', resource: patient }]);
  });

  it("the original PatientSubmissionModel: otherResources' entries appended to patientResources", () => {
    const model = {
      facilityId: 'f', patientId: 'p1',
      patientResources: JSON.stringify({ resourceType: 'Bundle', type: 'batch', entry: [{ resource: patient }] }),
      otherResources: JSON.stringify({ resourceType: 'Bundle', entry: [{ resource: encounter }] }),
    };
    const bundle = submissionBundle(model);
    expect(bundle.type).to.equal('batch');
    expect(bundle.entry.map((e) => e.resource.id)).to.deep.equal(['p1', 'e1']);
    expect(submissionBundle({ ...model, otherResources: '' }).entry).to.have.length(1);
  });

  it('stays JSON: FHIR XML from the report service is no submission (the flow, its events and stored outcomes are JSON; only the HTTP API reads XML)', () => {
    const xml = '<Bundle xmlns="http://hl7.org/fhir"><type value="collection"/></Bundle>';
    expect(() => submissionBundle(xml)).to.throw(SubmissionFormatError);
    expect(() => submissionFromBytes(new TextEncoder().encode(xml))).to.throw(SubmissionFormatError);
  });

  it('anything else is a SubmissionFormatError saying what was expected', () => {
    expect(() => submissionBundle({ resourceType: 'Patient' })).to.throw(SubmissionFormatError, /answered a Patient; expected a MeasureReport, a Bundle or a PatientSubmissionModel/);
    expect(() => submissionBundle('{not json')).to.throw(SubmissionFormatError, /not valid JSON/);
    expect(() => submissionBundle([1])).to.throw(SubmissionFormatError, /not a JSON object/);
    expect(() => submissionBundle({ patientResources: '{"resourceType":"Patient"}' })).to.throw(SubmissionFormatError, /patientResources is not a FHIR Bundle/);
    expect(() => submissionBundle({ otherResources: '' })).to.throw(SubmissionFormatError, /no patientResources/);
  });

  it('expressions of an entry validated alone point into the Bundle, HAPI style', () => {
    expect(rebaseExpression('Encounter.class', 3, encounter)).to.equal("Bundle.entry[3].resource.ofType(Encounter).where(id = 'e1').class");
    expect(rebaseExpression('Encounter', 3, encounter)).to.equal("Bundle.entry[3].resource.ofType(Encounter).where(id = 'e1')");
    expect(rebaseExpression('Encounter.type[1].coding[0]', 0, { resourceType: 'Encounter' })).to.equal('Bundle.entry[0].resource.ofType(Encounter).type[1].coding[0]');
    expect(rebaseExpression('Encounter.x', 1, { resourceType: 'Encounter', id: "a'b" })).to.equal("Bundle.entry[1].resource.ofType(Encounter).where(id = 'a\\'b').x");
  });

  it('aggregates entries in Bundle order, without line/column, keeping the message id', () => {
    const issue = (expression: string | undefined): Issue => ({
      severity: 'error', code: 'structure', details: { text: 'x' },
      ...(expression ? { expression: [expression] } : {}),
      extension: [
        { url: 'http://hl7.org/fhir/StructureDefinition/operationoutcome-issue-line', valueInteger: 3 },
        { url: 'http://hl7.org/fhir/StructureDefinition/operationoutcome-message-id', valueCode: 'M1' },
      ],
    });
    const outcome = aggregate([
      { index: 1, resource: encounter, outcome: { resourceType: 'OperationOutcome', issue: [issue('Encounter.status')] } },
      { index: 0, resource: patient, outcome: { resourceType: 'OperationOutcome', issue: [issue(undefined)] } },
    ]);
    expect(outcome.issue.map((i) => i.expression)).to.deep.equal([["Bundle.entry[0].resource.ofType(Patient).where(id = 'p1')"], ["Bundle.entry[1].resource.ofType(Encounter).where(id = 'e1').status"]]);
    expect(outcome.issue[0]!.extension).to.deep.equal([{ url: 'http://hl7.org/fhir/StructureDefinition/operationoutcome-message-id', valueCode: 'M1' }]);
  });

  it('drops diagnostics that only repeat details.text, keeps diagnostics that say more', () => {
    const outcome = aggregate([{
      index: 0, resource: patient,
      outcome: { resourceType: 'OperationOutcome', issue: [
        { severity: 'error', code: 'structure', details: { text: 'same' }, diagnostics: 'same' },
        { severity: 'error', code: 'structure', details: { text: 'short' }, diagnostics: 'short, with the stack of the failure' },
        // Not an engine issue (the engine always fills details): the aggregation keeps it as it is.
        { severity: 'error', code: 'structure', diagnostics: 'only diagnostics' } as Partial<Issue> as Issue,
      ] },
    }]);
    expect(outcome.issue.map((i) => i.diagnostics)).to.deep.equal([undefined, 'short, with the stack of the failure', 'only diagnostics']);
    expect(outcome.issue.map((i) => (i.details as { text?: string } | undefined)?.text)).to.deep.equal(['same', 'short', undefined]);
  });
});

describe('validation flow (domain): the issue limit of one submission', () => {
  const entry = (index: number, count: number, severity: IssueSeverity = 'warning') => ({
    index, resource: { resourceType: 'Observation', id: `o${index}` },
    outcome: { resourceType: 'OperationOutcome' as const, issue: Array.from({ length: count }, () => ({ severity, code: 'invariant', details: { text: 'x' } })) },
  });

  it('keeps every issue up to the limit', () => {
    expect(aggregate([entry(0, 3), entry(1, 2)], 5).issue).to.have.length(5);
  });

  it('over the limit: the first limit - 1 issues, then one counting the rest at their worst severity', () => {
    const outcome = aggregate([entry(1, 4), entry(0, 3, 'information'), entry(2, 2, 'fatal')], 5);
    expect(outcome.issue).to.have.length(5);
    expect(outcome.issue.slice(0, 4).map((i) => i.expression![0]!.slice(0, 15))).to.deep.equal(['Bundle.entry[0]', 'Bundle.entry[0]', 'Bundle.entry[0]', 'Bundle.entry[1]']);
    expect(outcome.issue[4]).to.deep.include({ severity: 'fatal', code: 'too-costly' });
    expect((outcome.issue[4]!.details as { text: string }).text).to.match(/^5 further issues .* at most 5 issues/);
  });
});

/** The aggregated outcome as the flow stores it (each entry's issues written once, joined in Bundle order), read back. */
function aggregate(entries: readonly { index: number; resource: FhirResourceJson; outcome: ValidationOutcome }[], maxIssues?: number): ValidationOutcome {
  const encoded = [...entries].sort((a, b) => a.index - b.index).map((e) => encodeEntryIssues(e.index, e.resource, e.outcome));
  return JSON.parse(aggregatedOutcomeJson(encoded, maxIssues)) as ValidationOutcome;
}
