/**
 * The flow's own tables: validation configurations and their assignment to facilities
 * (pg-facility-scopes.ts). The stored outcomes and results of submissions are the validation API's
 * table (submission-results-table.ts), written by the flow's store.
 */
import { CreateValidationConfigurationTables, FacilityValidationConfigurationEntity, ValidationConfigurationEntity } from './pg-facility-scopes.js';

export const validationFlowEntities = [ValidationConfigurationEntity, FacilityValidationConfigurationEntity];
export const validationFlowMigrations = [
  { name: 'Migration20261122061000_validation_configuration', class: CreateValidationConfigurationTables },
];
