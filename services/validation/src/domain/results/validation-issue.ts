/**
 * One issue of a validation, flattened from an OperationOutcome issue: the unit that is
 * categorized and stored as a "validation result" (specification, "Validation result").
 */
import type { IssueExtension, ValidationOutcome } from '../engine/outcome/issue.js';
import type { IssueSeverity } from './issue-severity.js';
import { toSeverity } from './issue-severity.js';
import { toIssueTypeCode } from './issue-type.js';

export interface ValidationIssue {
  readonly severity: IssueSeverity;
  /** FHIR IssueType code, e.g. `code-invalid`; `processing` when the source gave none. */
  readonly code: string;
  readonly message: string;
  /** FHIRPath of the element, e.g. `Bundle.entry[3].resource.ofType(Encounter).class`. */
  readonly expression?: string;
  /** `line:col` in the submitted JSON, when known. */
  readonly location?: string;
  /** Stable id of the message kind (extension operationoutcome-message-id), when the engine gives one. */
  readonly messageId?: string;
}

export const MAX_CODE_LENGTH = 255;
export const MAX_LOCATION_LENGTH = 255;
export const MAX_EXPRESSION_LENGTH = 1000;
export const MAX_MESSAGE_ID_LENGTH = 255;

const MESSAGE_ID_EXTENSION = 'http://hl7.org/fhir/StructureDefinition/operationoutcome-message-id';
const LINE_EXTENSION = 'http://hl7.org/fhir/StructureDefinition/operationoutcome-issue-line';
const COLUMN_EXTENSION = 'http://hl7.org/fhir/StructureDefinition/operationoutcome-issue-col';

export interface OperationOutcomeLike {
  resourceType?: string;
  issue?: unknown;
}

/**
 * The issues of an OperationOutcome. Text: `details.text`, else `diagnostics`. Expression: the first
 * `expression`, else the first `location` (FHIR R4 still fills both). Unknown severities become
 * `error` (an engine that cannot say how bad something is should not make it look harmless).
 */
export function issuesFromOperationOutcome(outcome: OperationOutcomeLike): ValidationIssue[] {
  const raw: unknown[] = Array.isArray(outcome.issue) ? outcome.issue : [];
  // The flow decodes ~100 issues per submission here: one pass over each issue's extensions, and
  // each issue built once (members in the order severity, code, message, expression, location, messageId).
  const issues: ValidationIssue[] = [];
  for (const item of raw) {
    if (typeof item !== 'object' || item === null) continue;
    const details: unknown = Reflect.get(item, 'details');
    const detailsText: unknown = typeof details === 'object' && details !== null ? Reflect.get(details, 'text') : undefined;
    const diagnostics: unknown = Reflect.get(item, 'diagnostics');
    const text = typeof detailsText === 'string' ? detailsText : typeof diagnostics === 'string' ? diagnostics : '';
    const expression = firstString(Reflect.get(item, 'expression')) ?? firstString(Reflect.get(item, 'location'));
    const { messageId, line, column } = positionAndMessageId(Reflect.get(item, 'extension'));
    const issue: { -readonly [K in keyof ValidationIssue]: ValidationIssue[K] } = {
      severity: toSeverity(Reflect.get(item, 'severity')) ?? 'error',
      code: toIssueTypeCode(Reflect.get(item, 'code')) ?? 'processing',
      message: text,
    };
    if (expression !== undefined) issue.expression = expression;
    if (typeof line === 'number') issue.location = `${String(line)}:${typeof column === 'number' ? String(column) : '?'}`;
    if (typeof messageId === 'string') issue.messageId = messageId;
    issues.push(issue);
  }
  return issues;
}

/**
 * From an issue's extensions, the FIRST of each kind (message id, line, column): its message id
 * (valueCode, else valueString) and its line and column (valueInteger), whatever their types.
 */
function positionAndMessageId(extensions: unknown): { messageId: unknown; line: unknown; column: unknown } {
  let messageId: unknown;
  let line: unknown;
  let column: unknown;
  let seen = 0;
  if (!Array.isArray(extensions)) return { messageId, line, column };
  for (const extension of extensions) {
    if (typeof extension !== 'object' || extension === null) continue;
    const url: unknown = Reflect.get(extension, 'url');
    if (url === MESSAGE_ID_EXTENSION && (seen & 1) === 0) {
      seen |= 1;
      messageId = Reflect.get(extension, 'valueCode') ?? Reflect.get(extension, 'valueString');
    } else if (url === LINE_EXTENSION && (seen & 2) === 0) {
      seen |= 2;
      line = Reflect.get(extension, 'valueInteger');
    } else if (url === COLUMN_EXTENSION && (seen & 4) === 0) {
      seen |= 4;
      column = Reflect.get(extension, 'valueInteger');
    }
  }
  return { messageId, line, column };
}

/**
 * The OperationOutcome whose issues read back (issuesFromOperationOutcome) as exactly `issues`:
 * how results handed over as issues (the results API's store) are kept like the flow's outcomes.
 * A location is written as the line/column extensions when it has the `line:col` form they give.
 */
export function operationOutcomeOf(issues: readonly ValidationIssue[]): ValidationOutcome {
  return {
    resourceType: 'OperationOutcome',
    issue: issues.map((issue) => {
      const extension: IssueExtension[] = [];
      if (issue.messageId !== undefined) extension.push({ url: MESSAGE_ID_EXTENSION, valueCode: issue.messageId });
      // linear: anchored, at most 19 characters
      const position = issue.location === undefined ? null : /^(\d{1,9}):(\d{1,9}|\?)$/.exec(issue.location);
      if (position) {
        extension.push({ url: LINE_EXTENSION, valueInteger: Number(position[1]) });
        if (position[2] !== '?') extension.push({ url: COLUMN_EXTENSION, valueInteger: Number(position[2]) });
      }
      return {
        severity: issue.severity,
        code: issue.code,
        details: { text: issue.message },
        ...(issue.expression === undefined ? {} : { expression: [issue.expression] }),
        ...(extension.length > 0 ? { extension } : {}),
      };
    }),
  };
}

function firstString(value: unknown): string | undefined {
  return Array.isArray(value) && typeof value[0] === 'string' ? value[0] : undefined;
}

/**
 * Cuts text to a column's length without splitting a surrogate pair, marking the cut with `…`,
 * so that a long HAPI-style expression is stored (shortened) instead of failing the insert.
 */
export function truncateText(text: string, max: number): string {
  if (text.length <= max) return text;
  let end = max - 1;
  const code = text.charCodeAt(end - 1);
  if (code >= 0xd800 && code <= 0xdbff) end--;
  return `${text.slice(0, end)}…`;
}

/** The issue with every field cut to its column's length. */
export function fitForStorage(issue: ValidationIssue): ValidationIssue {
  return {
    ...issue,
    code: truncateText(issue.code, MAX_CODE_LENGTH),
    ...(issue.expression === undefined ? {} : { expression: truncateText(issue.expression, MAX_EXPRESSION_LENGTH) }),
    ...(issue.location === undefined ? {} : { location: truncateText(issue.location, MAX_LOCATION_LENGTH) }),
    ...(issue.messageId === undefined ? {} : { messageId: truncateText(issue.messageId, MAX_MESSAGE_ID_LENGTH) }),
  };
}
