/**
 * A fixed value in a derived StructureDefinition's differential against the base it constrains,
 * as HL7's StructureDefinitionValidator (validateElementDefinition, the differential only): where
 * the base fixes the same element, the derived definition may only fix it again to the same type
 * and value. An extension derived from another extension is the common case: the base fixes
 * `Extension.url` to its own url, so the derived one cannot fix it to another.
 *
 * Where the base has a pattern instead, a derived definition can only narrow it with a fixed
 * value: a pattern again is an error (a fixed value is not compared).
 */
import type { NodeContext } from '../context/node-context.js';
import { describeValue } from '../checks/values.js';
import type { JsonNode } from '../json/json-node.js';
import { isArray, isObject } from '../json/json-value.js';
import { PRIMITIVE_TYPES } from '../plan/structure-plan.js';

type Obj = Record<string, unknown>;
const objects = (v: unknown): Obj[] => (isArray(v) ? v.filter(isObject) : []);

/** The fixed[x] (or pattern[x]) of an element definition: its key, type and value. */
function fixedOf(ed: Obj, prefix = 'fixed'): { key: string; type: string; value: unknown } | undefined {
  for (const key of Object.keys(ed)) {
    if (!key.startsWith(prefix) || key.length <= prefix.length) continue;
    // the type as FHIR names it: `fixedUri` is a uri, `fixedCodeableConcept` a CodeableConcept
    const suffix = key.slice(prefix.length);
    const lower = suffix.charAt(0).toLowerCase() + suffix.slice(1);
    return { key, type: PRIMITIVE_TYPES.has(lower) ? lower : suffix, value: ed[key] };
  }
  return undefined;
}

/**
 * The base snapshot's element for a differential element, as HL7's getDefinitionFromBase finds it:
 * the element whose id is the differential element's path (a slice's own elements thus meet the
 * unsliced element of the base), or by the differential element's id when it has no path.
 */
function baseElement(baseElements: Obj[], id: unknown, path: unknown): Obj | undefined {
  const key = typeof path === 'string' ? path : id;
  return typeof key === 'string' ? baseElements.find((e) => e.id === key) : undefined;
}

/** Deep equality of two JSON values (object keys in any order). */
function sameValue(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (isArray(a) && isArray(b)) return a.length === b.length && a.every((x, i) => sameValue(x, b[i]));
  if (isObject(a) && isObject(b)) {
    const ka = Object.keys(a);
    return ka.length === Object.keys(b).length && ka.every((k) => k in b && sameValue(a[k], b[k]));
  }
  return false;
}

/**
 * Each differential element of `sd` that fixes a value its base (the StructureDefinition at
 * sd.baseDefinition, with its snapshot) also fixes: another type is an error at the fixed value,
 * another value an error at the element's path (where HL7 reports it); and each that restates as
 * a pattern what the base gives as a pattern.
 */
export function checkFixedAgainstBase(ctx: NodeContext, sd: JsonNode): void {
  const baseUrl = sd.str('baseDefinition');
  if (baseUrl === undefined) return;
  const base = ctx.services.source.structureDefinition(baseUrl);
  const baseElements = base && isObject(base.snapshot) ? objects(base.snapshot.element) : [];
  if (baseElements.length === 0) return;
  for (const element of sd.child('differential')?.objects('element') ?? []) {
    const ed = element.object;
    if (ed === undefined) continue;
    const fixed = fixedOf(ed);
    const pattern = fixedOf(ed, 'pattern');
    if (!fixed && !pattern) continue;
    const bd = baseElement(baseElements, ed.id, ed.path);
    if (!bd) continue;
    const baseFixed = fixedOf(bd);
    if (baseFixed) {
      if (!fixed) continue;
      if (fixed.type !== baseFixed.type) element.child(fixed.key)?.error('SD_ELEMENT_FIXED_WRONG_TYPE', [fixed.type, baseFixed.type]);
      // HL7 names the element by its own path here, not by its place in the differential
      else if (!sameValue(fixed.value, baseFixed.value)) ctx.error('FIXED_VALUE', [describeValue(fixed.value), describeValue(baseFixed.value)], element.str('path') ?? sd.path, element.at);
    } else if (pattern && fixedOf(bd, 'pattern')) {
      element.child(pattern.key)?.error('SD_ELEMENT_PATTERN_NO_FIXED', [pattern.type]);
    }
  }
}
