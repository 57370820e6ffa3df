/**
 * Issue caps (issue 28, HL7's max-validation-messages): a worker keeps at most
 * validation.max-issues-per-resource issues per resource (a call may lower it, never raise it), and
 * past the submission's 100,000 issues the worker encodes only what the stored outcome keeps.
 */
import { expect } from 'chai';
import { encodeWithinCap } from '#validation/adapters/worker-pool/submission-task.js';
import { ValidationPool } from '#validation/adapters/worker-pool/validation-pool.js';
import type { Issue, ValidationOutcome } from '#validation/domain/engine/outcome/issue.js';
import { aggregatedOutcomeJson, type FhirResourceJson } from '#validation/domain/flow/index.js';
import { referenceAggregate } from '../flow/support/aggregate-oracle.js';

const issue = (severity: Issue['severity'], n: number): Issue => ({ severity, code: 'invalid', details: { text: `problem ${n}` }, expression: ['Patient.name'] });

describe('engine host: issue caps', function () {
  this.timeout(120_000);

  it('past the submission cap, the worker encodes each entry\'s worst issue only, and the stored text is the same', () => {
    const severities: Issue['severity'][] = ['information', 'warning', 'error', 'fatal'];
    const entries = Array.from({ length: 40 }, (_, index) => ({
      index, resource: { resourceType: 'Patient', id: `p${index}` } as FhirResourceJson,
      outcome: { resourceType: 'OperationOutcome', issue: Array.from({ length: index % 7 }, (_, n) => issue(severities[(index * 3 + n) % (index > 30 ? 4 : 2)]!, n)) } as ValidationOutcome,
    }));
    for (const max of [1, 10, 25, 60, 500]) {
      let soFar = 0;
      const encoded = entries.map((e) => {
        const one = encodeWithinCap(e.index, e.resource, e.outcome, soFar, max);
        soFar += one.count;
        return one;
      });
      expect(aggregatedOutcomeJson(encoded, max), `cap ${max}`).to.equal(JSON.stringify(referenceAggregate(entries, max)));
    }
  });

  it('a worker keeps at most max-issues-per-resource issues; a call may lower the cap, not raise it', async () => {
    const pool = ValidationPool.create({ threads: 1, maxIssuesPerResource: 3 });
    try {
      const broken = { resourceType: 'Patient', gender: 'x', birthDate: 'y', active: 'z', deceasedBoolean: 'w', multipleBirthBoolean: 'v' };
      const texts = (o: ValidationOutcome) => o.issue.map((i) => i.details.text);
      const capped = await pool.validateOne(broken);
      expect(capped.issue).to.have.length(4);
      expect(texts(capped)[3]).to.match(/^Only the first 3 issues are reported; \d+ more were found$/);
      const raised = await pool.validateOne(broken, { settings: { maxValidationMessages: 1_000 } });
      expect(texts(raised)).to.deep.equal(texts(capped));
      const lowered = await pool.validateOne(broken, { settings: { maxValidationMessages: 1 } });
      expect(lowered.issue).to.have.length(2);
      expect(texts(lowered)[0]).to.equal(texts(capped)[0]);
    } finally {
      await pool.close();
    }
  });
});
