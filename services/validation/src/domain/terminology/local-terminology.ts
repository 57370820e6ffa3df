import type { CanonicalResource, ConformanceResourceSource } from '../ports/conformance-resources.js';
import { isArray, isObject } from '../engine/json/json-value.js';
import { bindingResult, codingsLabel, effectiveElementKind, hasCode, requestCodings, valueSetLabel, type CodedInput, type CodingVerdict } from './binding-outcome.js';
import { builtinCodeSystemIndex, grammarCodeSystem } from './builtin/builtin-code-systems.js';
import { checkLoincSyntax, KNOWN_EXTERNAL_CODE_SYSTEMS } from './builtin/known-external-systems.js';
import { CodeSystemIndex } from './code-system-index.js';
import { checkDisplay } from './display-check.js';
import { formatTerminologyMessage } from './terminology-messages.js';
import type { CodingInput, TerminologyIssue, TerminologyPort, ValidateCodeRequest, ValidateCodeResult } from '../ports/terminology.js';
import { expandValueSet } from './value-set-expander.js';
import type { CodeSet, ExpansionEntry } from './value-set-expansion.js';

/**
 * Terminology answered from what this process holds: the CodeSystems and ValueSets of the
 * ConformanceResourceSource (R4 core, IG packages, uploaded artifacts) plus the built-in code
 * systems (BCP-47, BCP-13, UCUM, ISO 3166). Synchronous and I/O-free: expansions are computed
 * once per value set (url|version) and kept, so a membership check is two Map lookups.
 *
 * Codes of the large external systems (LOINC, SNOMED CT, ...) and of value sets that cannot be
 * fully expanded are answered "cannot check" (valid undefined), never "invalid".
 */
export interface ResolvedValueSet {
  resource: CanonicalResource;
  /** `'<title>' (<url>|<version>)`, as messages name it. */
  label: string;
  codes: CodeSet;
}

/** The verdict on one coding against its code system alone. */
export interface CodeSystemVerdict {
  status: 'valid' | 'invalid' | 'unknown';
  issues: TerminologyIssue[];
  display?: string;
  /** How the system is known here: held CodeSystem, built-in, known external, or not at all. */
  systemKnown: 'held' | 'builtin' | 'external' | 'unknown' | 'none';
}

export class LocalTerminology implements TerminologyPort {
  private readonly valueSets = new Map<string, ResolvedValueSet | null>();
  private readonly expansionsByVersion = new Map<string, ResolvedValueSet>();
  private readonly codeSystems = new Map<string, CodeSystemIndex | null>();
  private readonly expanding = new Set<string>();
  private contentfulCodeSystems?: Map<string, CanonicalResource>;

  constructor(private readonly source: ConformanceResourceSource) {}

  validateCode(request: ValidateCodeRequest): ValidateCodeResult {
    if (request.valueSet !== undefined && request.valueSet !== null) {
      if (typeof request.valueSet !== 'string' || request.valueSet === '') return valueSetNotFound(String(request.valueSet));
      return this.validateAgainstValueSet(request, request.valueSet);
    }
    return this.validateAgainstCodeSystems(request);
  }

  isMemberOf(coding: CodingInput, valueSet: string): boolean | undefined {
    const resolved = this.resolveValueSet(valueSet);
    if (!resolved || typeof coding.code !== 'string') return undefined;
    const membership = resolved.codes.membership(coding.system, coding.code);
    return membership.status === 'member' ? true : membership.status === 'not-member' ? false : undefined;
  }

  /**
   * Whether local terminology decides this request by itself, so a remote server need not be
   * asked: the value set is held and fully expandable from local code systems whose content is
   * complete (or built-in), or — without a value set — every coding's system is such a system.
   */
  answersCompletely(request: ValidateCodeRequest): boolean {
    if (request.valueSet) {
      const resolved = this.resolveValueSet(request.valueSet);
      if (!resolved?.codes.complete) return false;
      return !request.maxValueSet || this.resolveValueSet(request.maxValueSet)?.codes.complete === true;
    }
    return requestCodings(request).every((coding) => {
      if (!coding.system) return true;
      if (grammarCodeSystem(coding.system)) return true;
      const codeSystem = this.codeSystem(coding.system, coding.version);
      return codeSystem !== undefined && codeSystem.content === 'complete' && hasContent(codeSystem);
    });
  }

  /** The expanded value set (cached), or undefined when it is not held. */
  resolveValueSet(canonical: string): ResolvedValueSet | undefined {
    if (typeof canonical !== 'string') return undefined;
    const cached = this.valueSets.get(canonical);
    if (cached !== undefined) return cached ?? undefined;
    const resource = this.source.valueSet(canonical);
    if (!resource) {
      rememberMiss(this.valueSets, canonical);
      return undefined;
    }
    const versionKey = `${resource.url ?? canonical}|${resource.version ?? ''}`;
    const known = this.expansionsByVersion.get(versionKey);
    if (known) {
      this.valueSets.set(canonical, known);
      return known;
    }
    // An include that imports (directly or not) its own value set would recurse forever.
    if (this.expanding.has(versionKey)) return undefined;
    this.expanding.add(versionKey);
    try {
      const codes = expandValueSet(resource, {
        codeSystem: (system, version) => this.codeSystem(system, version),
        grammar: (system) => grammarCodeSystem(system),
        valueSet: (imported) => this.resolveValueSet(imported)?.codes,
      });
      const resolved: ResolvedValueSet = { resource, label: valueSetLabel(resource, canonical), codes };
      this.expansionsByVersion.set(versionKey, resolved);
      this.valueSets.set(canonical, resolved);
      return resolved;
    } finally {
      this.expanding.delete(versionKey);
    }
  }

  /**
   * A held (or built-in closed) code system, indexed once. A CodeSystem without content
   * (`not-present`, as hl7.terminology ships for LOINC, BCP-47, ISO 3166, CDC race, ...) gives
   * way to another loaded version that has its codes (US Core's CDC race code system), then to the
   * built-in one (ISO 3166); it is returned only when nothing better exists.
   */
  codeSystem(system: string, version?: string): CodeSystemIndex | undefined {
    const key = version ? `${system}|${version}` : system;
    const cached = this.codeSystems.get(key);
    if (cached !== undefined) return cached ?? undefined;
    let resource = this.source.codeSystem(key);
    // A version we do not hold: judge against the version we have rather than not at all.
    if (!resource && version) resource = this.source.codeSystem(system);
    let index = resource ? new CodeSystemIndex(resource) : undefined;
    if (!index || !hasContent(index)) {
      const withContent = this.codeSystemWithContent(system);
      index = withContent ? new CodeSystemIndex(withContent) : builtinCodeSystemIndex(system) ?? index;
    }
    if (index) this.codeSystems.set(key, index);
    else rememberMiss(this.codeSystems, key);
    return index;
  }

  private codeSystemWithContent(system: string): CanonicalResource | undefined {
    if (!this.contentfulCodeSystems) {
      this.contentfulCodeSystems = new Map();
      for (const resource of this.source.all('CodeSystem')) {
        const content = resource.content ?? 'complete';
        if (typeof resource.url !== 'string' || (content !== 'complete' && content !== 'fragment' && content !== 'example')) continue;
        if (!Array.isArray(resource.concept) || resource.concept.length === 0) continue;
        // Prefer complete over partial content; among equals, the first one the source lists.
        const current = this.contentfulCodeSystems.get(resource.url);
        if (!current || ((current.content ?? 'complete') !== 'complete' && content === 'complete')) this.contentfulCodeSystems.set(resource.url, resource);
      }
    }
    return this.contentfulCodeSystems.get(system);
  }

  /** Checks one coding against its code system: known code, display, or why it cannot be told. */
  checkCoding(coding: CodingInput, displayLanguage?: string, context: 'binding' | 'code-system' = 'code-system'): CodeSystemVerdict {
    const { system, code } = coding;
    if (typeof code !== 'string' || code === '') return { status: 'unknown', issues: [], systemKnown: 'none' };
    if (!system) {
      return {
        status: 'unknown', systemKnown: 'none',
        issues: [issue('warning', 'invalid', 'Coding_has_no_system__cannot_validate', formatTerminologyMessage('Coding_has_no_system__cannot_validate'))],
      };
    }
    const codeSystem = this.codeSystem(system, coding.version);
    if (codeSystem && hasContent(codeSystem)) return this.checkInCodeSystem(codeSystem, coding, code, displayLanguage);

    const grammar = grammarCodeSystem(system);
    if (grammar) {
      const verdict = grammar.check(code);
      if (verdict.valid) return { status: 'valid', issues: [], display: grammar.display?.(code), systemKnown: 'builtin' };
      return {
        status: 'invalid', systemKnown: 'builtin',
        issues: [issue('error', 'code-invalid', 'Unknown_Code_in', `${formatTerminologyMessage('Unknown_Code_in', code, system)} (${verdict.reason})`)],
      };
    }

    if (KNOWN_EXTERNAL_CODE_SYSTEMS.has(system)) {
      if (system === 'http://loinc.org' && !checkLoincSyntax(code)) {
        return {
          status: 'invalid', systemKnown: 'external',
          issues: [issue('error', 'code-invalid', 'Unknown_Code_in', `${formatTerminologyMessage('Unknown_Code_in', code, system)} (not a valid LOINC code: wrong syntax or check digit)`)],
        };
      }
      return {
        status: 'unknown', systemKnown: 'external',
        issues: [issue('information', 'not-supported', 'Error_validating_code_running_without_terminology_services',
          formatTerminologyMessage('Error_validating_code_running_without_terminology_services', code, system))],
      };
    }

    if (codeSystem) return this.checkInCodeSystem(codeSystem, coding, code, displayLanguage);
    const id = context === 'binding' ? 'Terminology_TX_System_NotKnown' : 'Terminology_TX_System_Unknown';
    return { status: 'unknown', systemKnown: 'unknown', issues: [issue('warning', 'not-found', id, formatTerminologyMessage(id, system))] };
  }

  private checkInCodeSystem(codeSystem: CodeSystemIndex, coding: CodingInput, code: string, displayLanguage?: string): CodeSystemVerdict {
    const system = codeSystem.url;
    if (codeSystem.content === 'not-present' || codeSystem.content === 'supplement' || codeSystem.concepts.size === 0) {
      return {
        status: 'unknown', systemKnown: 'held',
        issues: [issue('information', 'not-supported', 'TERMINOLOGY_TX_SYSTEM_NOT_USABLE', formatTerminologyMessage('TERMINOLOGY_TX_SYSTEM_NOT_USABLE', system))],
      };
    }
    const entry = codeSystem.lookup(code);
    if (entry) {
      const issues: TerminologyIssue[] = [];
      if (entry.code !== code) issues.push(caseDifference(code, entry.code, system));
      const displayIssue = checkDisplay(system, entry.code, coding.display, [entry.display === undefined ? undefined : { value: entry.display, language: codeSystem.language }, ...entry.designations], displayLanguage);
      if (displayIssue) issues.push(displayIssue);
      return { status: 'valid', display: entry.display, issues, systemKnown: 'held' };
    }
    if (codeSystem.notHeldCodes?.test(code)) {
      return {
        status: 'unknown', systemKnown: 'builtin',
        issues: [issue('information', 'not-supported', 'Error_validating_code_running_without_terminology_services',
          formatTerminologyMessage('Error_validating_code_running_without_terminology_services', code, system))],
      };
    }
    if (codeSystem.content === 'complete') {
      const text = codeSystem.version
        ? formatTerminologyMessage('Unknown_Code_in_Version', code, system, codeSystem.version)
        : formatTerminologyMessage('Unknown_Code_in', code, system);
      return { status: 'invalid', systemKnown: 'held', issues: [issue('error', 'code-invalid', codeSystem.version ? 'Unknown_Code_in_Version' : 'Unknown_Code_in', text)] };
    }
    // fragment / example: the code may exist in the part of the code system we do not see.
    return {
      status: 'unknown', systemKnown: 'held',
      issues: [issue('warning', 'code-invalid', 'UNKNOWN_CODE_IN_FRAGMENT', formatTerminologyMessage('UNKNOWN_CODE_IN_FRAGMENT', code, system, codeSystem.version ?? ''))],
    };
  }

  private validateAgainstValueSet(request: ValidateCodeRequest, canonical: string): ValidateCodeResult {
    const resolved = this.resolveValueSet(canonical);
    if (!resolved) return valueSetNotFound(canonical);
    const kind = effectiveElementKind(request);
    const codings = requestCodings(request).filter(hasCode);
    const verdicts = codings.map((coding) => this.verdictInValueSet(resolved.codes, coding, kind === 'code', request.displayLanguage));
    const result = bindingResult(request, resolved.label, verdicts, 'local');
    if (kind === 'code' && request.strength === 'required' && result.valid === false) {
      // As HL7 reports a plain code (its own outcome for such a code in the conformance suite, check
      // `synthea`): the value set could not tell which system the code is from, as an issue of its
      // own, and the same reason given inside the binding issue (`(error message = …)`).
      const versioned = resolved.resource.version ? `${String(resolved.resource.url)}|${resolved.resource.version}` : String(resolved.resource.url ?? canonical);
      // HL7's ValueSetValidator first infers the code's system from the value set (the one system
      // whose included content has the code, e.g. a code its exclude takes out again): when it can,
      // the code is judged in that system and only the binding issue remains.
      const reasons: string[] = [];
      for (const coding of codings) {
        if (coding.system) continue;
        const inferred = this.inferSystem(resolved.resource, coding.code);
        if (inferred !== undefined) {
          reasons.push(`The provided code '${inferred}#${coding.code}' was not found in the value set '${versioned}'`);
          continue;
        }
        const noSystem = formatTerminologyMessage('Unable_to_resolve_system__value_set_has_no_matches', coding.code, versioned);
        result.issues.push(issue('error', 'code-invalid', 'Unable_to_resolve_system__value_set_has_no_matches', noSystem));
        reasons.push(`${noSystem}; The provided code '#${coding.code}' was not found in the value set '${versioned}'`);
      }
      const bindingIssue = result.issues.find((i) => i.messageId === 'Terminology_TX_NoValid_16');
      if (bindingIssue && reasons.length > 0) bindingIssue.text = `${bindingIssue.text} (error message = ${reasons.join('; ')})`;
    }
    if (request.maxValueSet && result.valid !== true && codings.length > 0 && request.strength !== 'example') {
      this.checkMaxValueSet(request.maxValueSet, codings, kind, result);
    }
    return result;
  }

  /**
   * The system HL7's ValueSetValidator infers for a plain code (systemForCodeInValueSet), asked only
   * when the code is not in the value set: the one system among the value set's includes (and the
   * value sets it imports) whose included content has the code: a listed concept, or a whole held
   * complete code system that defines it. Includes with filters are left out (HL7 adds their system
   * only when the filter takes the code in, and then the code is a member). Undefined when no
   * system or more than one has it, as HL7 then cannot infer one.
   */
  private inferSystem(valueSet: CanonicalResource, code: string, systems = new Set<string>(), seen = new Set<CanonicalResource>()): string | undefined {
    if (seen.has(valueSet)) return undefined;
    seen.add(valueSet);
    const compose = valueSet.compose;
    const includes = isObject(compose) && isArray(compose.include) ? compose.include : [];
    for (const include of includes) {
      if (!isObject(include)) continue;
      if (Array.isArray(include.valueSet)) {
        for (const imported of include.valueSet) {
          const resource = typeof imported === 'string' ? this.resolveValueSet(imported)?.resource : undefined;
          if (resource) this.inferSystem(resource, code, systems, seen);
        }
      }
      const system = include.system;
      if (typeof system !== 'string' || (Array.isArray(include.filter) && include.filter.length > 0)) continue;
      if (Array.isArray(include.concept)) {
        if (include.concept.some((c) => isObject(c) && c.code === code)) systems.add(system);
        continue;
      }
      const codeSystem = this.codeSystem(system, typeof include.version === 'string' ? include.version : undefined);
      if (codeSystem && codeSystem.content === 'complete' && codeSystem.lookup(code)) systems.add(system);
    }
    return systems.size === 1 ? systems.values().next().value : undefined;
  }

  /** Membership of one coding; `bySystemlessCode` for plain `code` elements, whose system the value set implies. */
  verdictInValueSet(codes: CodeSet, coding: CodedInput, bySystemlessCode: boolean, displayLanguage?: string): CodingVerdict {
    const code = coding.code;
    if (!coding.system && !bySystemlessCode) {
      return { coding, membership: 'unknown', issues: this.checkCoding(coding, displayLanguage, 'binding').issues };
    }
    const membership = codes.membership(coding.system, code);
    if (membership.status === 'member') {
      const display = this.memberDisplay(membership.system, code, membership.entry);
      const matched = membership.entry?.code ?? code;
      // The hot path (no display given, exact code) builds no candidate list.
      if (coding.display === undefined && matched === code) return { coding, membership: 'member', display: display.text, issues: [] };
      const issues = matched === code ? [] : [caseDifference(code, matched, membership.system)];
      if (coding.display === undefined) return { coding, membership: 'member', display: display.text, issues };
      const candidates = [
        ...(display.entry ? [display.entry.display === undefined ? undefined : { value: display.entry.display }, ...(display.entry.designations ?? [])] : []),
        ...display.more(),
      ];
      const displayIssue = checkDisplay(membership.system, matched, coding.display, candidates, displayLanguage);
      if (displayIssue) issues.push(displayIssue);
      return { coding, membership: 'member', display: display.text, issues };
    }
    if (!coding.system) {
      const missing = membership.status === 'unknown' && membership.missingValueSet ? valueSetNotFound(membership.missingValueSet).issues : [];
      return { coding, membership: membership.status, issues: missing };
    }
    // Not a member (or cannot tell): say what is wrong with the coding itself, as HL7 does.
    const verdict = this.checkCoding(coding, displayLanguage, 'binding');
    const issues = verdict.status === 'valid' ? verdict.issues.filter((i) => i.messageId !== 'Display_Name_for__should_be_one_of__instead_of') : verdict.issues;
    if (membership.status === 'unknown' && membership.missingValueSet) {
      // The specification's warning for a value set that is not there, naming the imported one.
      issues.push(valueSetNotFoundIssue(membership.missingValueSet));
    } else if (membership.status === 'unknown' && issues.length === 0) {
      issues.push(issue('information', 'not-supported', 'Terminology_TX_NoValid_15',
        `${formatTerminologyMessage('Terminology_TX_NoValid_15', code)} (${membership.reason})`));
    }
    return { coding, membership: membership.status, issues };
  }

  private memberDisplay(system: string, code: string, entry: ExpansionEntry | undefined): { text?: string; entry?: ExpansionEntry; more: () => Array<{ value: string; language?: string }> } {
    // The expansion entry usually carries the display: the code system is looked up only without one.
    const codeSystem = entry?.display !== undefined ? undefined : this.codeSystem(system, entry?.version);
    const concept = codeSystem?.lookup(code);
    const more = () => {
      const source = codeSystem ?? this.codeSystem(system, entry?.version);
      const known = concept ?? source?.lookup(code);
      return known ? [...(known.display !== undefined ? [{ value: known.display, language: source?.language }] : []), ...known.designations] : [];
    };
    let text = entry?.display ?? concept?.display;
    if (text === undefined && !concept) {
      const grammar = grammarCodeSystem(system);
      if (grammar?.check(code).valid) text = grammar.display?.(code);
    }
    return { text, entry, more };
  }

  private checkMaxValueSet(canonical: string, codings: CodedInput[], kind: 'CodeableConcept' | 'Coding' | 'code', result: ValidateCodeResult): void {
    const max = this.resolveValueSet(canonical);
    if (!max) {
      result.issues.push(valueSetNotFoundIssue(canonical));
      return;
    }
    const first = codings[0];
    if (!first) return;
    const memberships = codings.map((coding) => max.codes.membership(kind === 'code' && !coding.system ? undefined : coding.system, coding.code).status);
    if (memberships.includes('member') || memberships.includes('unknown')) return;
    const text = kind === 'CodeableConcept'
      ? formatTerminologyMessage('Terminology_TX_NoValid_8', max.label, codingsLabel(codings))
      : formatTerminologyMessage('Terminology_TX_NoValid_10', max.label, first.system ?? '', first.code);
    result.issues.push(issue('error', 'code-invalid', kind === 'CodeableConcept' ? 'Terminology_TX_NoValid_8' : 'Terminology_TX_NoValid_10', text));
    result.valid = false;
  }

  private validateAgainstCodeSystems(request: ValidateCodeRequest): ValidateCodeResult {
    const verdicts = requestCodings(request)
      .filter((coding) => typeof coding.code === 'string' && coding.code !== '')
      .map((coding) => this.checkCoding(coding, request.displayLanguage));
    return codeSystemResult(verdicts, 'local');
  }
}

/** Combines per-coding code-system verdicts: invalid if one is invalid, valid if all are, else cannot tell. */
export function codeSystemResult(verdicts: Array<Pick<CodeSystemVerdict, 'status' | 'issues' | 'display'>>, source: ValidateCodeResult['source']): ValidateCodeResult {
  const issues = verdicts.flatMap((verdict) => verdict.issues);
  const valid = verdicts.some((v) => v.status === 'invalid') ? false
    : verdicts.length > 0 && verdicts.every((v) => v.status === 'valid') ? true
      : undefined;
  return { valid, display: verdicts.length === 1 ? verdicts[0]?.display : undefined, issues, source };
}

// Unknown URLs come from the resources being validated: forget them all when there are too many.
const MAX_CACHED_LOOKUPS = 20_000;

function rememberMiss<V>(cache: Map<string, V | null>, key: string): void {
  if (cache.size >= MAX_CACHED_LOOKUPS) for (const [cachedKey, value] of cache) if (value === null) cache.delete(cachedKey);
  if (cache.size < MAX_CACHED_LOOKUPS) cache.set(key, null);
}

function hasContent(codeSystem: CodeSystemIndex): boolean {
  return codeSystem.content !== 'not-present' && codeSystem.content !== 'supplement' && codeSystem.concepts.size > 0;
}

export function valueSetNotFound(canonical: string): ValidateCodeResult {
  return {
    valid: undefined, source: 'local',
    issues: [valueSetNotFoundIssue(canonical)],
  };
}

function valueSetNotFoundIssue(canonical: string): TerminologyIssue {
  return issue('warning', 'not-found', 'Terminology_TX_ValueSet_NotFound', formatTerminologyMessage('Terminology_TX_ValueSet_NotFound', canonical));
}

function caseDifference(given: string, correct: string, system: string): TerminologyIssue {
  return issue('information', 'business-rule', 'CODE_CASE_DIFFERENCE', formatTerminologyMessage('CODE_CASE_DIFFERENCE', given, correct, system));
}

function issue(severity: TerminologyIssue['severity'], code: string, messageId: string, text: string): TerminologyIssue {
  return { severity, code, messageId, text };
}
