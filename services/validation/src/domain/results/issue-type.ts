/**
 * FHIR IssueType codes (`code-invalid`, `business-rule`, ...). The original system's JSON used
 * the Java enum names (`CODEINVALID`, `BUSINESSRULE`); both spellings are accepted on input and
 * the FHIR code is what is stored, matched by rules and answered.
 */
export const ISSUE_TYPE_CODES = [
  'invalid', 'structure', 'required', 'value', 'invariant', 'security', 'login', 'unknown', 'expired',
  'forbidden', 'suppressed', 'processing', 'not-supported', 'duplicate', 'multiple-matches', 'not-found',
  'deleted', 'too-long', 'code-invalid', 'extension', 'too-costly', 'business-rule', 'conflict',
  'transient', 'lock-error', 'no-store', 'exception', 'timeout', 'incomplete', 'throttled', 'informational',
] as const;
export type IssueTypeCode = (typeof ISSUE_TYPE_CODES)[number];

const BY_ENUM_NAME = new Map<string, IssueTypeCode>(ISSUE_TYPE_CODES.map((code) => [code.replace(/-/g, '' /* linear: one character */).toUpperCase(), code]));

/**
 * The FHIR code for `value`: a FHIR code as is, a Java enum name translated, anything else
 * (including `NULL`, the original's "no code") as undefined.
 */
export function toIssueTypeCode(value: unknown): IssueTypeCode | undefined {
  if (typeof value !== 'string') return undefined;
  const trimmed = value.trim();
  const known = ISSUE_TYPE_CODES.find((code) => code === trimmed);
  if (known !== undefined) return known;
  return BY_ENUM_NAME.get(trimmed.replace(/[-_]/g, '' /* linear: one character class */).toUpperCase());
}
