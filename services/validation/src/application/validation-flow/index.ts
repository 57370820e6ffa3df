/** The ReadyForValidation → ValidationComplete flow: orchestration, its transaction, its tables. */
export { ValidationFlow, type ReadyForValidationEvent, type FlowContext, type FlowResult, type FlowStore, type ValidationFlowDependencies, type ScopedResourceValidator, type SubmissionValidation } from './validation-flow.js';
export { PgFlowStore, completionMsgId, type CommitResult, type FlowRecord, type OutcomeCounts } from './flow-store.js';
export { validationFlowEntities, validationFlowMigrations } from './flow-tables.js';
export { PgFacilityScopes, ValidationConfigurationEntity, FacilityValidationConfigurationEntity, CreateValidationConfigurationTables } from './facility-scopes.js';
export { distinctOutcomeHash, validationCompletePayload, type CompletionMessage } from './completion.js';
