/**
 * Small questions about CodeSystems and ValueSets (as JSON) that the ValueSet, CodeSystem and
 * ConceptMap validators share: concepts at every level, a code's lookup, absolute URIs.
 */
import { isArray, isObject } from '../../json/json-value.js';

export { str } from '../../json/json-value.js';

export type Obj = Record<string, unknown>;

/** The objects of an array property (anything else is skipped: the structural walk reports it). */
export function objects(v: unknown): Obj[] {
  return isArray(v) ? v.filter(isObject) : [];
}

/** Every concept of a CodeSystem, nested ones included, depth first. */
export function* allConcepts(cs: Obj): Generator<Obj> {
  const stack: Obj[][] = [objects(cs.concept)];
  for (let list = stack.pop(); list; list = stack.pop()) {
    for (let i = list.length - 1; i >= 0; i--) {
      const c = list[i];
      if (!c) continue;
      yield c;
    }
    for (let i = list.length - 1; i >= 0; i--) {
      const c = list[i];
      if (c && Array.isArray(c.concept)) stack.push(objects(c.concept));
    }
  }
}

/** How many concepts a CodeSystem defines, at every level (the HL7 validator's countConcepts). */
export function countConcepts(cs: Obj): number {
  let n = 0;
  for (const _ of allConcepts(cs)) n++;
  return n;
}

const codeSets = new WeakMap<Obj, Set<string>>();

/** The codes a CodeSystem defines (lower-cased when it is not case-sensitive), made once per CodeSystem. */
export function codeSet(cs: Obj): Set<string> {
  const cached = codeSets.get(cs);
  if (cached) return cached;
  const codes = makeCodeSet(cs);
  codeSets.set(cs, codes);
  return codes;
}

function makeCodeSet(cs: Obj): Set<string> {
  const caseSensitive = cs.caseSensitive === true;
  const codes = new Set<string>();
  for (const c of allConcepts(cs)) if (typeof c.code === 'string') codes.add(caseSensitive ? c.code : c.code.toLowerCase());
  return codes;
}

/** Whether a code is in a code set made by codeSet for that CodeSystem. */
export function hasCode(cs: Obj, codes: Set<string>, code: string): boolean {
  return codes.has(cs.caseSensitive === true ? code : code.toLowerCase());
}

/** The code systems a ValueSet draws on (its includes' systems, else its expansion's). */
export function listSystems(vs: Obj): string[] {
  const systems: string[] = [];
  const add = (s: unknown) => {
    if (typeof s === 'string' && !systems.includes(s)) systems.push(s);
  };
  const compose = vs.compose;
  if (isObject(compose)) for (const inc of objects(compose.include)) add(inc.system);
  if (systems.length === 0 && isObject(vs.expansion)) for (const c of objects(vs.expansion.contains)) add(c.system);
  return systems;
}

/** A canonical with its version: `url|version`, or the url alone. */
export function versioned(url: string, version: string | undefined): string {
  return version === undefined ? url : `${url}|${version}`;
}
