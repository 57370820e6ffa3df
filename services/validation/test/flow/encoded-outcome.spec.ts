/**
 * The aggregated outcome as text built from each entry's issues serialized once (where the entry
 * was validated): it must be the very text the flow stored before, JSON.stringify of the
 * object-by-object aggregation (support/aggregate-oracle.ts), also above the per-submission issue limit; and the submission read from
 * bytes as it was read from the text.
 */
import { expect } from 'chai';
import {
  aggregatedOutcomeJson, encodeEntryIssues, joinedOutcomeJson, joinEntryIssues, splitEntryIssues, submissionBundle, submissionFromBytes, SubmissionFormatError,
  type FhirResourceJson,
} from '#validation/domain/flow/index.js';
import type { ValidationOutcome } from '#validation/domain/ports/resource-validator.js';
import { referenceAggregate } from './support/aggregate-oracle.js';

const entries: { index: number; resource: FhirResourceJson; outcome: ValidationOutcome }[] = [
  {
    index: 0, resource: { resourceType: 'Patient', id: "o'brien" },
    outcome: {
      resourceType: 'OperationOutcome',
      issue: [
        { severity: 'error', code: 'value', details: { text: 'bad gender' }, diagnostics: 'bad gender', expression: ['Patient.gender'], location: ['Patient.gender', 'Line 3, Col 4'] },
        { severity: 'warning', code: 'informational', details: { text: 'x' }, diagnostics: 'other', extension: [{ url: 'http://hl7.org/fhir/StructureDefinition/operationoutcome-issue-line', valueInteger: 3 }, { url: 'urn:kept', valueCode: 'k' }] },
      ],
    },
  },
  { index: 1, resource: { resourceType: 'Encounter' }, outcome: { resourceType: 'OperationOutcome', issue: [] } },
  {
    index: 2, resource: { resourceType: 'MeasureReport', id: 'mr' },
    outcome: { resourceType: 'OperationOutcome', issue: [{ severity: 'information', code: 'informational', details: { text: 'ünïcode "quoted"' }, expression: [''] }] },
  },
];

const encoded = () => entries.map(({ index, resource, outcome }) => encodeEntryIssues(index, resource, outcome));

describe('validation flow (domain): the outcome encoded once per entry', () => {
  it('the concatenated text is exactly the serialized aggregated outcome', () => {
    const json = aggregatedOutcomeJson(encoded());
    expect(json).to.equal(JSON.stringify(referenceAggregate(entries)));
    expect(encoded().map((e) => e.count)).to.deep.equal([2, 0, 1]);
  });

  it('each issue written directly is the text of its rebased copy, whatever members it has and in whatever order', () => {
    const line = { url: 'http://hl7.org/fhir/StructureDefinition/operationoutcome-issue-line', valueInteger: 1 };
    const col = { url: 'http://hl7.org/fhir/StructureDefinition/operationoutcome-issue-col', valueInteger: 2 };
    const odd = [
      { expression: ['Patient.name[0]', 7, 'Patient', 'Patient[1]', 'Other.x', ''], severity: 'error', code: 'x', details: { text: 't' } },
      { severity: 'warning', code: 'x', details: { text: 't' }, diagnostics: 't', extension: [line, col], expression: undefined, location: 'not a list' },
      { severity: 'fatal', code: 'x', details: { text: 't' }, diagnostics: undefined, extension: 'not a list', location: ['Patient.id'] },
      { code: 'x', severity: 'information', details: undefined, diagnostics: 'd', extension: [], 'two words': { nested: [1, null] } },
      { severity: 'error', code: 7, details: { coding: [{ code: 'c' }], text: 't' }, diagnostics: 't', 'é "quoted" key': 'v' },
      { severity: 'error', code: 'x', details: { text: 7 }, diagnostics: 7 },
      { severity: 'error', code: 'x', details: { text: 'same' }, diagnostics: 'same', extension: [col, { url: 'urn:k', valueString: '\u2028 "q"' }], expression: [] },
      // the message-id shape ({url, valueCode}) is written from a cache: escaping, order and look-alikes as JSON.stringify
      { severity: 'error', code: 'x', extension: [{ url: 'urn:"q"', valueCode: '\u2028\\' }, { valueCode: 'c', url: 'urn:k' }, { url: 'urn:k', valueCode: 7 }, null, line] },
      { severity: 'error', code: 'x', extension: [{ url: 'urn:"q"', valueCode: '\u2028\\' }, { url: 'urn:k', valueCode: 'c', extra: 1 }] },
    ] as unknown as ValidationOutcome['issue'];
    for (const resource of [{ resourceType: 'Patient', id: "a\\b'c" }, { resourceType: 'Patient' }, { resourceType: 'Patient', id: '' }] as FhirResourceJson[]) {
      const outcome: ValidationOutcome = { resourceType: 'OperationOutcome', issue: odd };
      const expected = JSON.stringify(referenceAggregate([{ index: 4, resource, outcome }]));
      expect(aggregatedOutcomeJson([encodeEntryIssues(4, resource, outcome)])).to.equal(expected);
    }
  });

  it('no issue at all: an empty issue list', () => {
    const none = entries.map((e) => ({ ...e, outcome: { resourceType: 'OperationOutcome' as const, issue: [] } }));
    expect(aggregatedOutcomeJson(none.map((e) => encodeEntryIssues(e.index, e.resource, e.outcome)))).to.equal(JSON.stringify(referenceAggregate(none)));
  });

  it('above the issue limit: cut as the reference cuts, the rest counted at its worst severity', () => {
    for (const max of [1, 2, 3]) {
      expect(aggregatedOutcomeJson(encoded(), max), `limit ${max}`).to.equal(JSON.stringify(referenceAggregate(entries, max)));
    }
    expect(JSON.parse(aggregatedOutcomeJson(encoded(), 2)).issue.at(-1)).to.include({ severity: 'warning', code: 'too-costly' });
  });

  it('joined into one text (as a worker hands them back): split again exactly, and the same outcome text, also above the limit', () => {
    const empty = { json: '', count: 0 };
    for (const list of [encoded(), [empty, ...encoded()], [empty, empty], [], [...encoded(), empty, ...encoded().reverse()]]) {
      const joined = joinEntryIssues(list);
      expect(splitEntryIssues(joined)).to.deep.equal(list);
      for (const max of [1, 2, 3, 100_000]) expect(joinedOutcomeJson(joined, max), `limit ${max}`).to.equal(aggregatedOutcomeJson(list, max));
    }
  });

  it('bytes are read as the text was: UTF-8, the same Bundle, the same refusals', () => {
    const report = { resourceType: 'MeasureReport', id: 'mr', contained: [{ resourceType: 'Patient', id: 'p-é' }] };
    const text = JSON.stringify(report);
    expect(submissionFromBytes(new TextEncoder().encode(text))).to.deep.equal(submissionBundle(text));
    const refusal = (read: () => unknown) => {
      try {
        read();
      } catch (error) {
        expect(error).to.be.instanceOf(SubmissionFormatError);
        return (error as Error).message;
      }
      throw new Error('not refused');
    };
    // Not JSON, a byte order mark (JSON.parse refuses it, as it did), nothing at all.
    expect(refusal(() => submissionFromBytes(new TextEncoder().encode('{"resourceType":')))).to.equal(refusal(() => submissionBundle('{"resourceType":')));
    const withBom = Uint8Array.from([0xef, 0xbb, 0xbf, ...new TextEncoder().encode(text)]);
    expect(refusal(() => submissionFromBytes(withBom))).to.equal(refusal(() => submissionBundle(Buffer.from(withBom).toString('utf8'))));
    expect(refusal(() => submissionFromBytes(new Uint8Array(0)))).to.equal(refusal(() => submissionBundle(undefined)));
  });
});
