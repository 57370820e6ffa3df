/**
 * Slicing: assigns the items of a sliced element to its slices by discriminator (value,
 * pattern, exists, type, profile; re-slicing recursively), and reports order, closed and
 * open-at-end rules and each slice's cardinality.
 */
import { evaluateDiscriminatorPath } from '../checks/discriminator-path.js';
import { deepEqual, matchesPattern } from '../checks/values.js';
import { NodeContext } from '../context/node-context.js';
import { JsonNode } from '../json/json-node.js';
import { isArray, isObject } from '../json/json-value.js';
import type { Position } from '../json/located-json.js';
import { PRIMITIVE_TYPES, type ChildIndex, type ElementPlan } from '../plan/structure-plan.js';

type Discriminator = { type: string; path: string };

/** The items of one property and where they are. */
export interface SlicedProperty {
  /** The property (`Patient.identifier`): its items are `[i]` on it when it repeats. */
  node: JsonNode;
  /** The property's JSON name. */
  key: string;
  values: unknown[];
  repeating: boolean;
}

/**
 * The slice each item belongs to (undefined: none), for the sliced element `el`. ctx stands
 * at the object holding the property. `indexes` are the items' indexes in the property when
 * re-slicing a subset.
 */
export function assignSlices(ctx: NodeContext, el: ElementPlan, property: SlicedProperty, indexes?: number[]): (ElementPlan | undefined)[] {
  const { node, key, values, repeating } = property;
  const parentPath = ctx.path;
  const label = ctx.plan.label;
  const result: (ElementPlan | undefined)[] = new Array<ElementPlan | undefined>(values.length);
  const slicing = el.slicing;
  if (!slicing) return result;
  const counts = new Map<ElementPlan, number>();
  // ordered slicing: each item's slice comes no earlier than the previous item's (an item in no slice resets)
  let previousSlice = -1;
  // as HL7, an item is tried against every slice and matching two is an error; with profile
  // discriminators (a silent validation per slice) the first match is kept without looking further
  const tryAll = !slicing.discriminators.some((d) => d.type === 'profile');
  const slices = el.slices;
  for (let k = 0; k < values.length; k++) {
    const i = indexes?.[k] ?? k;
    const v = values[k];
    const item = node.item(i, repeating);
    const itemPath = item.path;
    let matched: ElementPlan | undefined;
    let s = 0;
    for (; s < slices.length; s++) {
      const slice = slices[s];
      if (slice && matchesSlice(ctx, v, slice, slicing.discriminators)) {
        matched = slice;
        if (slicing.ordered && s < previousSlice) item.error('SLICE_ORDER', [label, key]);
        previousSlice = s;
        break;
      }
    }
    if (matched && tryAll) {
      for (let t = s + 1; t < slices.length; t++) {
        const other = slices[t];
        if (other && matchesSlice(ctx, v, other, slicing.discriminators)) item.error('SLICE_MATCH_MULTIPLE', [label, matched.sliceName, other.sliceName]);
      }
    }
    result[k] = matched;
    if (matched) counts.set(matched, (counts.get(matched) ?? 0) + 1);
    else {
      // (openAtEnd: HL7 treats it as open, items in no slice anywhere are only a hint)
      previousSlice = -1;
      if (slicing.rules === 'closed') item.error('SLICE_UNMATCHED_CLOSED', [label, `${itemPath}: Does not match any slice`]);
      // as the HL7 validator: a hint, so that category rules can see it
      else if (!indexes) item.information('SLICE_UNMATCHED_OPEN', [label]);
    }
  }
  for (const slice of el.slices) {
    const n = counts.get(slice) ?? 0;
    if (n < slice.min) {
      ctx.report('error', slicing.rules === 'closed' ? 'SLICE_REQUIRED_CLOSED' : 'SLICE_REQUIRED_OPEN', [slice.id, label], parentPath, ctx.at);
    }
    if (n > slice.max) ctx.report('error', 'CARDINALITY_MAX', [slice.id, slice.max, n, label], parentPath, ctx.at);
    // a slice with no items: its re-slices that need items have none either (HL7 counts each re-slice)
    if (n === 0 && slice.slicing) reportRequiredSlices(ctx, slice, parentPath, ctx.at);
    // re-slicing: the items of a slice that is itself sliced are assigned to its slices
    if (n > 0 && slice.slicing && slice.slices.length > 0) {
      const subValues: unknown[] = [];
      const subIndexes: number[] = [];
      const positions: number[] = [];
      for (let k = 0; k < values.length; k++) {
        if (result[k] === slice) {
          subValues.push(values[k]);
          subIndexes.push(indexes?.[k] ?? k);
          positions.push(k);
        }
      }
      const sub = assignSlices(ctx, slice, { node, key, values: subValues, repeating }, subIndexes);
      sub.forEach((target, j) => {
        const position = positions[j];
        if (target && position !== undefined) result[position] = target;
      });
    }
  }
  return result;
}

/** The slices (and re-slices) of `el` that need items, when the property has none (at ctx, the object holding it). */
export function reportRequiredSlices(ctx: NodeContext, el: ElementPlan, path: string, at: Position | undefined): void {
  const closed = el.slicing?.rules === 'closed';
  for (const slice of el.slices) {
    if (slice.min > 0) ctx.report('error', closed ? 'SLICE_REQUIRED_CLOSED' : 'SLICE_REQUIRED_OPEN', [slice.id, ctx.plan.label], path, at);
    if (slice.slicing && slice.slices.length > 0) reportRequiredSlices(ctx, slice, path, at);
  }
}

/** Does the value match the slice on every discriminator (and is it constrained by at least one)? */
function matchesSlice(ctx: NodeContext, v: unknown, slice: ElementPlan, discriminators: Discriminator[]): boolean {
  if (discriminators.length === 0) return false;
  let constrained = 0;
  for (const d of discriminators) {
    const m = matchesDiscriminator(ctx, v, slice, d);
    if (m === false) return false;
    if (m === true) constrained++;
  }
  // a slice that fixes none of the discriminators matches nothing
  return constrained > 0;
}

/** true / false, or 'unconstrained' when the slice fixes no value for this discriminator. */
function matchesDiscriminator(ctx: NodeContext, v: unknown, slice: ElementPlan, d: Discriminator): boolean | 'unconstrained' {
  const sub = sliceSubElement(ctx, slice, d.path);
  // whatever the discriminator type, a slice that prohibits the element (max 0) takes the items without it
  if (sub && sub.max === 0) return evaluateDiscriminatorPath(v, d.path, ctx.host).length === 0;
  if (d.type === 'type') return matchesType(ctx, v, sub, d.path);
  const actual = evaluateDiscriminatorPath(v, d.path, ctx.host);
  switch (d.type) {
    case 'value':
    case 'pattern': {
      let expected = sub?.fixed ?? sub?.pattern;
      if (expected === undefined && d.path === 'url' && slice.types[0]?.profiles[0]) expected = slice.types[0].profiles[0];
      const terminology = ctx.services.terminology;
      const requiredValueSet = sub?.binding?.strength === 'required' ? sub.binding.valueSet : undefined;
      if (expected === undefined && requiredValueSet && terminology.isMemberOf) {
        for (const a of actual) {
          if (typeof a === 'string') {
            if (terminology.isMemberOf({ code: a }, requiredValueSet) === true) return true;
          } else if (isObject(a) && isArray(a.coding)) {
            // a CodeableConcept: one of its codings in the value set
            for (const c of a.coding) if (isObject(c) && terminology.isMemberOf(c, requiredValueSet) === true) return true;
          } else if (isObject(a) && terminology.isMemberOf(a, requiredValueSet) === true) {
            return true; // a Coding
          }
        }
        return false;
      }
      if (expected === undefined) return 'unconstrained';
      for (const a of actual) {
        if (d.type === 'value' && !isObject(expected) ? deepEqual(a, expected) : matchesPattern(a, expected)) return true;
      }
      return false;
    }
    case 'exists': {
      if (!sub) return false;
      if (sub.min >= 1) return actual.length > 0;
      return true;
    }
    case 'profile': {
      if (!sub) return false;
      // through resolve() the target profiles count, otherwise the type profiles; a slice naming
      // none does not restrict this discriminator (as HL7's slice expression, which adds nothing)
      const throughReference = d.path === 'resolve()' || d.path.endsWith('.resolve()');
      const profiles = sub.types.flatMap((t) => (throughReference ? t.targetProfiles : t.profiles));
      if (profiles.length === 0) return true;
      for (const a of actual) {
        if (!isObject(a)) continue;
        for (const url of profiles) {
          if (conformsTo(ctx, a, url)) return true;
        }
      }
      return false;
    }
    default:
      return false;
  }
}

/**
 * A `type` discriminator: the type of what the path selects is one of the slice's types. The
 * type is the resource's type, the one a choice name states (`valueQuantity`), or, for a value
 * of an element with a single type, that type. Through `resolve()` the slice's types are its
 * Reference target types.
 */
function matchesType(ctx: NodeContext, v: unknown, sub: ElementPlan | undefined, path: string): boolean {
  if (!sub || sub.types.length === 0) return false;
  const throughReference = path.includes('resolve()');
  const codes: string[] = [];
  for (const t of sub.types) {
    if (throughReference && t.code === 'Reference') {
      for (const url of t.targetProfiles) {
        const target = ctx.services.plans.plan(url)?.type;
        if (target) codes.push(target);
      }
    } else codes.push(t.code);
  }
  const types: string[] = [];
  const actual = evaluateDiscriminatorPath(v, path, ctx.host, types);
  for (let i = 0; i < actual.length; i++) {
    const a = actual[i];
    const named = types[i];
    if (isObject(a) && typeof a.resourceType === 'string') {
      if (codes.includes(a.resourceType)) return true;
    } else if (named) {
      for (const c of codes) if (c === named || (c.length === named.length && c.charAt(0).toUpperCase() === named.charAt(0) && c.slice(1) === named.slice(1))) return true;
    } else if (typeof a === 'string' || typeof a === 'number' || typeof a === 'boolean') {
      if (codes.some((c) => PRIMITIVE_TYPES.has(c))) return true;
    } else if (isObject(a) && codes.length === 1) return true;
  }
  return false;
}

/**
 * Silent validation of a value against one profile: does it conform (no errors)? `full`: a
 * resource is also walked against its core definition first (FHIRPath conformsTo(), where HL7
 * validates the resource as a whole), not only against the profile's constraints (slicing).
 */
export function conformsTo(ctx: NodeContext, v: Record<string, unknown>, url: string, full = false): boolean {
  const p = ctx.services.plans.plan(url);
  if (!p?.root?.ownChildren) return false;
  const silent = ctx.run.forSlicing();
  const depth = ctx.depth + 1;
  const walker = ctx.walker;
  if (p.kind === 'resource') {
    if (v.resourceType !== p.type) return false;
    const host = ctx.host.forSlicing(silent, v, p.type, depth);
    const base = full ? ctx.services.plans.typePlan(p.type) : undefined;
    const node = JsonNode.unplaced(silent, v, p.type);
    if (base?.root?.ownChildren) walker.walkObject(new NodeContext({ walker, host, plan: base, mode: 'structural' }, base.root, node, depth), v, base.root.ownChildren);
    if (base !== p) walker.walkObject(new NodeContext({ walker, host, plan: p, mode: 'profile' }, p.root, node, depth), v, p.root.ownChildren);
  } else {
    const host = ctx.host.forSlicing(silent, undefined, ctx.host.path, depth);
    walker.walkObject(new NodeContext({ walker, host, plan: p, mode: 'profile' }, p.root, JsonNode.unplaced(silent, v, 'value'), depth), v, p.root.ownChildren);
  }
  return silent.errorCount === 0;
}

/** The element inside a slice that a discriminator path points at. */
function sliceSubElement(ctx: NodeContext, slice: ElementPlan, path: string): ElementPlan | undefined {
  const caches = ctx.services.sliceSubElements;
  let cache = caches.get(slice);
  if (!cache) caches.set(slice, (cache = new Map()));
  let hit = cache.get(path);
  if (hit === undefined) {
    hit = findSubElement(ctx, slice, path) ?? null;
    cache.set(path, hit);
  }
  return hit ?? undefined;
}

function findSubElement(ctx: NodeContext, slice: ElementPlan, path: string): ElementPlan | undefined {
  if (path === '$this' || path === '') return slice;
  let current: ElementPlan | undefined = slice;
  const segments = path.split('.');
  for (const raw of segments) {
    if (!current) return undefined;
    if (raw === '$this') continue;
    if (raw === 'resolve()') continue;
    // linear (both): anchored, `.+` gives back characters until the fixed ending fits
    const ofType = /^ofType\((.+)\)$/.exec(raw);
    if (ofType) {
      if (current.isChoice && current.slices.length) current = current.slices.find((s) => s.types.some((t) => t.code === ofType[1])) ?? current;
      continue;
    }
    const extensionUrl = /^extension\(['"](.+)['"]\)$/.exec(raw)?.[1];
    const name = extensionUrl !== undefined ? 'extension' : raw;
    let children: ChildIndex | undefined = current.ownChildren;
    const onlyType = current.types.length === 1 ? current.types[0] : undefined;
    if (!children && onlyType) children = ctx.services.plans.typeChildren(onlyType.code);
    const next: ElementPlan | undefined = children?.list.find((c) => c.name === name);
    if (!next) return undefined;
    if (extensionUrl !== undefined) {
      current = next.slices.find((s) => s.types.some((t) => t.profiles.includes(extensionUrl))) ?? undefined;
    } else {
      current = next;
    }
  }
  return current;
}
