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
import type { JsonNode } from '../../json/json-node.js';
import { isObject } from '../../json/json-value.js';
import type { MessageId } from '../../messages.js';
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

export function checkQuestionnaire(ctx: NodeContext, resource: Obj): void {
  const q = ctx.nodeOf(resource);
  const derivations = derivationsOf(ctx, q);
  const index = new QuestionnaireIndex(resource);
  const order = new Map<Obj, number>();
  const lookup: ItemLookup = { index, order };
  const walk = (holder: JsonNode, ancestors: Obj[]) => {
    for (const item of holder.listedObjects('item')) {
      const json = item.object;
      if (json === undefined) continue;
      checkEnableWhen(lookup, item, json, ancestors);
      for (const d of derivations) checkDerivedItem(d, item, json);
      walk(item, [...ancestors, json]);
    }
  };
  // document order first, so "comes after" can be decided for any pair
  const number = (items: Obj[]) => {
    items.forEach((item) => {
      order.set(item, order.size);
      number(objects(item.item));
    });
  };
  number(objects(resource.item));
  walk(q, []);
}

function checkEnableWhen(lookup: ItemLookup, item: JsonNode, json: Obj, ancestors: Obj[]): void {
  const { index, order } = lookup;
  let inner: QuestionnaireIndex | undefined;
  for (const condition of objects(json.enableWhen)) {
    const question = condition.question;
    if (typeof question !== 'string') {
      item.error('Q_ENABLEWHEN_NO_QUESTION', []);
      continue;
    }
    inner ??= new QuestionnaireIndex(json);
    if (inner.find(question)) {
      item.error('Q_ENABLEWHEN_INNER', []);
      continue;
    }
    const target = index.find(question)?.item;
    if (!target) item.error('Q_ENABLEWHEN_NO_TARGET', [question, json.linkId]);
    else if (target === json) item.error('Q_ENABLEWHEN_SELF', []);
    else if (!ancestors.includes(target) && (order.get(target) ?? 0) > (order.get(json) ?? 0)) item.warning('Q_ENABLEWHEN_AFTER', [question]);
  }
}

/**
 * The Questionnaires this one derives from, with the derivation the extension names. The
 * extension sits on the url (`_derivedFrom`), and is named from it, as HL7 names it
 * (`derivedFrom[0].extension[0]`).
 */
function derivationsOf(ctx: NodeContext, q: JsonNode): Derivation[] {
  const found: Derivation[] = [];
  const extras = q.listed('_derivedFrom');
  q.listed('derivedFrom').forEach((named, i) => {
    const url = named.string;
    if (url === undefined) return;
    const base = ctx.services.resolveCanonical('Questionnaire', url);
    if (!base) {
      named.warning('Q_DERIVATION_UNKNOWN', [url]);
      return;
    }
    const extra = extras[i];
    const derivation = extra?.listedObjects('extension').find((e) => e.str('url') === DERIVATION_EXT);
    if (extra === undefined || derivation === undefined) {
      named.warning('Q_DERIVATION_NO_TYPE', [url]);
      return;
    }
    const codingNode = derivation.child('valueCoding', 'value.ofType(Coding)');
    const coding = codingNode?.object;
    if (codingNode === undefined || coding === undefined) {
      ctx.warning('Q_DERIVATION_NO_TYPE_VALUE', [], derivation.locationUnder(extra, named.path), derivation.at);
      return;
    }
    const code = `${String(coding.system)}#${String(coding.code)}`;
    const location = codingNode.locationUnder(extra, named.path);
    if (coding.system === DERIVATION_SYSTEM && (coding.code === 'extends' || coding.code === 'compliesWith')) found.push({ base: new QuestionnaireIndex(base), url, mode: coding.code });
    else if (coding.system === DERIVATION_SYSTEM && coding.code === 'inspiredBy') ctx.information('Q_DERIVATION_TYPE_IGNORED', [code], location, codingNode.at);
    else ctx.warning('Q_DERIVATION_TYPE_UNKNOWN', [code], location, codingNode.at);
  });
  return found;
}

function checkDerivedItem(d: Derivation, item: JsonNode, json: Obj): void {
  const linkId = json.linkId;
  const base = typeof linkId === 'string' ? d.base.find(linkId)?.item : undefined;
  if (!base) {
    // an extension may add items; a questionnaire that complies with another may not
    if (d.mode === 'compliesWith') item.error('Q_DERIVED_ITEM_MISSING', [d.url, linkId]);
    return;
  }
  // reported at the element that changed
  const changed = (name: string, id: MessageId, args: readonly unknown[]) => {
    item.child(name)?.error(id, args);
  };
  if (typeof base.type === 'string' && typeof json.type === 'string' && base.type !== json.type) changed('type', 'Q_DERIVED_TYPE_CHANGED', [d.url, linkId, base.type, json.type]);
  if (base.repeats !== true && json.repeats === true) changed('repeats', 'Q_DERIVED_REPEATS_CHANGED', [d.url, linkId]);
  if (base.required === true && json.required !== undefined && json.required !== true) changed('required', 'Q_DERIVED_REQUIRED_CHANGED', [d.url, linkId]);
  if (typeof base.maxLength === 'number') {
    if (typeof json.maxLength !== 'number') item.error('Q_DERIVED_MAXLENGTH_CHANGED', [d.url, linkId, base.maxLength]);
    else if (json.maxLength > base.maxLength) changed('maxLength', 'Q_DERIVED_MAXLENGTH_CHANGED', [d.url, linkId, base.maxLength]);
  }
  checkDerivedOptions(d, base, item, json);
}

/** answerOptions stay options (from the base's) and an answerValueSet stays a value set. */
function checkDerivedOptions(d: Derivation, base: Obj, item: JsonNode, json: Obj): void {
  const baseOptions = objects(base.answerOption);
  if (baseOptions.length > 0) {
    if (json.answerValueSet !== undefined) {
      item.error('Q_DERIVED_ANSWER_KIND_CHANGED', [d.url, json.linkId, 'Option', 'ValueSet']);
      return;
    }
    const options = item.listedObjects('answerOption');
    if (options.length === 0) {
      item.error('Q_DERIVED_NO_ANSWER_OPTIONS', [d.url, json.linkId, baseOptions.length]);
      return;
    }
    for (const option of options) {
      const v = choiceValue(option.object);
      if (v && !baseOptions.some((b) => sameOption(choiceValue(b), v))) option.error('Q_DERIVED_NEW_ANSWER_OPTION', [d.url, json.linkId]);
    }
  } else if (typeof base.answerValueSet === 'string' && json.answerOption !== undefined) {
    item.error('Q_DERIVED_ANSWER_KIND_CHANGED', [d.url, json.linkId, 'ValueSet', 'Option']);
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
