import type { ValidationScope } from '../flow/validation-scope.js';

/** Port: where $validate finds the validation configuration a request names (PgFacilityScopes in the service). */
export interface ValidationConfigurationLookup {
  /** The configuration assigned to a facility; undefined = all artifacts, the engine's default settings. */
  scopeOf(facilityId: string): Promise<ValidationScope | undefined>;
  getConfiguration(name: string): Promise<ValidationScope | undefined>;
}
