/**
 * The engine asks one question of terminology: "is this coding (or concept) valid for this
 * binding / code system?" It never knows whether the answer came from local code systems,
 * a cache or a remote FHIR terminology server.
 *
 * Answers may be synchronous (local lookups, the common case, kept fast for throughput) or a
 * Promise (remote $validate-code); the engine collects binding checks during its walk and awaits
 * any pending answers once at the end of a resource.
 */
export interface CodingInput {
  system?: string;
  version?: string;
  code?: string;
  display?: string;
}

export interface ValidateCodeRequest {
  /** Value set canonical (`url` or `url|version`); absent for a pure code-system check. */
  valueSet?: string;
  /** One coding (a `code`, `Coding` or `Quantity` element) ... */
  coding?: CodingInput;
  /** ... or all codings of a CodeableConcept: valid when one of them is in the set. */
  codings?: CodingInput[];
  /** Authorization header of the request that started this validation, passed on to remote servers. */
  authorization?: string;
  /**
   * Strength of the binding being checked. Given: the result also carries the HL7-worded binding
   * issue ("None of the codings provided are in the value set ...", "No code provided ...") with
   * the strength's severity (required → error, extensible → warning, preferred → information,
   * example → no issue at all). Absent: the result carries only issues about the codings
   * themselves (display, unknown code or system, value set not found) and the caller words the
   * binding failure from `valid`. Ignored for pure code-system checks.
   */
  strength?: BindingStrength;
  /**
   * The kind of element that carried the code, for the HL7 wording of the issue (a plain `code`
   * says "The value provided ('x') ..."). Absent: CodeableConcept when `codings` is given, else
   * Coding when the coding has a system, else code.
   */
  elementKind?: CodedElementKind;
  /** ElementDefinition.binding maxValueSet extension (canonical): codes must come from it whatever the strength. */
  maxValueSet?: string;
  /** Language(s) the displays are checked in (the HL7 "for the language(s)" part); absent: any. */
  displayLanguage?: string;
}

export type BindingStrength = 'required' | 'extensible' | 'preferred' | 'example';

export type CodedElementKind = 'code' | 'Coding' | 'CodeableConcept' | 'Quantity' | 'string' | 'uri';

export type TerminologyIssueSeverity = 'error' | 'warning' | 'information';

export interface TerminologyIssue {
  severity: TerminologyIssueSeverity;
  /** FHIR issue-type code, e.g. code-invalid, not-found, not-supported. */
  code: string;
  /** Message text, worded as the HL7 validator words it (see the engine's message catalogue). */
  text: string;
  /** Stable message id (operationoutcome-message-id). */
  messageId: string;
}

export interface ValidateCodeResult {
  /**
   * true: in the set / known code; false: definitely not; undefined: could not be checked
   * (unknown large system, value set not found, server unavailable): the issues say why.
   */
  valid: boolean | undefined;
  /** The display the terminology knows for the code, when it knows one. */
  display?: string;
  issues: TerminologyIssue[];
  /** Where the answer came from, for metrics and the acceptance counts. */
  source: 'local' | 'cache' | 'remote' | 'none';
}

export interface TerminologyPort {
  validateCode(request: ValidateCodeRequest): ValidateCodeResult | Promise<ValidateCodeResult>;
  /** Synchronous membership for FHIRPath memberOf(); undefined when it cannot be decided locally. */
  isMemberOf?(coding: CodingInput, valueSet: string): boolean | undefined;
}

/** Until terminology is wired in: every answer is "could not be checked", with no issue. */
export const unknownTerminology: TerminologyPort = {
  validateCode: () => ({ valid: undefined, issues: [], source: 'none' }),
};
