import type { ValidationScope } from '../flow/validation-scope.js';

/** Port: the scope assigned to a facility (undefined = all artifacts). */
export interface FacilityScopes {
  scopeOf(facilityId: string): Promise<ValidationScope | undefined>;
}
