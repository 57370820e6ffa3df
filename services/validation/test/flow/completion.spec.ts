/** ValidationComplete's payload, built by one pure function for the flow and the report jobs alike. */
import { expect } from 'chai';
import { validateMessage } from '#contracts/validate.js';
import { validationCompletePayload } from '#validation/application/validation-flow/index.js';

const counts = { total: 3, errors: 2, warnings: 1, information: 0, categorized: 2, uncategorized: 1, unacceptable: 1 };

describe('ValidationComplete payload', () => {
  it('names the submission, the run, the verdict and the counts, and meets its contract', () => {
    const payload = validationCompletePayload('1.0.0', { facilityId: 'f', reportId: 'r', patientId: 'p1' }, {
      valid: false, runId: 'run-1', counts, validatedAt: '2026-11-27T10:00:00.000Z',
    });
    expect(payload).to.deep.equal({
      schemaVersion: '1.0.0', facilityId: 'f', patientId: 'p1', reportTrackingId: 'r', isValid: false, validationRunId: 'run-1',
      outcomeReference: '/api/result/f/r/p1', issueCounts: counts, validatedAt: '2026-11-27T10:00:00.000Z',
    });
    expect(validateMessage('ValidationComplete', payload)).to.deep.equal({ ok: true });
  });

  it('the outcome reference escapes each id as one path segment', () => {
    const payload = validationCompletePayload('1.0.0', { facilityId: 'fac/1', reportId: 'r?x=1', patientId: 'p #2' }, {
      valid: true, runId: 'run-2', counts, validatedAt: '2026-11-27T10:00:00.000Z',
    });
    expect(payload.outcomeReference).to.equal('/api/result/fac%2F1/r%3Fx%3D1/p%20%232');
  });

  it('keeps its own copy of the counts: the caller changing them afterwards does not change the payload', () => {
    const mutable = { ...counts };
    const payload = validationCompletePayload('1.0.0', { facilityId: 'f', reportId: 'r', patientId: 'p1' }, {
      valid: true, runId: 'run-3', counts: mutable, validatedAt: '2026-11-27T10:00:00.000Z',
    });
    mutable.total = 99;
    expect(payload.issueCounts.total).to.equal(3);
  });
});
