import type { CanonicalResource } from '#validation/domain/ports/conformance-resources.js';

/**
 * Resources for the remote terminology tests. The client holds the blood-pressure value set but
 * not LOINC, so it cannot answer locally; the test server also holds a small LOINC stand-in.
 */
export const LOINC = 'http://loinc.org';
export const BP_VALUE_SET = 'http://example.org/fhir/ValueSet/blood-pressure-codes';
export const SERVER_ONLY_VALUE_SET = 'http://example.org/fhir/ValueSet/server-only';

export const bloodPressureValueSet: CanonicalResource = {
  resourceType: 'ValueSet', url: BP_VALUE_SET, version: '1.0.0', title: 'Blood Pressure Codes', status: 'active',
  compose: { include: [{ system: LOINC, filter: [{ property: 'concept', op: 'is-a', value: 'LP-BP' }] }] },
};

export const serverOnlyValueSet: CanonicalResource = {
  resourceType: 'ValueSet', url: SERVER_ONLY_VALUE_SET, version: '2', title: 'Server Only', status: 'active',
  compose: { include: [{ system: LOINC, concept: [{ code: '2339-0' }] }] },
};

export const loincStandIn: CanonicalResource = {
  resourceType: 'CodeSystem', url: LOINC, version: '2.77', caseSensitive: true, content: 'complete', status: 'active',
  concept: [
    { code: 'LP-BP', display: 'Blood pressure', concept: [
      { code: '8480-6', display: 'Systolic blood pressure' },
      { code: '8462-4', display: 'Diastolic blood pressure' },
    ] },
    { code: '2339-0', display: 'Glucose [Mass/volume] in Blood' },
  ],
};

export const serverResources: CanonicalResource[] = [bloodPressureValueSet, serverOnlyValueSet, loincStandIn];
