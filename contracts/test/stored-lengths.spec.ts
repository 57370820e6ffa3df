/**
 * The inbound contracts bound every id the receiving service stores to its column's length, so an
 * oversized id is refused by the schema (dead-lettered at once, or an invalid request), not after
 * the handler failed on it at every delivery.
 */
import { expect } from 'chai';
import { validateMessage } from '../validate.js';

const long = (n: number) => 'x'.repeat(n);

describe('contracts: inbound ids no longer than the columns that store them', () => {
  const ready = { schemaVersion: '1.0.0', facilityId: 'f', patientId: 'p', reportTrackingId: 'r', reportTypes: ['m'] };

  it('ReadyForValidation: facilityId, patientId, reportTrackingId and report types up to 255 characters', () => {
    for (const field of ['facilityId', 'patientId', 'reportTrackingId'] as const) {
      expect(validateMessage('ReadyForValidation', { ...ready, [field]: long(255) }).ok, field).to.equal(true);
      const refused = validateMessage('ReadyForValidation', { ...ready, [field]: long(256) });
      expect(refused.ok, field).to.equal(false);
      expect(refused.ok ? '' : refused.errors, field).to.contain(field);
    }
    expect(validateMessage('ReadyForValidation', { ...ready, reportTypes: [long(256)] }).ok).to.equal(false);
    expect(validateMessage('ReadyForValidation', { ...ready, payloadUri: `https://blob.example/${long(2100)}` }).ok).to.equal(false);
  });

  it('GetFacilityConfig and SignClientAssertion: facilityId up to the facility column\'s 100 characters', () => {
    expect(validateMessage('GetFacilityConfig', { facilityId: long(100) }).ok).to.equal(true);
    expect(validateMessage('GetFacilityConfig', { facilityId: long(101) }).ok).to.equal(false);
    const sign = { facilityId: 'f', clientId: 'c', tokenUrl: 'https://ehr.example/token' };
    expect(validateMessage('SignClientAssertion', sign).ok).to.equal(true);
    expect(validateMessage('SignClientAssertion', { ...sign, facilityId: long(101) }).ok).to.equal(false);
    expect(validateMessage('SignClientAssertion', { ...sign, tokenUrl: `https://ehr.example/${long(2100)}` }).ok).to.equal(false);
  });
});
