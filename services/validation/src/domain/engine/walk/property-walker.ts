/**
 * One JSON property (and its `_x` companion) against its element: JSON shape (array or not,
 * companion alignment), cardinality, slicing, then each item as a primitive or complex value.
 */
import type { NodeContext } from '../context/node-context.js';
import { isObject, jsonKind } from '../json/json-value.js';
import { PRIMITIVE_TYPES, type ElementPlan, type JsonProperty } from '../plan/structure-plan.js';
import { resolveExtension } from '../rules/extensions.js';
import { checkPrimitive } from '../rules/primitive-values.js';
import { assignSlices } from '../rules/slicing.js';
import { walkComplexValue } from './value-walker.js';

/**
 * The property `property` of `obj` (ctx stands at obj) against its element `el`; a choice
 * property's name selects its type (`valueQuantity` → Quantity).
 */
export function walkProperty(ctx: NodeContext, obj: Record<string, unknown>, property: JsonProperty, el: ElementPlan): void {
  const { mode, plan, node } = ctx;
  const { jsonName: key, type: choiceType, pathName } = property;
  // the property and its companion, both named as FHIRPath names the element (a choice by its type)
  const rawNode = node.child(key, pathName);
  const companionNode = node.child(property.companionKey, pathName);
  // the items stand in the value, or in the companion when only it is given
  const itemsOf = rawNode ?? companionNode;
  if (itemsOf === undefined) return;
  const raw = rawNode?.value;
  const companion = companionNode?.value;
  const type = choiceType ?? el.types[0]?.code;
  const isPrimitive = type !== undefined && PRIMITIVE_TYPES.has(type);
  const repeating = el.baseMax > 1;
  let effective = el;
  if (el.isChoice && el.slices.length > 0 && choiceType) {
    // type slicing of a choice: the slice for this type (a slice with max 0 matches nothing)
    const typed = el.slices.find((s) => s.max > 0 && ((s.types.length === 1 && s.types[0]?.code === choiceType) || s.sliceName === key));
    if (typed) effective = typed;
    else if (el.slicing?.rules === 'closed') {
      ctx.report('error', 'SLICE_UNMATCHED_CLOSED', [plan.label, `${itemsOf.path}: Does not match any slice`], itemsOf.path, itemsOf.at);
    }
    // the other type slices get no item: those that need one are missing (HL7 counts each slice)
    for (const s of el.slices) {
      if (s !== typed && s.min > 0) node.error(el.slicing?.rules === 'closed' ? 'SLICE_REQUIRED_CLOSED' : 'SLICE_REQUIRED_OPEN', [s.id, plan.label]);
    }
  }
  // JSON shape, as the HL7 JSON parser reads it: a value of the wrong shape is reported once
  // and not read (a primitive list with a non-array value or companion is not read at all);
  // values and `_x` companion items pair up by index, with no rule on the two lengths.
  let values: unknown[];
  let companions: unknown[] | undefined;
  let valuesAreArray = false;
  const structural = mode === 'structural';
  if (raw === undefined) {
    values = Array.isArray(companion) ? companion.map(() => undefined) : [undefined];
  } else if (Array.isArray(raw)) {
    if (!repeating && ctx.run.sourceFormat === 'xml') {
      // XML has no arrays: a non-repeating element written more than once is read as a list
      // (the XML reader's), and the cardinality check counts it as the HL7 validator does
      values = raw;
      companions = Array.isArray(companion) ? companion : undefined;
    } else if (!repeating) {
      if (structural) ctx.report('error', 'JSON_PROPERTY_VALUE_NOT_ARRAY', [isPrimitive ? 'a primitive' : 'an Object', `${node.path}.${key}`], itemsOf.path, rawNode?.at);
      values = [];
    } else {
      valuesAreArray = true;
      values = raw;
      // an empty list of primitives is simply no values
      if (raw.length === 0 && !isPrimitive && structural) ctx.report('error', 'ARRAY_CANNOT_BE_EMPTY', [], itemsOf.path, rawNode?.at);
    }
  } else {
    values = [raw];
    if (repeating) {
      if (structural) ctx.report('error', 'JSON_PROPERTY_NO_ARRAY', [key, jsonKind(raw), node.path], itemsOf.path, rawNode?.at);
      if (isPrimitive) values = [];
    }
  }
  if (companion !== undefined && !(companions && !repeating)) {
    if (Array.isArray(companion)) {
      companions = repeating ? companion : undefined;
    } else if (repeating && isPrimitive) {
      if (structural) ctx.report('error', 'JSON_BASE_PROPERTY_NO_ARRAY', [property.companionKey, jsonKind(companion), node.path], itemsOf.path, companionNode?.at);
      values = [];
    } else {
      companions = [companion];
    }
    if (!repeating && Array.isArray(companion) && values.length > 0) {
      // a single value's companion given as an array: reported (unless the value itself is
      // not a simple value, which is reported instead), and the value is not read
      if (raw === undefined || (raw !== null && typeof raw !== 'object')) {
        if (structural) ctx.report('error', 'JSON_PROPERTY_NOT_OBJECT', [property.companionKey, 'an Array', itemsOf.path], itemsOf.path, companionNode?.at);
        values = [];
      }
    }
  }
  if (values.length === 0 && !valuesAreArray) companions = undefined;
  const count = Math.max(values.length, companions?.length ?? 0);
  // cardinality, over the values the HL7 parser makes elements of (a null or wrong-shaped
  // value is reported where it stands and does not count)
  let present = count;
  if (count > 0 && (effective.min > 0 || count > effective.max)) {
    for (let i = 0; i < values.length; i++) if (!makesElement(values[i], isPrimitive, valuesAreArray)) present--;
    if (present < 0) present = 0;
  }
  if (present < effective.min) node.error('CARDINALITY_MIN', [cardinalityLabel(effective), effective.min, present, plan.label]);
  if (present > effective.max) node.error('CARDINALITY_MAX', [cardinalityLabel(effective), effective.max, present, plan.label]);
  // slicing
  let sliceOf: (ElementPlan | undefined)[] | undefined;
  if (effective.slicing && effective.slices.length > 0 && !effective.isChoice) {
    sliceOf = assignSlices(ctx, effective, { node: itemsOf, key, values, repeating });
  }
  // extensions resolve by url (structural walk only: profiles slice them)
  const isExtension = mode === 'structural' && (el.name === 'extension' || el.name === 'modifierExtension') && type === 'Extension';
  const run = ctx.run;
  const indexed = repeating || valuesAreArray;
  for (let i = 0; i < count; i++) {
    const v = values[i];
    const c = companions?.[i];
    const itemNode = itemsOf.item(i, indexed);
    const item = ctx.item(sliceOf?.[i] ?? effective, itemNode);
    if (isPrimitive) {
      // a primitive value written without quotes (JSON5): at the object for a single value, at the item in a list
      if (typeof v === 'string' && run.unquotedValues && mode === 'structural' && run.isUnquoted(raw, obj, key, valuesAreArray ? i : -1)) {
        ctx.report('error', 'JSON_PROPERTY_VALUE_NO_QUOTES', [valuesAreArray ? 'item' : key, v], valuesAreArray ? itemNode.path : node.path, itemNode.at);
      }
      const rawNumber = typeof v === 'number' && run.locations ? run.rawNumber(raw, obj, key, valuesAreArray ? i : -1) : undefined;
      const companionItem = companions !== undefined && companionNode !== undefined ? companionNode.item(i, indexed) : undefined;
      checkPrimitive(item, type, { value: v, companion: c, companionNode: companionItem, hasCompanion: companions !== undefined, rawNumber, inArray: valuesAreArray, owner: obj });
      continue;
    }
    if (v === null || v === undefined) {
      if (mode === 'structural') itemNode.error('JSON_PROPERTY_NOT_OBJECT', [key, v === null ? 'a Null' : 'missing', itemNode.path]);
      continue;
    }
    if (!isObject(v)) {
      if (mode === 'structural') itemNode.error('JSON_PROPERTY_NOT_OBJECT', [key, jsonKind(v), itemNode.path]);
      continue;
    }
    if (isExtension) resolveExtension(item, v, { element: ctx.element, plan: ctx.plan, container: obj, node, owner: run.companionOwners.get(obj) });
    walkComplexValue(item, v, type);
    // HL7 checks an item that matched a slice against the slice and against the sliced element
    // itself (InstanceValidator checkChildByDefinition, once per definition): what the profile
    // says of the sliced element's children holds for every slice's items too
    const slice = sliceOf?.[i];
    if (slice !== undefined && slice !== effective && effective.ownChildren !== undefined && mode === 'profile') {
      walkComplexValue(ctx.item(effective, itemNode), v, type);
    }
  }
}

/** Whether the HL7 parser makes an element of this JSON value (undefined: a value given only by its `_x` companion). */
function makesElement(v: unknown, isPrimitive: boolean, inArray: boolean): boolean {
  if (v === undefined) return true;
  if (v === null) return isPrimitive && inArray;
  return isPrimitive ? typeof v !== 'object' : !Array.isArray(v) && typeof v === 'object';
}

/**
 * How HL7 names an element in a cardinality message: by its id, so an element inside a slice is
 * told from the sliced element's (`Parameters.parameter:param1.extension`); else by its path.
 */
export function cardinalityLabel(el: ElementPlan): string {
  return el.id.includes(':') ? el.id : el.path;
}
