/**
 * The engine's output: an OperationOutcome-shaped value. Each issue carries the HL7
 * validator's message text, a FHIRPath location, line/column when the input was text,
 * and the stable message id (so that downstream category rules can key on it).
 *
 * The one outcome type of the service, from the engine to the store: the resource validator port
 * answers it, the worker pool carries it, the flow rebases and aggregates it (domain/flow/
 * entry-outcome.ts) and its text is what is stored. Its issue list is read-only to all of them.
 */
export type IssueSeverity = 'fatal' | 'error' | 'warning' | 'information';

export interface IssueExtension {
  url: string;
  valueInteger?: number;
  valueString?: string;
  valueCode?: string;
}

export interface Issue {
  severity: IssueSeverity;
  /** FHIR issue-type code (structure, required, value, invariant, ...). */
  code: string;
  details: { text: string };
  diagnostics?: string;
  expression?: string[];
  /** FHIR R4's older twin of `expression`: the engine does not fill it; outcomes from elsewhere may. */
  location?: string[];
  extension?: IssueExtension[];
}

export interface ValidationOutcome {
  readonly resourceType: 'OperationOutcome';
  readonly issue: readonly Issue[];
}

export const EXT_LINE = 'http://hl7.org/fhir/StructureDefinition/operationoutcome-issue-line';
export const EXT_COL = 'http://hl7.org/fhir/StructureDefinition/operationoutcome-issue-col';
export const EXT_MESSAGE_ID = 'http://hl7.org/fhir/StructureDefinition/operationoutcome-message-id';

export function isErrorIssue(issue: Issue): boolean {
  return issue.severity === 'error' || issue.severity === 'fatal';
}

/** Accessors that read an issue back (for tests, the CLI and the service). */
export function issueLine(issue: Issue): number | undefined {
  return issue.extension?.find((e) => e.url === EXT_LINE)?.valueInteger;
}
export function issueMessageId(issue: Issue): string | undefined {
  return issue.extension?.find((e) => e.url === EXT_MESSAGE_ID)?.valueCode ?? issue.extension?.find((e) => e.url === EXT_MESSAGE_ID)?.valueString;
}
