/**
 * The HL7 validator's rules on a Questionnaire itself: each enableWhen names a question
 * (not one inside the item, not the item itself, one that exists, preferably one that comes
 * before it), and each derivedFrom with a derivationType of `extends` or `compliesWith` is
 * honoured item by item (an item compliesWith needs in its base, type unchanged, repeats and
 * required not relaxed, maxLength not longer, answerOptions only from the base's, no switch between
 * answerOption and answerValueSet). The binding-parameter rules on answerValueSet
 * (R5 value set parameters) and the hints on changed definitions are not implemented.
 */
import type { NodeContext } from '../../context/node-context.js';
import { isArray, isObject } from '../../json/json-value.js';
import { choiceValue, objects, QuestionnaireIndex, type Obj } from './questionnaire-model.js';

const DERIVATION_SYSTEM = 'http://hl7.org/fhir/questionnaire-derivationType';
const DERIVATION_EXT = 'http://hl7.org/fhir/StructureDefinition/questionnaire-derivationType';

interface Derivation {
  base: QuestionnaireIndex;
  url: string;
  mode: 'extends' | 'compliesWith';
}

/** The Questionnaire's items by linkId and in document order, as its enableWhen checks look them up. */
interface ItemLookup {
  readonly index: QuestionnaireIndex;
  readonly order: Map<Obj, number>;
}

export function checkQuestionnaire(ctx: NodeContext, q: Obj): void {
  const derivations = derivationsOf(ctx, q);
  const index = new QuestionnaireIndex(q);
  const order = new Map<Obj, number>();
  const lookup: ItemLookup = { index, order };
  const walk = (items: Obj[], path: string, ancestors: Obj[]) => {
    items.forEach((item, i) => {
      const itemPath = `${path}.item[${i}]`;
      checkEnableWhen(ctx, lookup, item, itemPath, ancestors);
      for (const d of derivations) checkDerivedItem(ctx, d, item, itemPath);
      walk(objects(item.item), itemPath, [...ancestors, item]);
    });
  };
  // document order first, so "comes after" can be decided for any pair
  const number = (items: Obj[]) => items.forEach((item) => {
    order.set(item, order.size);
    number(objects(item.item));
  });
  number(objects(q.item));
  walk(objects(q.item), ctx.path, []);
}

function checkEnableWhen(ctx: NodeContext, lookup: ItemLookup, item: Obj, itemPath: string, ancestors: Obj[]): void {
  const { index, order } = lookup;
  const at = ctx.pos(item);
  let inner: QuestionnaireIndex | undefined;
  for (const condition of objects(item.enableWhen)) {
    const question = condition.question;
    if (typeof question !== 'string') {
      ctx.error('Q_ENABLEWHEN_NO_QUESTION', [], itemPath, at);
      continue;
    }
    inner ??= new QuestionnaireIndex(item);
    if (inner.find(question)) {
      ctx.error('Q_ENABLEWHEN_INNER', [], itemPath, at);
      continue;
    }
    const target = index.find(question)?.item;
    if (!target) ctx.error('Q_ENABLEWHEN_NO_TARGET', [question, item.linkId], itemPath, at);
    else if (target === item) ctx.error('Q_ENABLEWHEN_SELF', [], itemPath, at);
    else if (!ancestors.includes(target) && (order.get(target) ?? 0) > (order.get(item) ?? 0)) ctx.warning('Q_ENABLEWHEN_AFTER', [question], itemPath, at);
  }
}

/** The Questionnaires this one derives from, with the derivation the extension names. */
function derivationsOf(ctx: NodeContext, q: Obj): Derivation[] {
  const found: Derivation[] = [];
  const urls = isArray(q.derivedFrom) ? q.derivedFrom : [];
  const extras = isArray(q._derivedFrom) ? q._derivedFrom : [];
  urls.forEach((url, i) => {
    if (typeof url !== 'string') return;
    const path = `${ctx.path}.derivedFrom[${i}]`;
    const base = ctx.services.resolveCanonical('Questionnaire', url);
    if (!base) {
      ctx.warning('Q_DERIVATION_UNKNOWN', [url], path, undefined);
      return;
    }
    const extra = extras[i];
    const extList = isObject(extra) ? objects(extra.extension) : [];
    const k = extList.findIndex((e) => e.url === DERIVATION_EXT);
    const derivation = extList[k];
    if (derivation === undefined) {
      ctx.warning('Q_DERIVATION_NO_TYPE', [url], path, undefined);
      return;
    }
    const coding = derivation.valueCoding;
    if (!isObject(coding)) {
      ctx.warning('Q_DERIVATION_NO_TYPE_VALUE', [], `${path}.extension[${k}]`, undefined);
      return;
    }
    const code = `${String(coding.system)}#${String(coding.code)}`;
    if (coding.system === DERIVATION_SYSTEM && (coding.code === 'extends' || coding.code === 'compliesWith')) found.push({ base: new QuestionnaireIndex(base), url, mode: coding.code });
    else if (coding.system === DERIVATION_SYSTEM && coding.code === 'inspiredBy') ctx.information('Q_DERIVATION_TYPE_IGNORED', [code], `${path}.extension[${k}].value.ofType(Coding)`, undefined);
    else ctx.warning('Q_DERIVATION_TYPE_UNKNOWN', [code], `${path}.extension[${k}].value.ofType(Coding)`, undefined);
  });
  return found;
}

function checkDerivedItem(ctx: NodeContext, d: Derivation, item: Obj, itemPath: string): void {
  const linkId = item.linkId;
  const base = typeof linkId === 'string' ? d.base.find(linkId)?.item : undefined;
  if (!base) {
    // an extension may add items; a questionnaire that complies with another may not
    if (d.mode === 'compliesWith') ctx.error('Q_DERIVED_ITEM_MISSING', [d.url, linkId], itemPath, ctx.pos(item));
    return;
  }
  if (typeof base.type === 'string' && typeof item.type === 'string' && base.type !== item.type) ctx.error('Q_DERIVED_TYPE_CHANGED', [d.url, linkId, base.type, item.type], `${itemPath}.type`, undefined);
  if (base.repeats !== true && item.repeats === true) ctx.error('Q_DERIVED_REPEATS_CHANGED', [d.url, linkId], `${itemPath}.repeats`, undefined);
  if (base.required === true && item.required !== undefined && item.required !== true) ctx.error('Q_DERIVED_REQUIRED_CHANGED', [d.url, linkId], `${itemPath}.required`, undefined);
  if (typeof base.maxLength === 'number') {
    if (typeof item.maxLength !== 'number') ctx.error('Q_DERIVED_MAXLENGTH_CHANGED', [d.url, linkId, base.maxLength], itemPath, ctx.pos(item));
    else if (item.maxLength > base.maxLength) ctx.error('Q_DERIVED_MAXLENGTH_CHANGED', [d.url, linkId, base.maxLength], `${itemPath}.maxLength`, undefined);
  }
  checkDerivedOptions(ctx, d, base, item, itemPath);
}

/** answerOptions stay options (from the base's) and an answerValueSet stays a value set. */
function checkDerivedOptions(ctx: NodeContext, d: Derivation, base: Obj, item: Obj, itemPath: string): void {
  const at = ctx.pos(item);
  const baseOptions = objects(base.answerOption);
  if (baseOptions.length > 0) {
    if (item.answerValueSet !== undefined) {
      ctx.error('Q_DERIVED_ANSWER_KIND_CHANGED', [d.url, item.linkId, 'Option', 'ValueSet'], itemPath, at);
      return;
    }
    const options = objects(item.answerOption);
    if (options.length === 0) {
      ctx.error('Q_DERIVED_NO_ANSWER_OPTIONS', [d.url, item.linkId, baseOptions.length], itemPath, at);
      return;
    }
    options.forEach((option, i) => {
      const v = choiceValue(option);
      if (v && !baseOptions.some((b) => sameOption(choiceValue(b), v))) ctx.error('Q_DERIVED_NEW_ANSWER_OPTION', [d.url, item.linkId], `${itemPath}.answerOption[${i}]`, ctx.pos(option));
    });
  } else if (typeof base.answerValueSet === 'string' && item.answerOption !== undefined) {
    ctx.error('Q_DERIVED_ANSWER_KIND_CHANGED', [d.url, item.linkId, 'ValueSet', 'Option'], itemPath, at);
  }
}

function sameOption(a: { suffix: string; value: unknown } | undefined, b: { suffix: string; value: unknown }): boolean {
  if (!a || a.suffix !== b.suffix) return false;
  if (isObject(a.value) && isObject(b.value)) {
    if (b.suffix === 'Reference') return a.value.reference === b.value.reference;
    return a.value.system === b.value.system && a.value.code === b.value.code && (a.value.version === undefined || b.value.version === undefined || a.value.version === b.value.version);
  }
  return a.value === b.value;
}
