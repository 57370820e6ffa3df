import { formatTerminologyMessage, type TerminologyMessageId } from './terminology-messages.js';
import type {
  BindingStrength, CodedElementKind, CodingInput, TerminologyIssue, TerminologyIssueSeverity, ValidateCodeRequest, ValidateCodeResult,
} from '../ports/terminology.js';

/**
 * Turns per-coding answers ("is this coding in the value set?") into the result of a binding
 * check, with the HL7 validator's wording and the binding strength's severity. Shared by local
 * and remote terminology, so an answer reads the same wherever it came from.
 */
export interface CodingVerdict {
  coding: CodingInput;
  membership: 'member' | 'not-member' | 'unknown';
  /** Issues about the coding itself (wrong display, unknown code or system, cannot check). */
  issues: TerminologyIssue[];
  display?: string;
}

/** Binding strengths that report (an example binding is documentation only). */
type ReportingStrength = Exclude<BindingStrength, 'example'>;

const SEVERITY: Record<ReportingStrength, TerminologyIssueSeverity> = {
  required: 'error', extensible: 'warning', preferred: 'information',
};

const NOT_IN_SET: Record<'CodeableConcept' | 'Coding' | 'code', Record<ReportingStrength, TerminologyMessageId>> = {
  CodeableConcept: { required: 'Terminology_TX_NoValid_1_CC', extensible: 'Terminology_TX_NoValid_2_CC', preferred: 'Terminology_TX_NoValid_3_CC' },
  Coding: { required: 'Terminology_TX_NoValid_4', extensible: 'Terminology_TX_NoValid_5', preferred: 'Terminology_TX_NoValid_6' },
  code: { required: 'Terminology_TX_NoValid_16', extensible: 'Terminology_TX_NoValid_17', preferred: 'Terminology_TX_NoValid_18' },
};

/** A coding whose code is a non-empty string (the ones a binding or code system can judge). */
export type CodedInput = CodingInput & { code: string };

export function hasCode(coding: CodingInput): coding is CodedInput {
  return typeof coding.code === 'string' && coding.code !== '';
}

/**
 * The codings of a request, with anything that is not a string dropped: resources come from
 * outside, and a `"code": 42` must give "not valid", not a crash.
 */
export function requestCodings(request: ValidateCodeRequest): CodingInput[] {
  if (Array.isArray(request.codings)) return request.codings.map(cleanCoding);
  return request.coding ? [cleanCoding(request.coding)] : [];
}

function cleanCoding(coding: CodingInput | null | undefined): CodingInput {
  if (coding === null || typeof coding !== 'object') return {};
  const { system, version, code, display } = coding;
  if (typeof system === 'string' && typeof code === 'string' && version === undefined && display === undefined) return coding;
  const clean: CodingInput = {};
  if (typeof system === 'string') clean.system = system;
  if (typeof version === 'string') clean.version = version;
  if (typeof code === 'string') clean.code = code;
  if (typeof display === 'string') clean.display = display;
  return clean;
}

/** The HL7 way to name a value set in a message: `'<title>' (<url>|<version>)`. */
export function valueSetLabel(valueSet: { url?: unknown; version?: unknown; title?: unknown; name?: unknown } | undefined, canonical: string): string {
  if (!valueSet) return canonical;
  const url = typeof valueSet.url === 'string' ? valueSet.url : (canonical.split('|')[0] ?? canonical);
  const title = typeof valueSet.title === 'string' ? valueSet.title : typeof valueSet.name === 'string' ? valueSet.name : url;
  const versioned = typeof valueSet.version === 'string' ? `${url}|${valueSet.version}` : url;
  return `'${title}' (${versioned})`;
}

export function effectiveElementKind(request: ValidateCodeRequest): 'CodeableConcept' | 'Coding' | 'code' {
  const kind: CodedElementKind | undefined = request.elementKind;
  if (kind === 'CodeableConcept') return 'CodeableConcept';
  if (kind === 'Coding' || kind === 'Quantity') return 'Coding';
  if (kind === 'code' || kind === 'string' || kind === 'uri') return 'code';
  if (request.codings) return 'CodeableConcept';
  return request.coding?.system !== undefined ? 'Coding' : 'code';
}

export function codingsLabel(codings: CodingInput[]): string {
  return codings.map((coding) => `${coding.system ?? ''}#${coding.code ?? ''}`).join(', ');
}

export function bindingResult(
  request: ValidateCodeRequest,
  label: string,
  verdicts: CodingVerdict[],
  source: ValidateCodeResult['source'],
): ValidateCodeResult {
  const strength = request.strength;
  // No strength: the caller reports the binding failure itself; give it the verdict and coding issues only.
  if (strength === undefined) {
    const member = verdicts.find((verdict) => verdict.membership === 'member');
    return { valid: summarise(verdicts), display: member?.display, issues: verdicts.flatMap((verdict) => verdict.issues), source };
  }
  // An example binding is documentation: nothing to report, whatever the code.
  if (strength === 'example') {
    return { valid: summarise(verdicts), display: verdicts.find((v) => v.membership === 'member')?.display, issues: [], source };
  }
  const severity = SEVERITY[strength];
  const firstVerdict = verdicts[0];
  if (firstVerdict === undefined) {
    if (strength === 'preferred') return { valid: undefined, issues: [], source };
    const id = strength === 'required' ? 'Terminology_TX_Code_ValueSet' : 'Terminology_TX_Code_ValueSet_Ext';
    return { valid: false, issues: [{ severity, code: 'code-invalid', messageId: id, text: formatTerminologyMessage(id, label) }], source };
  }
  const issues = verdicts.flatMap((verdict) => verdict.issues);
  const member = verdicts.find((verdict) => verdict.membership === 'member');
  if (member) return { valid: true, display: member.display, issues, source };
  if (verdicts.some((verdict) => verdict.membership === 'unknown')) return { valid: undefined, issues, source };

  const kind = effectiveElementKind(request);
  const id = NOT_IN_SET[kind][strength];
  const first = firstVerdict.coding;
  const text = kind === 'CodeableConcept'
    ? formatTerminologyMessage(id, label, codingsLabel(verdicts.map((v) => v.coding)))
    : kind === 'Coding'
      ? formatTerminologyMessage(id, label, '', codingsLabel([first]))
      : formatTerminologyMessage(id, first.code, label, '');
  return { valid: false, issues: [{ severity, code: 'code-invalid', messageId: id, text }, ...issues], source };
}

function summarise(verdicts: CodingVerdict[]): boolean | undefined {
  if (verdicts.some((v) => v.membership === 'member')) return true;
  if (verdicts.some((v) => v.membership === 'unknown') || verdicts.length === 0) return undefined;
  return false;
}
