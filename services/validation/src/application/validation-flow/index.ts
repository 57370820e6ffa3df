/** The ReadyForValidation → ValidationComplete flow: orchestration, its transaction, its table. */
export { ValidationFlow, type ReadyForValidationEvent, type FlowContext, type FlowResult, type FlowStore, type ValidationFlowDependencies, type ScopedResourceValidator } from './validation-flow.js';
export { PgFlowStore, completionMsgId, type CommitResult, type FlowRecord, type OutcomeCounts } from './flow-store.js';
export { ValidationOutcomeEntity, CreateValidationOutcomeTable, validationFlowEntities, validationFlowMigrations, VALIDATION_OUTCOME_TABLE } from './outcome-table.js';
export { PgFacilityScopes, ValidationConfigurationEntity, FacilityValidationConfigurationEntity, CreateValidationConfigurationTables } from './facility-scopes.js';
