/**
 * One JSON object against an element's children: each property is sorted onto its child
 * element (choice names by type, `_x` companions with their value), unknown properties are
 * reported, then every child is checked (cardinality, slices, values) and finally the
 * element's own invariants.
 */
import type { NodeContext } from '../context/node-context.js';
import { PRIMITIVE_TYPES, type ChildIndex, type ElementPlan, type JsonProperty } from '../plan/structure-plan.js';
import { checkConstraints } from '../rules/constraints.js';
import { reportRequiredSlices } from '../rules/slicing.js';
import { cardinalityLabel, walkProperty } from './property-walker.js';

/**
 * Walks `obj` (at ctx.path) against `children`, the children of ctx.element (its own, or its
 * type's when ctx.plan is the datatype's structure).
 */
export function walkObject(ctx: NodeContext, obj: Record<string, unknown>, children: ChildIndex, ownConstraints = true): void {
  const maxDepth = ctx.run.options.maxDepth;
  if (ctx.depth > maxDepth) {
    ctx.node.report('fatal', 'NESTING_TOO_DEEP', [maxDepth]);
    return;
  }
  // (the location is made only for a report, through the node)
  const { element: el, plan, mode, node } = ctx;
  const isResourceRoot = el === plan.root && plan.kind === 'resource';
  // 1. sort the properties onto their elements
  let groups: Map<ElementPlan, JsonProperty[]> | undefined;
  let presentInvalid: Set<ElementPlan> | undefined;
  let empty = true;
  for (const key in obj) {
    empty = false;
    if (key === 'resourceType' && isResourceRoot) continue;
    let lookupKey = key;
    if (key.charCodeAt(0) === 95 /* _ */) {
      lookupKey = key.slice(1);
      if (lookupKey in obj) continue; // handled with its value
    }
    const hit = children.byJsonName.get(lookupKey);
    if (!hit) {
      const choice = unknownProperty(ctx, obj, key, lookupKey, children);
      if (choice) (presentInvalid ??= new Set()).add(choice);
      continue;
    }
    if (key !== lookupKey && !(hit.type ? PRIMITIVE_TYPES.has(hit.type) : PRIMITIVE_TYPES.has(hit.element.types[0]?.code ?? ''))) {
      if (mode === 'structural') ctx.report('error', 'UNRECOGNISED_PROPERTY', [key], node.path, node.child(key)?.at);
      continue;
    }
    groups ??= new Map();
    let g = groups.get(hit.element);
    if (!g) groups.set(hit.element, (g = []));
    g.push(hit);
  }
  // as the HL7 JSON parser: every object (a value, a `_x` companion) must have some property
  // (the XML reader reports an empty element in its own words)
  if (empty && mode === 'structural' && ctx.run.sourceFormat === 'json') node.error('OBJECT_MUST_HAVE_SOME_CONTENT', []);
  // 2. every child element: cardinality, slicing, values
  for (const child of children.list) {
    const g = groups?.get(child);
    if (!g) {
      if (presentInvalid?.has(child)) continue;
      if (child.min > 0) node.error('CARDINALITY_MIN', [cardinalityLabel(child), child.min, 0, plan.label]);
      if (child.slicing && child.slices.length > 0) reportRequiredSlices(ctx, child, node.path, node.at);
      continue;
    }
    if (g.length > 1 && mode === 'structural') {
      node.error('CHOICE_MULTIPLE', [child.name + '[x]', g.map((x) => x.jsonName).join(', ')]);
    }
    for (const property of g) walkProperty(ctx, obj, property, child);
  }
  // 3. invariants of the element itself (not on a primitive's `_x` companion: they hold for the
  // primitive, value and companion together, and are checked on it)
  if (ownConstraints && el.constraints.length) checkConstraints(ctx, el, obj);
}

/** Reports an unknown property; returns the choice element when it is a choice with a type not allowed. */
function unknownProperty(ctx: NodeContext, obj: Record<string, unknown>, key: string, lookupKey: string, children: ChildIndex): ElementPlan | undefined {
  const { plan, path } = ctx;
  const plans = ctx.services.plans;
  // where the unknown property's value is
  const at = ctx.node.child(key)?.at;
  for (const c of children.choices) {
    if (lookupKey.length > c.name.length && lookupKey.startsWith(c.name) && lookupKey.charCodeAt(c.name.length) >= 65 && lookupKey.charCodeAt(c.name.length) <= 90) {
      const typeName = lookupKey.slice(c.name.length);
      const lower = typeName.charAt(0).toLowerCase() + typeName.slice(1);
      const type = PRIMITIVE_TYPES.has(lower) ? lower : typeName;
      if (plans.typePlan(type) && plan.type === 'Extension' && c.path === 'Extension.value[x]') {
        // HL7 checkExtension (EXTENSION_EXT_TYPE) reports it on the extension itself; a definition that
        // allows no type at all is a complex extension, and the message says so rather than list `[]`
        if (c.types.length === 0 || c.max === 0) ctx.report('error', 'EXTENSION_EXT_COMPLEX_VALUE', [plan.url, type], path, at);
        else ctx.report('error', 'EXTENSION_VALUE_TYPE', [plan.url, c.types.map((t) => t.code).join(', '), type], path, at);
      } else if (plans.typePlan(type) && c.types.length === 1) {
        ctx.report('error', 'CHOICE_TYPE_NOT_ALLOWED', [plan.label, c.types.map((t) => t.code).join(', '), type], `${path}.${c.name}.ofType(${type})`, at);
      } else {
        ctx.report('error', 'CHOICE_TYPE_UNKNOWN', [key, c.types.map((t) => t.code).join(', ')], path, at);
      }
      return c;
    }
  }
  if (ctx.mode !== 'structural') return undefined;
  // inside the `_x` companion of a primitive the HL7 wording differs
  const el = ctx.element;
  const inCompanion = PRIMITIVE_TYPES.has(el.types[0]?.code ?? '') && el !== plan.root;
  ctx.report('error', inCompanion ? 'PRIMITIVE_PROPERTY_INVALID' : 'UNRECOGNISED_PROPERTY', [key], path, at);
  return undefined;
}
