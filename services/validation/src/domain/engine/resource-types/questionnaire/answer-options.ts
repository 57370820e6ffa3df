/**
 * Answers to choice and open-choice items (and string items with an answerValueSet), as the
 * HL7 validator checks them: a Coding against the item's answerOptions (system and code; an
 * optionExclusive option must be the only answer) or else its answerValueSet through the
 * terminology port; a date, time, integer or string answer against the options of its type.
 * Open-choice differs only where HL7's does (it reads R4 open-choice as an R5 coding item whose
 * answerConstraint is optionsOrString): a Coding answer is checked as for choice, a free string is
 * not checked against the options (but warned when it spells an option), and a date, time or
 * integer answer without options of its type is "not an option" rather than "no options". A date
 * answer never matches a date option (HL7 compares the option's Date with the answer's text).
 *
 * A value set answer the terminology cannot give (valid undefined: a code system not held, a
 * value set not expandable here) is a warning, as the HL7 validator reports a code system it
 * cannot use; a definite "not in the value set" is an error.
 */
import type { CodingInput, ValidateCodeResult } from '#validation/domain/ports/terminology.js';
import type { JsonNode } from '../../json/json-node.js';
import { isObject } from '../../json/json-value.js';
import { choiceValue, EXT, extensions, objects, typeOfSuffix, type Obj } from './questionnaire-model.js';
import type { ResponseScope } from './response-scope.js';

/**
 * One answer under check, as the checks of its value share it: the item it answers (`def`), the
 * answer and its path, and how many answers the response item has (an exclusive option must be the
 * only one).
 */
export interface AnswerUnderCheck {
  readonly scope: ResponseScope;
  readonly def: Obj;
  readonly answer: Obj;
  /** The answer's node (where its issues are placed) and HL7's name for it (see response-items.ts). */
  readonly node: JsonNode;
  readonly answerPath: string;
  readonly count: number;
}

/** One answer whose value `v` is of type `type` (already one the item allows) to a choice or open-choice item. */
export function checkChoiceAnswer(a: AnswerUnderCheck, type: string, v: unknown): void {
  const { scope, def, answer, node, answerPath } = a;
  const open = def.type === 'open-choice';
  const options = objects(def.answerOption);
  if (type === 'Coding') {
    if (!isObject(v)) return;
    if (options.length > 0) checkCodingOption(a, options, v);
    else if (typeof def.answerValueSet === 'string') checkCodingInValueSet(a, def.answerValueSet, v);
    else scope.report('information', 'QR_NO_OPTIONS', [], answerPath, node);
    return;
  }
  const text = typeof v === 'number' ? scope.rawNumber(answer, 'valueInteger') ?? String(v) : typeof v === 'string' ? v : undefined;
  if (text === undefined) return;
  if (options.length === 0) {
    scope.report('information', 'QR_NO_OPTION_LIST', [type], answerPath, node);
    return;
  }
  if (type === 'string' && open) {
    // free text is what open-choice allows; text that spells a coded option should have been the Coding
    const lower = text.toLowerCase();
    const spellsOption = options.some((o) => isObject(o.valueCoding) && [o.valueCoding.display, o.valueCoding.code].some((s) => typeof s === 'string' && s.toLowerCase() === lower));
    if (spellsOption) scope.report('warning', 'QR_STRING_MATCHES_OPTION', [text], answerPath, node);
    return;
  }
  const typed: string[] = [];
  for (const o of options) {
    const choice = choiceValue(o);
    if (choice !== undefined && typeOfSuffix(choice.suffix) === type) typed.push(String(choice.value));
  }
  if (typed.length === 0 && !(open && type !== 'string')) scope.error('QR_NO_OPTIONS_OF_TYPE', [type], answerPath, node);
  else if (type === 'date' || !typed.includes(text)) scope.error('QR_NOT_AN_OPTION', [type, text], answerPath, node);
}

function checkCodingOption(a: AnswerUnderCheck, options: Obj[], coding: Obj): void {
  const { scope, answerPath, node, count } = a;
  const codings = options.filter((o) => isObject(o.valueCoding));
  if (codings.length === 0) {
    scope.error('QR_NO_OPTIONS_OF_TYPE', ['coding'], answerPath, node);
    return;
  }
  const match = codings.find((o) => isObject(o.valueCoding) && o.valueCoding.system === coding.system && o.valueCoding.code === coding.code);
  if (!match) {
    scope.error('QR_CODING_NOT_AN_OPTION', [coding.system ?? 'null', coding.code ?? 'null'], answerPath, node);
    return;
  }
  const exclusive = extensions(match, EXT.optionExclusive).some((e) => e.valueBoolean === true);
  if (exclusive && count !== 1) scope.error('QR_OPTION_EXCLUSIVE', [`${coding.system ?? ''}#${coding.code ?? ''}`], answerPath, node);
}

function checkCodingInValueSet(a: AnswerUnderCheck, ref: string, coding: Obj): void {
  const { scope, answerPath, node } = a;
  const input: CodingInput = { system: str(coding.system), code: str(coding.code), display: str(coding.display), version: str(coding.version) };
  const contained = scope.containedValueSet(ref);
  const held = contained ?? scope.ctx.services.source.valueSet(ref);
  if (!held) {
    scope.report('warning', 'VALUE_SET_NOT_FOUND', [ref], answerPath, node);
    return;
  }
  const name = String(held.title ?? held.name ?? held.url ?? ref);
  const apply = (r: ValidateCodeResult) => {
    if (r.valid === false) {
      scope.error('QR_OPTION_NOT_IN_VALUE_SET', [input.system ?? 'null', input.code ?? 'null', name, r.issues.map((i) => i.text).join('; ')], answerPath, node);
    } else if (r.valid === undefined) {
      scope.report('warning', 'QR_OPTION_SYSTEM_UNCHECKED', [input.system ?? 'null', input.code ?? 'null', name], answerPath, node);
    } else {
      passThrough(scope, r, answerPath, node);
    }
  };
  if (contained) apply(containedMembership(scope, contained, input));
  else askTerminology(scope, { valueSet: ref, coding: input, elementKind: 'Coding' }, apply, (e) => {
    scope.report('warning', 'QR_OPTION_CHECK_FAILED', [e], answerPath, node);
  });
}

/**
 * A string item with an answerValueSet: the string must be a code of the value set. As the HL7
 * validator: an answer the terminology cannot confirm is an error too (it has no "cannot check"
 * case here, unlike Codings), and the value set is found by url only (a contained one is not found).
 */
export function checkStringInValueSet(scope: ResponseScope, ref: string, v: string, valuePath: string): void {
  // HL7 looks the value set up by url only (findTxResource): a contained `#vs` is not found here
  if (ref.startsWith('#') || !scope.ctx.services.source.valueSet(ref)) {
    scope.report('warning', 'QR_VALUE_SET_NOT_FOUND', [ref], valuePath, undefined);
    return;
  }
  const apply = (r: ValidateCodeResult) => {
    if (r.valid !== true) scope.error('QR_NOT_IN_VALUE_SET', [v, ref], valuePath, undefined);
  };
  askTerminology(scope, { valueSet: ref, coding: { code: v }, elementKind: 'string' }, apply, () => undefined);
}

function askTerminology(scope: ResponseScope, request: { valueSet: string; coding: CodingInput; elementKind: 'Coding' | 'string' }, apply: (r: ValidateCodeResult) => void, failed: (message: string) => void): void {
  const { ctx } = scope;
  try {
    const answer = ctx.services.terminology.validateCode({ ...request, authorization: ctx.run.authorization });
    if (answer instanceof Promise) ctx.run.pending.push(answer.then(apply, (e: unknown) => failed(e instanceof Error ? e.message : String(e))));
    else apply(answer);
  } catch (e) {
    failed(e instanceof Error ? e.message : String(e));
  }
}

/** The terminology's own remarks on a coding it accepted (a wrong display, ...), with their severity. */
function passThrough(scope: ResponseScope, r: ValidateCodeResult, path: string, at: JsonNode): void {
  const run = scope.ctx.run;
  for (const i of r.issues) {
    const key = i.severity + '\u0000' + path + '\u0000' + i.text;
    if (run.seen.has(key)) continue;
    run.seen.add(key);
    if (run.silent) continue;
    if (i.severity === 'error') run.errorCount++;
    run.pushIssue(i.severity, i, path, at.at);
  }
}

/**
 * Membership in a ValueSet contained in the Questionnaire (or its response), which the
 * terminology port cannot look up by url: enumerated concepts and expansions are decided here,
 * a whole code system through the port's code-system check, anything else (filters, imported
 * value sets) cannot be decided (valid undefined).
 */
function containedMembership(scope: ResponseScope, vs: Obj, coding: CodingInput): ValidateCodeResult {
  const result = (valid: boolean | undefined): ValidateCodeResult => ({ valid, issues: [], source: 'local' });
  const sameSystem = (system: unknown) => coding.system === undefined || system === coding.system;
  const expansion = isObject(vs.expansion) ? objects(vs.expansion.contains) : [];
  if (expansion.length > 0) return result(expansion.some((c) => sameSystem(c.system) && c.code === coding.code));
  const compose = isObject(vs.compose) ? vs.compose : undefined;
  if (!compose) return result(undefined);
  const excluded = objects(compose.exclude).some((ex) => sameSystem(ex.system) && objects(ex.concept).some((c) => c.code === coding.code));
  if (excluded) return result(false);
  let undecided = false;
  for (const include of objects(compose.include)) {
    if (include.filter !== undefined || include.valueSet !== undefined) {
      undecided = true;
      continue;
    }
    if (!sameSystem(include.system)) continue;
    const concepts = objects(include.concept);
    if (concepts.length > 0) {
      if (concepts.some((c) => c.code === coding.code)) return result(true);
      continue;
    }
    if (typeof include.system !== 'string' || coding.code === undefined) {
      undecided = true;
      continue;
    }
    const verdict = codeSystemVerdict(scope, { ...coding, system: include.system });
    if (verdict === true) return result(true);
    if (verdict === undefined) undecided = true;
  }
  return result(undecided ? undefined : false);
}

function codeSystemVerdict(scope: ResponseScope, coding: CodingInput): boolean | undefined {
  try {
    const answer = scope.ctx.services.terminology.validateCode({ coding, authorization: scope.ctx.run.authorization });
    return answer instanceof Promise ? undefined : answer.valid;
  } catch {
    return undefined;
  }
}

function str(v: unknown): string | undefined {
  return typeof v === 'string' ? v : undefined;
}
