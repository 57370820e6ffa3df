/**
 * Where the resource-type rules (Measure, Bundle, Questionnaire) report: the location HL7 names
 * and the position in the submitted text of the value that location names.
 */
import { expect } from 'chai';
import { EXT_COL, EXT_LINE, type Issue } from '#validation/domain/engine/outcome/issue.js';
import { Validator } from '#validation/domain/engine/validator.js';
import { sourceWith } from './support/core-definitions.js';
import { engineKeyOf } from './support/helpers.js';

const narrative = { status: 'generated', div: '<div xmlns="http://www.w3.org/1999/xhtml">x</div>' };
const MEASURE = 'http://example.org/fhir/Measure/m';
const measure = {
  resourceType: 'Measure', url: MEASURE, status: 'active',
  group: [{ code: { coding: [{ system: 'http://example.org/g', code: 'a' }] } }, { code: { coding: [{ system: 'http://example.org/g', code: 'b' }] } }],
};

/** The issues of one rule, each as its location and its line:col ('-' when it has none). */
function placed(issues: readonly Issue[], id: string): string[] {
  return issues.filter((i) => engineKeyOf(i) === id).map((i) => {
    const line = i.extension?.find((e) => e.url === EXT_LINE)?.valueInteger;
    const col = i.extension?.find((e) => e.url === EXT_COL)?.valueInteger;
    return `${i.expression?.[0] ?? ''} ${line === undefined ? '-' : `${String(line)}:${String(col)}`}`;
  });
}

/** Pretty JSON text, one property or item per line, so a value's line is easy to read off. */
const text = (resource: Record<string, unknown>) => JSON.stringify(resource, null, 1);

/** The line (1-based) of the first line of `body` containing `marker`. */
const lineOf = (body: string, marker: string) => body.split('\n').findIndex((l) => l.includes(marker)) + 1;

describe('engine: where the resource-type rules report', function () {
  this.timeout(60_000);
  let v: Validator;
  before(async () => {
    v = new Validator(await sourceWith([measure]));
  });

  it('a MeasureReport group is named by its own index and placed where it starts', () => {
    const body = text({
      resourceType: 'MeasureReport', text: narrative, status: 'complete', type: 'summary', measure: MEASURE, period: { start: '2024' },
      group: [{ code: { coding: [{ system: 'http://example.org/g', code: 'a' }] } }, { id: 'nocode' }],
    });
    const issues = v.validate(body).issue;
    const line = lineOf(body, '"id": "nocode"') - 1;
    expect(placed(issues, 'MR_GROUP_NO_CODE')).to.deep.equal([`MeasureReport.group[1] ${String(line)}:3`]);
  });

  it('an item inside an answer is named after the item holding the answer (HL7), its primitive value placed where it is written', () => {
    const body = text({
      resourceType: 'QuestionnaireResponse', text: narrative, status: 'completed', questionnaire: '#q',
      contained: [{ resourceType: 'Questionnaire', id: 'q', status: 'active', item: [{ linkId: 'p', type: 'string', item: [{ linkId: 's', type: 'string', maxLength: 2 }] }] }],
      item: [{ linkId: 'p', answer: [{ valueString: 'ok', item: [{ linkId: 's', answer: [{ valueString: 'toolong' }] }] }] }],
    });
    const issues = v.validate(body).issue;
    const line = lineOf(body, '"valueString": "toolong"');
    const col = (body.split('\n')[line - 1] ?? '').indexOf('"toolong"') + 1;
    expect(placed(issues, 'QR_TOO_LONG')).to.deep.equal([`QuestionnaireResponse.item[0].item[0].answer[0].value.ofType(string) ${String(line)}:${String(col)}`]);
  });

  it('a document\'s unresolved reference keeps HL7\'s count from 1, with no position (the name is not the node\'s)', () => {
    const body = text({
      resourceType: 'Bundle', type: 'document', identifier: { system: 'urn:ietf:rfc:3986', value: 'urn:uuid:0c3151bd-1cbf-4d64-b04d-cd9187a4c6e0' }, timestamp: '2024-01-01T00:00:00Z',
      entry: [{
        fullUrl: 'urn:uuid:c1', resource: {
          resourceType: 'Composition', id: 'c1', text: narrative, status: 'final', type: { text: 't' }, date: '2024', title: 't',
          author: [{ reference: 'urn:uuid:nowhere' }],
        },
      }],
    });
    const issues = v.validate(body).issue;
    expect(placed(issues, 'BUNDLE_BUNDLE_ENTRY_NOTFOUND')).to.deep.equal(['Bundle.entry[1].resource.author[1] -']);
  });
});
