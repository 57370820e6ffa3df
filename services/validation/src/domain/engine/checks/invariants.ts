/**
 * Invariants (ElementDefinition.constraint) evaluated with fhirpath.js, compiled once per
 * (base path, expression). A few core invariants are evaluated natively instead: ele-1 and
 * ext-1 because they sit on nearly every element (speed), dom-2..dom-6 because R4's dom-3
 * fails at runtime in fhirpath.js, txt-1/txt-2 because fhirpath.js has no htmlChecks().
 * memberOf() is answered synchronously by the terminology port. matches(), matchesFull() and
 * replaceMatches() run on RE2 instead of fhirpath.js's native RegExp: a profile's invariant may
 * carry any pattern, and the value it is applied to is submitted data.
 */
import fhirpath, { type Options as FhirPathOptions } from 'fhirpath';
import r4Model from 'fhirpath/fhir-context/r4/index.js';
import type { TerminologyPort } from '../../ports/terminology.js';
import { formatMessage } from '../messages.js';
import type { ConstraintPlan } from '../plan/structure-plan.js';
import { ByteBoundedCache } from '../../caching/byte-bounded-cache.js';
import { compileLinearRegex, isRegexError, type LinearRegex, type RegexFlags } from '../../regex/linear-regex.js';
import { collectLocalReferences } from './references.js';
import { scanNarrative, type XhtmlProblem } from './xhtml.js';
import { isArray, isObject } from '../json/json-value.js';

/**
 * `tooCostly`: the evaluation was stopped at MAX_FHIRPATH_ITEMS (the error says so); `unparsable`:
 * the expression did not compile, so it was never evaluated (HL7's checkInvariant reports that as
 * Problem_processing_expression__in_profile__path__).
 */
export type InvariantResult = 'pass' | 'fail' | 'skip' | { error: string; tooCostly?: true; unparsable?: true };

/**
 * Items one evaluation of an expression may produce, all its steps together (every intermediate
 * collection counted when it is produced): beyond it the evaluation is stopped and reported as too
 * costly. Nested `descendants().select(descendants()...)` in a 7 KB enableWhenExpression once grew
 * a worker's heap by 1 GB; the largest invariant of a real 64 MB Bundle produces far fewer.
 */
export const MAX_FHIRPATH_ITEMS = 2_000_000;

/**
 * What the compiled expressions of one evaluator may hold together (estimated). Expressions come
 * with the definitions (a few thousand, ~13 MB) and with the data (enableWhenExpression, sdc
 * variables): the cache is bounded by bytes, least recently used first out, so data cannot grow it.
 */
export const FHIRPATH_CACHE_BYTES = 32 * 1024 * 1024;

/** A compiled expression's estimated weight: ~4.3 KB measured for a short one, its tree growing with its text. */
function compiledBytes(key: string): number {
  return 4_400 + key.length * 64;
}

/** Thrown by the step counter to stop an evaluation at MAX_FHIRPATH_ITEMS. */
class FhirPathTooCostly extends Error {}

type Compiled = (node: unknown, env: Record<string, unknown>) => unknown[];

export interface InvariantEnv {
  resource: unknown;
  rootResource: unknown;
  /** Synchronous resolve() for references (contained resources, Bundle entries), given `context`. */
  resolve?: (reference: string, context: unknown) => unknown;
  context?: unknown;
  /**
   * conformsTo(url): whether a value follows a profile (HL7's host services validate it against the
   * profile: no errors), given `context`; undefined when it cannot be told (the result is then empty).
   */
  conformsTo?: (value: unknown, url: string, context: unknown) => boolean | undefined;
  /** `%extension`: the extension whose context invariants are evaluated. */
  extension?: unknown;
  /** Further `%name` variables (a Questionnaire's sdc variables), each a list of values. */
  variables?: Readonly<Record<string, unknown[]>>;
}

const NATIVE = new Set(['ele-1', 'ext-1', 'dom-2', 'dom-3', 'dom-4', 'dom-5', 'dom-6', 'txt-1', 'txt-2', 'bdl-1', 'bdl-2', 'bdl-3', 'bdl-4', 'bdl-7']);

/**
 * Core invariants whose R4 expression is wrong; the HL7 validator evaluates the corrected
 * form. Keyed by key + the published expression, so an IG reusing the key is not affected.
 */
const EXPRESSION_FIXES: Record<string, string> = {
  'que-12\u0000enableWhen.count() > 2 implies enableBehavior.exists()': 'enableWhen.count() > 1 implies enableBehavior.exists()',
  // `is Boolean` names System.Boolean, which fhirpath.js does not match to a FHIR boolean (the HL7 engine does)
  "que-7\u0000operator = 'exists' implies (answer is Boolean)": "operator = 'exists' implies (answer is FHIR.boolean)",
  // without repeats the published form is empty, not false, for two initial values: the HL7 engine counts empty as a failure
  'que-13\u0000repeats=true or initial.count() <= 1': '(repeats.exists() and repeats) or initial.count() <= 1',
  // The HL7 engine counts an empty result as a failure, and evaluates these R4 forms corrected
  // so that an absent element passes (its FHIRPathExpressionFixer does the same; ref-1's corrected
  // form is evaluated natively, evaluateRef1 below).
  "bdl-8\u0000fullUrl.contains('/_history/').not()": "fullUrl.exists() implies fullUrl.contains('/_history/').not()",
  "ras-2\u0000probability is decimal implies (probability as decimal) <= 100": 'probability.empty() or ((probability is decimal) implies ((probability as decimal) <= 100))',
  "eld-18\u0000isModifier implies isModifierReason.exists()": '(isModifier.exists() and isModifier) implies isModifierReason.exists()',
  // resource-typed parameters may name target profiles too (the R5 form of the rule)
  "opd-3\u0000targetProfile.exists() implies (type = 'Reference' or type = 'canonical')":
    "targetProfile.exists() implies (type = 'Reference' or type = 'canonical' or type.memberOf('http://hl7.org/fhir/ValueSet/resource-types'))",
};

/** Core's R4 ref-1, which every Reference carries. */
const REF_1_R4 = "reference.startsWith('#').not() or (reference.substring(1).trace('url') in %rootResource.contained.id.trace('ids'))";

/**
 * ref-1 in the HL7 validator's corrected form, `reference.exists() implies (reference = '#' or
 * <the R4 expression>)`: a reference that is absent, is `#` alone or does not start with `#`
 * passes; `#id` passes when a contained resource of the root resource has that id.
 */
function evaluateRef1(node: unknown, rootResource: unknown): InvariantResult {
  const reference = isObject(node) ? node.reference : undefined;
  if (typeof reference !== 'string' || reference === '#' || !reference.startsWith('#')) return 'pass';
  const id = reference.slice(1);
  const contained = isObject(rootResource) ? rootResource.contained : undefined;
  if (Array.isArray(contained)) for (const r of contained) if (isObject(r) && r.id === id) return 'pass';
  return 'fail';
}

/** The same corrections, for expressions that many constraints share (whatever their key). */
const EXPRESSION_FIXES_ANY_KEY: Record<string, string> = {
  // the canonical resources' name rule (warnings): an absent name passes, and the pattern matches the whole name
  "name.matches('[A-Z]([A-Za-z0-9_]){0,254}')": "name.exists() implies name.matches('^[A-Z]([A-Za-z0-9_]){0,254}$')",
};

export class InvariantEvaluator {
  private readonly compiled = new ByteBoundedCache<Compiled | Error>(FHIRPATH_CACHE_BYTES, compiledBytes);
  private readonly options: FhirPathOptions;
  /** Items produced by the evaluation in progress (evaluation is synchronous, so one at a time). */
  private produced = 0;
  private readonly maxItems: number;
  /** resolve() of the evaluation in progress (evaluation is synchronous, so one at a time). */
  private currentResolve: ((reference: string, context: unknown) => unknown) | undefined;
  private currentContext: unknown;
  /** conformsTo() of the evaluation in progress. */
  private currentConformsTo: InvariantEnv['conformsTo'];

  constructor(terminology: TerminologyPort, limits: { maxItems?: number } = {}) {
    this.maxItems = limits.maxItems ?? MAX_FHIRPATH_ITEMS;
    this.options = {
      traceFn: () => undefined,
      // called by fhirpath.js after every step with its result: the items are counted as they are made
      debugger: (_ctx: unknown, _input: unknown, result: unknown) => {
        if (!Array.isArray(result)) return;
        this.produced += result.length;
        if (this.produced > this.maxItems) throw new FhirPathTooCostly();
      },
      userInvocationTable: {
        memberOf: {
          fn: (inputs: unknown[], valueSet: string) => {
            if (!terminology.isMemberOf) return [];
            const out: boolean[] = [];
            for (const input of inputs) {
              const answer = memberOf(terminology, input, valueSet);
              if (answer === undefined) return [];
              out.push(answer);
            }
            return out;
          },
          arity: { 1: ['String'] },
        },
        resolve: {
          fn: (inputs: unknown[]) => {
            const out: unknown[] = [];
            const resolveFn = this.currentResolve;
            if (!resolveFn) return out;
            for (const input of inputs) {
              const ref = typeof input === 'string' ? input : isObject(input) && typeof input.reference === 'string' ? input.reference : undefined;
              if (!ref) continue;
              const target = resolveFn(ref, this.currentContext);
              if (target !== undefined) out.push(target);
            }
            return out;
          },
          arity: { 0: [] },
        },
        conformsTo: {
          fn: (inputs: unknown[], url: unknown) => {
            const check = this.currentConformsTo;
            if (!check || isEmpty(url)) return [];
            const out: boolean[] = [];
            for (const input of inputs) {
              const answer = check(input, String(url), this.currentContext);
              if (answer === undefined) return [];
              out.push(answer);
            }
            return out;
          },
          arity: { 1: ['String'] },
        },
        matches: {
          fn: (inputs: unknown[], regex: unknown, flags?: unknown) => {
            const value = singletonString(inputs, 'matches');
            if (value === undefined || isEmpty(regex)) return [];
            return fhirpathRegex(String(regex), { ...fhirpathFlags(flags), dotAll: true }).find(value);
          },
          arity: { 1: ['String'], 2: ['String', 'String'] },
        },
        matchesFull: {
          fn: (inputs: unknown[], regex: unknown, flags?: unknown) => {
            const value = singletonString(inputs, 'matchesFull');
            if (value === undefined || isEmpty(regex)) return [];
            return fhirpathRegex(String(regex), { ...fhirpathFlags(flags), dotAll: true }).matchesWhole(value);
          },
          arity: { 1: ['String'], 2: ['String', 'String'] },
        },
        replaceMatches: {
          fn: (inputs: unknown[], regex: unknown, substitution: unknown) => {
            const value = singletonString(inputs, 'replaceMatches');
            if (value === undefined || isEmpty(regex) || isEmpty(substitution)) return [];
            return fhirpathRegex(String(regex), {}).replaceAll(value, String(substitution));
          },
          arity: { 2: ['String', 'String'] },
        },
      },
    };
  }

  /** The estimated bytes of the compiled expressions kept (tests, probes). */
  get compiledCacheBytes(): number {
    return this.compiled.bytes;
  }

  /** Items one evaluation may produce before it is stopped. */
  get itemBudget(): number {
    return this.maxItems;
  }

  /** Whether this constraint is handled natively (and so needs no expression). */
  static isNative(key: string): boolean {
    return NATIVE.has(key);
  }

  /** The compiled expression (or why it does not compile), compiled once per key. */
  private compile(cacheKey: string, base: string, expression: string, options: FhirPathOptions): Compiled | Error {
    let fn = this.compiled.get(cacheKey);
    if (fn === undefined) {
      try {
        fn = fhirpath.compile({ base, expression }, r4Model, options);
      } catch (e) {
        fn = e instanceof Error ? e : new Error(String(e));
      }
      this.compiled.set(cacheKey, fn);
    }
    return fn;
  }

  evaluate(c: ConstraintPlan, node: unknown, env: InvariantEnv): InvariantResult {
    if (NATIVE.has(c.key)) return evaluateNative(c.key, node);
    if (!c.expression) return 'skip';
    // ref-1 stands on every Reference: evaluated here, in its corrected form (below), not by fhirpath.js
    if (c.key === 'ref-1' && c.expression === REF_1_R4) return evaluateRef1(node, env.rootResource);
    const expression = EXPRESSION_FIXES[c.key + '\u0000' + c.expression] ?? EXPRESSION_FIXES_ANY_KEY[c.expression] ?? c.expression;
    const fn = this.compile(c.base + '\u0000' + expression, c.base, expression, this.options);
    if (fn instanceof Error) return { error: fn.message, unparsable: true };
    this.currentResolve = env.resolve;
    this.currentContext = env.context;
    this.currentConformsTo = env.conformsTo;
    this.produced = 0;
    try {
      const result = fn(node, variables(env));
      // An empty result passes. (The HL7 engine converts it to false, so it fails there; but
      // fhirpath.js returns empty where the HL7 engine has an answer — `.value` of a primitive, as in
      // deqm-1's `start.value.matches(...)` — and failing on empty turned each such gap into a false
      // error on every NHSN MeasureReport. The expressions HL7 itself corrects are corrected above,
      // so that an absent element passes either way.)
      if (result.length === 0) return 'pass';
      if (result.length === 1 && typeof result[0] === 'boolean') return result[0] ? 'pass' : 'fail';
      return 'pass';
    } catch (e) {
      return this.failure(e, expression);
    } finally {
      this.currentResolve = undefined;
      this.currentContext = undefined;
      this.currentConformsTo = undefined;
    }
  }

  /**
   * The items an expression selects from `focus` (of type `base`), as the values they are in
   * the input JSON: `value` is the object or primitive value, `companion` the `_x` object of a
   * primitive. Lets a caller ask "is this element among the results" by identity, as the HL7
   * validator does for an extension's fhirpath context.
   */
  select(expression: string, base: string, focus: unknown, env: InvariantEnv): { value: unknown; companion: unknown }[] | { error: string; tooCostly?: true } {
    const fn = this.compile('\u0001nodes\u0000' + base + '\u0000' + expression, base, expression, { ...this.options, resolveInternalTypes: false });
    if (fn instanceof Error) return { error: fn.message };
    this.currentResolve = env.resolve;
    this.currentContext = env.context;
    this.produced = 0;
    try {
      return fn(focus, variables(env)).map((n) => (isObject(n) && 'data' in n ? { value: n.data, companion: n._data } : { value: n, companion: undefined }));
    } catch (e) {
      return this.failure(e, expression);
    } finally {
      this.currentResolve = undefined;
      this.currentContext = undefined;
    }
  }

  /** Why an evaluation failed: too costly (stopped by the step counter), or its own error. */
  private failure(e: unknown, expression: string): { error: string; tooCostly?: true } {
    if (e instanceof FhirPathTooCostly) return { error: formatMessage('FHIRPATH_TOO_COSTLY', [expression, this.maxItems]), tooCostly: true };
    return { error: e instanceof Error ? e.message : String(e) };
  }

  /** A boolean expression on `focus`: true, false, or an error (empty counts as true, as for invariants). */
  test(expression: string, base: string, focus: unknown, env: InvariantEnv): InvariantResult {
    return this.evaluate({ key: '\u0001expression', severity: 'error', human: '', expression, bestPractice: false, base, source: undefined }, focus, env);
  }
}

function variables(env: InvariantEnv): Record<string, unknown> {
  const vars: Record<string, unknown> = { ...env.variables, resource: env.resource, rootResource: env.rootResource };
  if (env.extension !== undefined) vars.extension = env.extension;
  return vars;
}

/** The FHIRPath string functions' singleton rule: empty gives empty, more than one item or a non-string is an error. */
function singletonString(inputs: unknown[], fn: string): string | undefined {
  if (inputs.length > 1) throw new Error(`${fn}() expects a single string, but got ${inputs.length} items`);
  if (inputs.length === 0) return undefined;
  let value = inputs[0];
  if (isObject(value) && 'data' in value) value = value.data; // a fhirpath.js node wrapping a primitive
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string') throw new Error(`${fn}() expects a string, but got ${typeof value}`);
  return value;
}

function isEmpty(param: unknown): boolean {
  return param === undefined || param === null || (Array.isArray(param) && param.length === 0);
}

/** FHIRPath regex flags: `i` and `m` only. */
function fhirpathFlags(flags: unknown): RegexFlags {
  if (isEmpty(flags)) return {};
  const text = String(flags);
  for (const ch of text) if (ch !== 'i' && ch !== 'm') throw new Error('matches/matchesFull flags must only contain i and/or m');
  return { ignoreCase: text.includes('i'), multiline: text.includes('m') };
}

/** The pattern on RE2; one RE2 cannot run makes the invariant unevaluable, with the HL7 wording for it. */
function fhirpathRegex(pattern: string, flags: RegexFlags): LinearRegex {
  const compiled = compileLinearRegex(pattern, flags);
  if (isRegexError(compiled)) throw new Error(formatMessage('REGEX_EXCEPTION', [pattern, 'string', compiled.error]));
  return compiled;
}

function memberOf(terminology: TerminologyPort, input: unknown, valueSet: string): boolean | undefined {
  if (!terminology.isMemberOf) return undefined;
  if (typeof input === 'string') return terminology.isMemberOf({ code: input }, valueSet);
  if (isObject(input)) {
    const o = input;
    if (Array.isArray(o.coding)) {
      let unknown = false;
      for (const c of o.coding) {
        if (!isObject(c)) continue;
        const r = terminology.isMemberOf(c, valueSet);
        if (r === true) return true;
        if (r === undefined) unknown = true;
      }
      return unknown ? undefined : false;
    }
    if (typeof o.code === 'string') return terminology.isMemberOf(o, valueSet);
  }
  return undefined;
}

function evaluateNative(key: string, node: unknown): InvariantResult {
  switch (key) {
    case 'ele-1': {
      if (!isObject(node)) return node === null || node === undefined ? 'fail' : 'pass';
      for (const k in node) if (k !== 'id') return 'pass';
      return 'fail';
    }
    case 'ext-1': {
      if (!isObject(node)) return 'pass';
      let hasValue = false;
      for (const k in node) if (k.startsWith('value') && k.length > 5) { hasValue = true; break; }
      const hasExtensions = Array.isArray(node.extension) && node.extension.length > 0;
      return hasValue !== hasExtensions ? 'pass' : 'fail';
    }
    case 'dom-2':
      return containedEvery(node, (c) => c.contained === undefined);
    case 'dom-4':
      return containedEvery(node, (c) => !isObject(c.meta) || (c.meta.versionId === undefined && c.meta.lastUpdated === undefined));
    case 'dom-5':
      return containedEvery(node, (c) => !isObject(c.meta) || c.meta.security === undefined);
    case 'dom-6':
      return isObject(node) && isObject(node.text) && node.text.div !== undefined ? 'pass' : 'fail';
    case 'dom-3':
      return dom3(node);
    // bdl-1..4: fhirpath.js walks every entry several times (slow for 100,000-entry Bundles)
    case 'bdl-1':
      return !isObject(node) || node.total === undefined || node.type === 'searchset' || node.type === 'history' ? 'pass' : 'fail';
    case 'bdl-2':
      return !isObject(node) || node.type === 'searchset' || !entriesHave(node, 'search') ? 'pass' : 'fail';
    case 'bdl-3':
      return !isObject(node) || node.type === 'batch' || node.type === 'transaction' || node.type === 'history' || !entriesHave(node, 'request') ? 'pass' : 'fail';
    case 'bdl-4':
      return !isObject(node) || node.type === 'batch-response' || node.type === 'transaction-response' || node.type === 'history' || !entriesHave(node, 'response') ? 'pass' : 'fail';
    case 'bdl-7': {
      // fullUrl (+ versionId) unique; fhirpath.js isDistinct() is quadratic, so a Set instead
      if (!isObject(node) || !Array.isArray(node.entry)) return 'pass';
      const seen = new Set<string>();
      for (const e of node.entry) {
        if (!isObject(e) || typeof e.fullUrl !== 'string') continue;
        const r = e.resource;
        const version = isObject(r) && isObject(r.meta) ? String(r.meta.versionId ?? '') : '';
        const key = e.fullUrl + '\u0000' + version;
        if (seen.has(key)) return 'fail';
        seen.add(key);
      }
      return 'pass';
    }
    case 'txt-1':
      return typeof node !== 'string' || !scanNarrative(node).problems.some(failsTxt1) ? 'pass' : 'fail';
    case 'txt-2':
      return typeof node !== 'string' || scanNarrative(node).hasContent ? 'pass' : 'fail';
    default:
      return 'skip';
  }
}

/**
 * txt-1 is about the narrative's element and attribute names, not about its URLs, a DOCTYPE or a
 * block inside a paragraph (reported on their own, by the validator's own XHTML rules).
 */
function failsTxt1(problem: XhtmlProblem): boolean {
  return problem.id !== 'XHTML_URL_INVALID' && problem.id !== 'XHTML_DOCTYPE' && problem.id !== 'XHTML_XHTML_Entity_Illegal' && problem.id !== 'XHTML_XHTML_ELEMENT_ILLEGAL_IN_PARA';
}

function entriesHave(bundle: Record<string, unknown>, key: string): boolean {
  if (!Array.isArray(bundle.entry)) return false;
  for (const e of bundle.entry) if (isObject(e) && e[key] !== undefined) return true;
  return false;
}

function containedEvery(node: unknown, ok: (c: Record<string, unknown>) => boolean): InvariantResult {
  if (!isObject(node) || !Array.isArray(node.contained)) return 'pass';
  for (const c of node.contained) if (isObject(c) && !ok(c)) return 'fail';
  return 'pass';
}

/**
 * dom-3: every contained resource is referenced from elsewhere in the resource (or from
 * another contained resource), or itself refers to the container ("#").
 */
function dom3(node: unknown): InvariantResult {
  if (!isObject(node) || !Array.isArray(node.contained) || node.contained.length === 0) return 'pass';
  return unreferencedContained(node).length === 0 ? 'pass' : 'fail';
}

/** Indexes of contained resources that nothing refers to (dom-3). */
export function unreferencedContained(resource: Record<string, unknown>): number[] {
  const contained = isArray(resource.contained) ? resource.contained : [];
  const refs = new Set<string>();
  const outside: Record<string, unknown> = {};
  for (const k in resource) if (k !== 'contained') outside[k] = resource[k];
  collectLocalReferences(outside, refs);
  // each contained resource's id (as text: 'undefined' when it has none) and local references
  const containedRefs = contained.map((c) => {
    const s = new Set<string>();
    collectLocalReferences(c, s);
    return { id: String(isObject(c) ? c.id : undefined), refs: s };
  });
  // references between contained resources count when the referrer is itself referenced
  const reached = new Set<string>();
  let changed = true;
  for (const r of refs) if (r.startsWith('#')) reached.add(r.slice(1));
  for (const c of containedRefs) if (c.refs.has('#')) reached.add(c.id);
  while (changed) {
    changed = false;
    containedRefs.forEach((c) => {
      if (!reached.has(c.id)) return;
      for (const r of c.refs) {
        if (r.startsWith('#') && r.length > 1 && !reached.has(r.slice(1))) {
          reached.add(r.slice(1));
          changed = true;
        }
      }
    });
  }
  const missing: number[] = [];
  containedRefs.forEach((c, i) => {
    if (!reached.has(c.id)) missing.push(i);
  });
  return missing;
}
