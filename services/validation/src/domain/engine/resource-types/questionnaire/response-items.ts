/**
 * The items of a QuestionnaireResponse against the items of its Questionnaire, level by level
 * as the HL7 validator walks them: every response item needs a linkId the level knows (one
 * found elsewhere in the Questionnaire is "in the wrong place"), items keep the Questionnaire's
 * order, only repeating items appear more than once, items that are not enabled carry no
 * answers, and required items are present and answered (a warning only while the response is
 * not completed or amended). Each item then: its text, its answers (one unless it repeats,
 * within questionnaire-minOccurs/maxOccurs, the limits included), none on groups and display
 * items, nested items
 * only under answers for questions and directly under groups.
 *
 * Locations are the HL7 validator's: rules on a level's items are reported at the level
 * (`QuestionnaireResponse`, `...item[0]`), and items nested in an answer are named after the
 * item that holds the answer (`item[0].item[1]` for `item[0].answer[0].item[1]`).
 */
import type { JsonNode } from '../../json/json-node.js';
import { checkAnswer } from './answer-values.js';
import { type AnswerFrame, EnableWhenEvaluator } from './enable-when.js';
import { EXT, extensionValue, isGroupLike, objects, type Obj } from './questionnaire-model.js';
import type { ResponseScope } from './response-scope.js';

/** A response item found at a level: its JSON, its node, and HL7's name for it. */
interface PresentItem {
  readonly item: Obj;
  readonly node: JsonNode;
  readonly name: string;
}

/** One level of Questionnaire items, with the position of each linkId (the first, as HL7 searches). */
interface DefinitionLevel {
  defs: Obj[];
  positions: Map<string, number>;
}

export class ResponseItemsWalker {
  private readonly enableWhen: EnableWhenEvaluator;
  /** Levels by their `item` array: a repeating group answered many times is indexed once. */
  private readonly levels = new WeakMap<object, DefinitionLevel>();

  constructor(private readonly scope: ResponseScope) {
    const { ctx } = scope;
    // each expression stopped at the item budget is said once, at the response
    const reported = new Set<string>();
    this.enableWhen = new EnableWhenEvaluator(scope.index, scope.response, ctx.services.invariants, (expression) => {
      if (reported.has(expression)) return;
      reported.add(expression);
      ctx.report('error', 'FHIRPATH_TOO_COSTLY', [expression, ctx.services.invariants.itemBudget], ctx.path, undefined);
    });
  }

  /** The response's items against the Questionnaire's. */
  walk(): void {
    const { node } = this.scope;
    this.walkLevel(this.scope.questionnaire.item, node, node.path, []);
  }

  private level(items: unknown): DefinitionLevel {
    const cached = typeof items === 'object' && items !== null ? this.levels.get(items) : undefined;
    if (cached) return cached;
    const defs = objects(items);
    const positions = new Map<string, number>();
    defs.forEach((d, i) => {
      if (typeof d.linkId === 'string' && !positions.has(d.linkId)) positions.set(d.linkId, i);
    });
    const level = { defs, positions };
    if (typeof items === 'object' && items !== null) this.levels.set(items, level);
    return level;
  }

  /**
   * The items of `container` (the response, an item or an answer) against the Questionnaire items
   * `defItems`; `name` is HL7's name for the container (an answer is named as its item), which the
   * level's issues are reported at and its items are named from.
   */
  private walkLevel(defItems: unknown, container: JsonNode, name: string, stack: readonly AnswerFrame[]): void {
    const { scope } = this;
    const { defs, positions } = this.level(defItems);
    const present = new Map<string, PresentItem[]>();
    let lastIndex = -1;
    // (an entry that is no object is the structural walk's error)
    for (const node of container.listedObjects('item')) {
      const item = node.object;
      if (item === undefined) continue;
      const linkId = item.linkId;
      if (typeof linkId !== 'string' || linkId === '') {
        scope.error('QR_ITEM_NO_LINKID', [], name, node);
        continue;
      }
      const defIndex = positions.get(linkId) ?? -1;
      if (defIndex < 0) {
        const elsewhere = scope.index.find(linkId);
        if (!elsewhere) {
          scope.error('QR_LINKID_NOT_FOUND', [linkId], name, node);
          continue;
        }
        scope.error('QR_ITEM_MISPLACED', [linkId], name, node);
        this.checkItem(elsewhere.item, { item, node, name: node.locationUnder(container, name) }, [...stack, { q: elsewhere.item, a: item }]);
        continue;
      }
      if (defIndex < lastIndex) scope.error('QR_ITEM_ORDER', [], name, node);
      lastIndex = defIndex;
      const list = present.get(linkId) ?? [];
      list.push({ item, node, name: node.locationUnder(container, name) });
      present.set(linkId, list);
    }
    for (const def of defs) {
      const items = typeof def.linkId === 'string' ? present.get(def.linkId) : undefined;
      const enabled = this.enableWhen.isEnabled(def, stack);
      if (!items) {
        if (enabled && def.required === true) scope.report(scope.notCompleted ? 'warning' : 'error', 'QR_ITEM_MISSING', [def.linkId], name, container);
        continue;
      }
      if (!enabled) {
        for (const { item, node, name: itemName } of items) {
          if (objects(item.answer).length > 0 || objects(item.item).length > 0) scope.error('QR_ITEM_NOT_ENABLED', [def.linkId], itemName, node);
        }
      }
      const second = items[1];
      if (second !== undefined && def.repeats !== true) scope.error('QR_ITEM_ONLY_ONE_ITEM', [def.linkId], name, second.node);
      for (const present of items) this.checkItem(def, present, [...stack, { q: def, a: present.item }]);
    }
  }

  /** One response item against its definition; `stack` ends with this item. */
  private checkItem(def: Obj, present: PresentItem, stack: readonly AnswerFrame[]): void {
    const { scope } = this;
    const { item, node, name: itemPath } = present;
    const type = def.type;
    if (typeof item.text === 'string' && item.text !== '' && item.text !== def.text) scope.error('QR_ITEM_TEXT', [def.linkId], itemPath, node);
    const answers = node.listedObjects('answer');
    const answered = answers.length > 0 || def.required !== true || isGroupLike(type);
    if (!answered) {
      if (scope.notCompleted) scope.report('warning', 'QR_ITEM_MISSING', [def.linkId], itemPath, node);
      else if (this.enableWhen.isEnabled(def, stack)) scope.error('QR_ITEM_MISSING', [def.linkId], itemPath, node);
    }
    if (answers.length > 1 && def.repeats !== true) scope.error('QR_ITEM_ONLY_ONE', [], itemPath, answers[1]);
    // The limits are allowed counts, as the extensions define them. (The HL7 validator's code passes
    // only counts strictly inside them; we keep the extensions' meaning: a response with exactly
    // minOccurs answers is valid.)
    const maxOccurs = occursLimit(def, EXT.maxOccurs);
    if (maxOccurs >= 0 && answers.length > maxOccurs) scope.error('QR_MAX_OCCURS', [maxOccurs, answers.length], itemPath, node);
    const minOccurs = occursLimit(def, EXT.minOccurs);
    if (minOccurs >= 0 && answers.length < minOccurs) scope.error('QR_MIN_OCCURS', [minOccurs, answers.length], itemPath, node);
    for (const answerNode of answers) {
      const answer = answerNode.object;
      if (answer === undefined) continue;
      // R4 has no answers on groups (and the abstract `question`): HL7 words both as "question"
      if (isGroupLike(type)) scope.error('QR_NO_ANSWERS_ALLOWED', ['question'], itemPath, answerNode);
      else if (type === 'display') scope.error('QR_DISPLAY_NO_ANSWERS', [], itemPath, answerNode);
      else checkAnswer({ scope, def, answer, node: answerNode, answerPath: answerNode.locationUnder(node, itemPath), count: answers.length });
      // a group's answers are an error already; their items are not looked at
      if (!isGroupLike(type)) this.walkLevel(def.item, answerNode, itemPath, stack);
    }
    const children = objects(item.item);
    if (typeof type !== 'string') scope.report('fatal', 'QR_ITEM_NO_TYPE', [def.linkId], itemPath, node);
    else if (type === 'display') {
      if (children.length > 0) scope.error('QR_DISPLAY_ITEMS', [def.linkId], itemPath, node);
    } else if (!isGroupLike(type)) {
      if (children.length > 0) scope.error('QR_ITEMS_OUTSIDE_ANSWERS', [def.linkId], itemPath, node);
    } else {
      if (def.required === true && children.length === 0) scope.error('QR_GROUP_REQUIRED', [], itemPath, node);
      this.walkLevel(def.item, node, itemPath, stack);
    }
  }
}

/** An extension's value as HL7's readIntegerExtension reads it (a decimal truncated); -1 when absent or no number. */
function occursLimit(def: Obj, url: string): number {
  const v = extensionValue(def, url);
  return typeof v === 'number' ? Math.trunc(v) : -1;
}
