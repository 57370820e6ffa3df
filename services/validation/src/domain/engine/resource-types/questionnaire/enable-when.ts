/**
 * Whether a Questionnaire item is enabled for a QuestionnaireResponse, as the HL7 validator's
 * EnableWhenEvaluator decides it: each enableWhen looks at the answers to its question inside
 * the innermost group that holds both items (the whole response when none does); `exists`
 * compares presence, the other operators compare each answer to the expected one (Codings by
 * system and code, only = and !=; primitives by value; Quantities by value). One condition or
 * enableBehavior `any`: one must hold; `all`: every one; several without enableBehavior: enabled.
 * `exists` counts what the answers hold (a value, nested items), as HL7 counts an answer's children.
 * An sdc enableWhenExpression (or the Finnish PHR one) is evaluated as FHIRPath on the response,
 * with the sdc variables in scope (empty is false, as HL7's evaluateToBoolean has it); one that
 * cannot be evaluated (a %variable the validator does not have, such as a launch context, or an
 * error) leaves the item enabled, as the HL7 validator does, so no answer is called "not enabled"
 * on a guess.
 */
import type { InvariantEvaluator } from '../../checks/invariants.js';
import { isArray, isObject } from '../../json/json-value.js';
import { choiceValue, EXT, extensions, instantOf, objects, type Obj, type QuestionnaireIndex } from './questionnaire-model.js';

/** One level of the walk: a Questionnaire item and the response item answering it (HL7's QStack entry). */
export interface AnswerFrame {
  q: Obj;
  a: Obj;
}

interface TypedValue {
  suffix: string;
  value: unknown;
}

/** The answers to one question: their values, and how many things they hold in all (for exists). */
interface Answers {
  values: TypedValue[];
  children: number;
}

const NO_ANSWERS: Answers = { values: [], children: 0 };

const FINNISH_ENABLE_WHEN = 'http://phr.kanta.fi/StructureDefinition/fiphr-ext-questionnaire-enablewhen';
const VARIABLE_EXT = 'http://hl7.org/fhir/StructureDefinition/variable';

export class EnableWhenEvaluator {
  private readonly answersByFocus = new WeakMap<Obj, Map<string, Answers>>();

  constructor(
    private readonly index: QuestionnaireIndex,
    /** The QuestionnaireResponse. */
    private readonly response: Obj,
    /** The FHIRPath evaluator for enableWhenExpression (none: such items count as enabled). */
    private readonly fhirpath?: InvariantEvaluator,
    /** Told of an expression stopped at the evaluator's item budget (the item then counts as enabled). */
    private readonly tooCostly?: (expression: string) => void,
  ) {}

  isEnabled(item: Obj, stack: readonly AnswerFrame[]): boolean {
    // the Finnish PHR extension (a FHIRPath string) comes first, as HL7 reads it first
    const finnish = extensions(item, FINNISH_ENABLE_WHEN)[0];
    if (finnish) return this.expressionEnabled({ valueExpression: { language: 'text/fhirpath', expression: finnish.valueString } }, item, stack);
    const expression = extensions(item, EXT.enableWhenExpression)[0];
    if (expression) return this.expressionEnabled(expression, item, stack);
    const conditions = objects(item.enableWhen);
    if (conditions.length === 0) return true;
    const results = conditions.map((c) => this.condition(c, item, stack));
    if (item.enableBehavior === 'any' || results.length === 1) return results.some(Boolean);
    if (item.enableBehavior === 'all') return results.every(Boolean);
    return true;
  }

  /**
   * An sdc enableWhenExpression (text/fhirpath) on the response, as HL7's evaluateToBoolean: empty
   * is false, one boolean is itself, anything else true. Another language, a %variable fhirpath.js
   * does not have, or an error: enabled (not evaluated).
   */
  private expressionEnabled(extension: Obj, item: Obj, stack: readonly AnswerFrame[]): boolean {
    const value = extension.valueExpression;
    if (!this.fhirpath || !isObject(value) || value.language !== 'text/fhirpath' || typeof value.expression !== 'string') return true;
    const env = { resource: this.response, rootResource: this.response, variables: this.variablesFor(item, stack) };
    const result = this.fhirpath.select(value.expression, 'QuestionnaireResponse', this.response, env);
    if (!Array.isArray(result)) {
      if (result.tooCostly) this.tooCostly?.(value.expression);
      return true;
    }
    if (result.length === 0) return false;
    const only = result[0];
    return result.length === 1 && only !== undefined && typeof only.value === 'boolean' ? only.value : true;
  }

  /**
   * The sdc `variable` extensions in scope for `item`, as HL7 gathers them: the Questionnaire's,
   * then each enclosing item's, then the item's own, each evaluated on the response with the ones
   * before it (an inner one shadows an outer one of the same name; one that fails is left out).
   */
  private variablesFor(item: Obj, stack: readonly AnswerFrame[]): Record<string, unknown[]> {
    const variables: Record<string, unknown[]> = {};
    const fhirpath = this.fhirpath;
    if (!fhirpath) return variables;
    for (const owner of [this.index.questionnaire, ...stack.map((f) => f.q), item]) {
      for (const ext of objects(owner.extension)) {
        const expr = ext.url === VARIABLE_EXT ? ext.valueExpression : undefined;
        if (!isObject(expr) || typeof expr.name !== 'string' || typeof expr.expression !== 'string' || expr.language !== 'text/fhirpath') continue;
        const result = fhirpath.select(expr.expression, 'QuestionnaireResponse', this.response, { resource: this.response, rootResource: this.response, variables: { ...variables } });
        if (Array.isArray(result)) variables[expr.name] = result.map((r) => r.value);
        else {
          if (result.tooCostly) this.tooCostly?.(expr.expression);
          delete variables[expr.name];
        }
      }
    }
    return variables;
  }

  private condition(condition: Obj, item: Obj, stack: readonly AnswerFrame[]): boolean {
    const answers = typeof condition.question === 'string' ? this.answersTo(condition.question, item, stack) : NO_ANSWERS;
    const expected = choiceValue(Object.fromEntries(Object.entries(condition).filter(([k]) => k.startsWith('answer')).map(([k, v]) => ['value' + k.slice(6), v])));
    if (condition.operator === 'exists') {
      // exists needs answerBoolean: anything else counts as "exists = true"
      const wanted = expected?.suffix === 'Boolean' ? expected.value !== false : true;
      return wanted === answers.children > 0;
    }
    if (!expected) return false;
    return answers.values.some((actual) => compareAnswer(actual, expected, String(condition.operator)));
  }

  /** The answers to `question` where the enableWhen of `item` looks for them. */
  private answersTo(question: string, item: Obj, stack: readonly AnswerFrame[]): Answers {
    const target = this.index.find(question);
    if (!target) return NO_ANSWERS;
    const group = this.index.commonGroup(item, target.item);
    if (!group) return this.answersOn(this.response, question);
    const frame = stack.findLast((f) => f.q === group);
    return frame ? this.answersOn(frame.a, question) : NO_ANSWERS;
  }

  private answersOn(focus: Obj, question: string): Answers {
    let byLinkId = this.answersByFocus.get(focus);
    if (!byLinkId) {
      byLinkId = answersBelow(focus);
      this.answersByFocus.set(focus, byLinkId);
    }
    return byLinkId.get(question) ?? NO_ANSWERS;
  }
}

/**
 * Every answer value at or below `focus` (items, and items inside answers), by linkId: one walk
 * per focus, however many conditions look into it (a response with many conditions stays linear).
 */
function answersBelow(focus: Obj): Map<string, Answers> {
  const found = new Map<string, Answers>();
  const add = (item: Obj) => {
    if (typeof item.linkId !== 'string') return;
    const entry = found.get(item.linkId) ?? { values: [], children: 0 };
    for (const answer of objects(item.answer)) {
      const v = choiceValue(answer);
      if (v) entry.values.push(v);
      // what HL7 counts for exists: the answer's children (its value, its items, its extensions)
      entry.children += Object.keys(answer).filter((k) => !k.startsWith('_') && k !== 'id').reduce((n, k) => n + (isArray(answer[k]) ? answer[k].length : 1), 0);
    }
    found.set(item.linkId, entry);
  };
  const visit = (node: Obj) => {
    for (const child of objects(node.item)) {
      add(child);
      visit(child);
    }
    for (const answer of objects(node.answer)) visit(answer);
  };
  visit(focus);
  // the condition's question may be the item that holds the conditional one
  add(focus);
  return found;
}

function compareAnswer(actual: TypedValue, expected: TypedValue, operator: string): boolean {
  // answers of another type than the condition's never satisfy it (HL7 stops with an exception)
  if (actual.suffix !== expected.suffix) return false;
  if (expected.suffix === 'Coding') {
    if (!isObject(actual.value) || !isObject(expected.value)) return false;
    const same = sameCoding(expected.value, actual.value);
    return operator === '=' ? same : operator === '!=' ? !same : false;
  }
  let order: number | undefined;
  if (expected.suffix === 'Quantity') {
    const a = isObject(actual.value) ? actual.value.value : undefined;
    const e = isObject(expected.value) ? expected.value.value : undefined;
    order = typeof a === 'number' && typeof e === 'number' ? Math.sign(a - e) : undefined;
  } else {
    order = comparePrimitive(actual.suffix, actual.value, expected.value);
  }
  if (order === undefined) return false;
  switch (operator) {
    case '=': return order === 0;
    case '!=': return order !== 0;
    case '>': return order > 0;
    case '<': return order < 0;
    case '>=': return order >= 0;
    case '<=': return order <= 0;
    default: return false;
  }
}

function sameCoding(expected: Obj, actual: Obj): boolean {
  if (expected.system !== undefined && expected.system !== actual.system) return false;
  if ((expected.code === undefined) !== (actual.code === undefined)) return false;
  return expected.code === actual.code;
}

function comparePrimitive(suffix: string, a: unknown, e: unknown): number | undefined {
  if (typeof a === 'number' && typeof e === 'number') return Math.sign(a - e);
  if (typeof a === 'boolean' && typeof e === 'boolean') return a === e ? 0 : a ? 1 : -1;
  if (typeof a !== 'string' || typeof e !== 'string') return undefined;
  if (suffix === 'Date' || suffix === 'DateTime') {
    const ta = instantOf(a);
    const te = instantOf(e);
    if (ta !== undefined && te !== undefined) return Math.sign(ta - te);
  }
  return a < e ? -1 : a > e ? 1 : 0;
}
