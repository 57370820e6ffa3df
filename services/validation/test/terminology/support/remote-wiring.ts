/** The remote terminology wiring the remote-terminology specs share (a client holding R4 and the blood-pressure value set). */
import { silentLogger } from '#adapters/observability/logger.js';
import { createTerminology, type CachedValidateCode, type TerminologySettings, type TerminologyWiring, type ValidateCodeCacheStore } from '#validation/adapters/terminology/index.js';
import type { ValidateCodeRequest } from '#validation/domain/ports/terminology.js';
import { BP_VALUE_SET, LOINC, bloodPressureValueSet } from './remote-fixtures.js';
import { InMemoryConformanceSource, r4TerminologyResources } from './terminology-sources.js';

export const clientSource = new InMemoryConformanceSource(r4TerminologyResources()).add(bloodPressureValueSet);
export const GENDER_VS = 'http://hl7.org/fhir/ValueSet/administrative-gender';

export const systolic = (display?: string): ValidateCodeRequest => ({
  valueSet: BP_VALUE_SET, codings: [{ system: LOINC, code: '8480-6', display }], strength: 'required', elementKind: 'CodeableConcept',
});

export function wire(settings: TerminologySettings, cacheStore?: ValidateCodeCacheStore<CachedValidateCode>, nearCache: false | undefined = undefined): TerminologyWiring {
  return createTerminology({ source: clientSource, settings: { retryBaseDelayMs: 5, ...settings }, cacheStore, logger: silentLogger(), nearCache });
}
