/** The ReadyForValidation → ValidationComplete flow: its orchestration and the ValidationComplete it announces. */
export { ValidationFlow, type ReadyForValidationEvent, type FlowContext, type FlowResult, type ValidationFlowDependencies, type ScopedResourceValidator, type SubmissionValidation } from './validation-flow.js';
export type { FlowStore, CommitResult, FlowRecord } from '../../domain/ports/flow-store.js';
export { completionMsgId } from '../../domain/ports/flow-store.js';
export { distinctOutcomeHash, validationCompletePayload, type CompletionMessage } from './completion.js';
