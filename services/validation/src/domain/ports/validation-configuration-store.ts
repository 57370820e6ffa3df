import type { ValidationScope } from '../flow/validation-scope.js';

/**
 * Port: where named validation configurations and their assignment to facilities are kept
 * (PgFacilityScopes in the service, the same instance the flow reads its FacilityScopes from, so a
 * write clears the cache the flow reads). Definitions are checked with parseValidationScope, whose
 * ValidationScopeError names the field at fault.
 */
export interface ValidationConfigurationStore {
  /** Stores a new configuration; `created` false (nothing written) when the name exists. */
  createConfiguration(input: unknown): Promise<{ scope: ValidationScope; created: boolean }>;
  /** Replaces an existing configuration; undefined when there is none of that name. */
  replaceConfiguration(input: unknown): Promise<ValidationScope | undefined>;
  getConfiguration(name: string): Promise<ValidationScope | undefined>;
  /** A page of configurations, by name. */
  pageConfigurations(offset: number, limit: number): Promise<{ records: ValidationScope[]; totalCount: number }>;
  /** Deletes a configuration no facility is assigned; otherwise says which facilities are. */
  deleteUnassignedConfiguration(name: string): Promise<{ outcome: 'deleted' | 'absent' } | { outcome: 'assigned'; facilities: string[] }>;
  /** The configuration assigned to a facility; undefined = it validates against all artifacts. */
  configurationOf(facilityId: string): Promise<ValidationScope | undefined>;
  /** Assigns (or with undefined unassigns) a configuration; false when the configuration does not exist. */
  assign(facilityId: string, configurationName: string | undefined): Promise<boolean>;
}
