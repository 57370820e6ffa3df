/**
 * The validation flow's domain (pure): the report-service port, Bundle assembly from a submission,
 * per-entry outcome rebasing and aggregation. Orchestration is in application/validation-flow.
 */
export * from '../ports/submission-source.js';
export * from './submission-bundle.js';
export * from './entry-outcome.js';
export * from './validation-scope.js';
export type { FacilityScopes } from '../ports/facility-scopes.js';
