/**
 * Terminology bindings of an element on a code, Coding, CodeableConcept, Quantity or
 * CodeableReference: the main binding (by strength) and additional required/maximum bindings,
 * through the TerminologyPort. Answers may be Promises: they are collected in the run and
 * applied when they arrive (validateAsync waits for them).
 */
import type { CodingInput, TerminologyIssue, ValidateCodeResult } from '../../ports/terminology.js';
import type { ResolvedValidatorOptions } from '../validator-options.js';
import type { NodeContext } from '../context/node-context.js';
import type { BindingPlan } from '../plan/structure-plan.js';
import type { JsonNode } from '../json/json-node.js';

/** The types a binding is checked on. */
export type BoundType = 'code' | 'string' | 'uri' | 'Coding' | 'Quantity' | 'CodeableConcept' | 'CodeableReference';

/**
 * The binding of ctx.element (`binding`) on a value of `type`, checked once per location and value
 * set: `v` is a code's text (a primitive), or undefined for a complex value, read from ctx.node.
 */
export function checkBinding(ctx: NodeContext, binding: BindingPlan, type: BoundType, v: string | undefined): void {
  const run = ctx.run;
  const node = ctx.node;
  for (const extra of binding.additional) {
    if (extra.purpose === 'required' || extra.purpose === 'maximum') checkAdditionalBinding(ctx, extra.valueSet, v);
  }
  const valueSet = binding.valueSet;
  if (!valueSet || binding.strength === 'example') return;
  const key = ctx.path + '\u0000' + valueSet + '\u0000binding';
  if (run.evaluated.has(key)) return;
  run.evaluated.add(key);
  let request: { coding?: CodingInput; codings?: CodingInput[] };
  let display: string;
  if (v !== undefined) {
    request = { coding: { code: v } };
    display = v;
  } else if (node.isObject && (type === 'CodeableConcept' || type === 'CodeableReference')) {
    const cc = type === 'CodeableReference' ? node.child('concept') : node;
    const coding = cc?.isObject ? cc.child('coding') : undefined;
    if (!coding?.isList) return;
    const items = coding.items();
    if (items.length === 0) return;
    const codings = codingInputs(items);
    request = { codings };
    display = codings.map((c) => `${c.system ?? ''}#${c.code ?? ''}`).join(', ');
  } else if (node.isObject && (type === 'Coding' || type === 'Quantity')) {
    const code = node.str('code');
    if (code === undefined) return;
    request = { coding: { system: node.str('system'), code, display: node.str('display'), version: node.str('version') } };
    display = code;
  } else {
    return;
  }
  let answer: ValidateCodeResult | Promise<ValidateCodeResult>;
  try {
    const elementKind = type === 'CodeableReference' ? 'CodeableConcept' : type;
    answer = ctx.services.terminology.validateCode({
      valueSet, ...request, elementKind, strength: binding.strength, maxValueSet: binding.maxValueSet,
      authorization: run.authorization, displayLanguage: displayLanguage(ctx),
    });
  } catch (e) {
    answer = { valid: undefined, issues: [{ severity: 'warning', code: 'exception', text: `Terminology error: ${e instanceof Error ? e.message : String(e)}`, messageId: 'TERMINOLOGY_ERROR' }], source: 'none' };
  }
  const asked: BindingQuestion = { binding, valueSet, type, display };
  const apply = (r: ValidateCodeResult) => applyBindingResult(ctx, asked, r);
  if (answer instanceof Promise) {
    run.pending.push(answer.then(apply, (e) => apply({ valid: undefined, issues: [{ severity: 'warning', code: 'exception', text: `Terminology error: ${e instanceof Error ? e.message : String(e)}`, messageId: 'TERMINOLOGY_ERROR' }], source: 'none' })));
  } else {
    apply(answer);
  }
}

/** An additional binding with purpose required/maximum: the codes must be in its value set (`v`: a code's text, else ctx.node). */
function checkAdditionalBinding(ctx: NodeContext, valueSet: string, v: string | undefined): void {
  const run = ctx.run;
  const node = ctx.node;
  const key = ctx.path + '\u0000' + valueSet + '\u0000additional';
  if (run.evaluated.has(key)) return;
  run.evaluated.add(key);
  let codings: CodingInput[] = [];
  const coding = v === undefined ? node.child('coding') : undefined;
  if (v !== undefined) codings = [{ code: v }];
  else if (coding?.isList) codings = codingInputs(coding.items());
  else if (node.str('code') !== undefined) codings = [codingInput(node)];
  if (codings.length === 0) return;
  const apply = (r: ValidateCodeResult) => {
    if (r.valid !== false) return;
    const vs = ctx.services.source.valueSet(valueSet);
    const title = vs?.title ?? vs?.name ?? valueSet;
    const label = vs?.url ? (vs.version ? `${vs.url}|${vs.version}` : vs.url) : valueSet;
    ctx.report('error', 'BINDING_ADDITIONAL_REQUIRED', [title, label, codings.map((c) => `${c.system ?? ''}#${c.code ?? ''}`).join(', ')], ctx.path, ctx.at);
  };
  try {
    const answer = ctx.services.terminology.validateCode({ valueSet, codings, authorization: run.authorization });
    if (answer instanceof Promise) run.pending.push(answer.then(apply, () => undefined));
    else apply(answer);
  } catch {
    // terminology failures are reported by the main binding check
  }
}

/** What the terminology was asked about a value: the binding and its value set, the value's type and how messages show it. */
interface BindingQuestion {
  readonly binding: BindingPlan;
  readonly valueSet: string;
  readonly type: BoundType;
  readonly display: string;
}

/** A terminology answer on the binding of ctx.element: its issues, then the binding failure unless the answer worded it. */
function applyBindingResult(ctx: NodeContext, asked: BindingQuestion, r: ValidateCodeResult): void {
  const { binding, valueSet, type, display } = asked;
  const { path, at } = ctx;
  const strength = binding.strength;
  pushTerminologyIssues(ctx, r.issues);
  if (r.valid !== false) return;
  // a terminology that words the binding failure itself (given the strength) has said it already
  if (r.issues.some((i) => i.severity === (strength === 'required' ? 'error' : strength === 'extensible' ? 'warning' : 'information'))) return;
  const vs = ctx.services.source.valueSet(valueSet);
  const title = vs?.title ?? vs?.name ?? valueSet;
  const vsLabel = vs?.url ? (vs.version ? `${vs.url}|${vs.version}` : vs.url) : valueSet;
  const concept = type === 'CodeableConcept' || type === 'CodeableReference';
  if (strength === 'required') {
    if (concept) ctx.report('error', 'BINDING_REQUIRED_CONCEPT', [title, vsLabel, display], path, at);
    else ctx.report('error', 'BINDING_REQUIRED_CODE', [display, title, vsLabel], path, at);
  } else if (strength === 'extensible') {
    ctx.report('warning', 'BINDING_EXTENSIBLE_CONCEPT', [title, vsLabel, display], path, at);
  } else if (strength === 'preferred') {
    ctx.report('information', 'BINDING_PREFERRED_CONCEPT', [title, vsLabel, display], path, at);
  }
}

/** The terminology's issues on the value at ctx, at the severity the settings give them, each once per location. */
export function pushTerminologyIssues(ctx: NodeContext, issues: readonly TerminologyIssue[]): void {
  const { run, path, at } = ctx;
  for (const issue of issues) {
    const severity = settingSeverity(run.options, issue);
    const key = severity + '\u0000' + path + '\u0000' + issue.text;
    if (run.seen.has(key)) continue;
    run.seen.add(key);
    if (!run.silent) run.pushIssue(severity, issue, path, at);
    if (severity === 'error') run.errorCount++;
  }
}

/** The codings of a CodeableConcept as the terminology takes them: the objects, their texts (others left out). */
function codingInputs(codings: readonly JsonNode[]): CodingInput[] {
  const out: CodingInput[] = [];
  for (const c of codings) if (c.isObject) out.push(codingInput(c));
  return out;
}

function codingInput(c: JsonNode): CodingInput {
  return { system: c.str('system'), version: c.str('version'), code: c.str('code'), display: c.str('display') };
}

/**
 * The language displays are checked in: the resource's own `language` wins over the setting (as
 * HL7's validation language, which "is not used if the resource specifies language").
 */
export function displayLanguage(ctx: NodeContext): string | undefined {
  const own = ctx.host.root.language;
  return typeof own === 'string' && own !== '' ? own : ctx.run.options.language;
}

/** Display and unknown-code-system issues at the severity the settings give them; others as the terminology said. */
export function settingSeverity(options: ResolvedValidatorOptions, issue: TerminologyIssue): TerminologyIssue['severity'] {
  if (issue.messageId === DISPLAY_ISSUE && options.displayIssuesAreWarnings !== undefined && (issue.severity === 'error' || issue.severity === 'warning')) {
    return options.displayIssuesAreWarnings ? 'warning' : 'error';
  }
  if (options.unknownCodeSystemsCauseErrors && UNKNOWN_SYSTEM_IDS.has(issue.messageId) && issue.severity === 'warning') return 'error';
  return issue.severity;
}

/** The terminology's message id for a wrong display (terminology-messages.ts). */
const DISPLAY_ISSUE = 'Display_Name_for__should_be_one_of__instead_of';
/** The terminology's message ids for a code system it does not know. */
export const UNKNOWN_SYSTEM_IDS: ReadonlySet<string> = new Set(['Terminology_TX_System_Unknown', 'Terminology_TX_System_NotKnown', 'UNKNOWN_CODESYSTEM', 'UNKNOWN_CODESYSTEM_VERSION']);
