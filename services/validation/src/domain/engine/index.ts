/**
 * The validation engine's public surface (see README.md). Definitions (the index, packages,
 * snapshots) live in ./definitions and are imported from there directly.
 */
export { Validator, type ValidatorOptions, type ValidateOptions } from './validator.js';
export { LayeredConformanceSource } from './layered-source.js';
export { MESSAGES, formatMessage, type MessageId, type MessageDefinition } from './messages.js';
export {
  EXT_COL, EXT_LINE, EXT_MESSAGE_ID, isErrorIssue, issueLine, issueMessageId,
  type Issue, type IssueSeverity, type IssueExtension, type ValidationOutcome,
} from './outcome/issue.js';
export { deadlineIssueOf, deadlineOutcome, type DeadlineKind } from './outcome/deadline.js';
export { parseLocatedJson, type LocatedJson, type JsonParseIssue, type ParseOptions } from './json/located-json.js';
