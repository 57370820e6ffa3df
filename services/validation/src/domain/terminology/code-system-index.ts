import type { CanonicalResource } from '../ports/conformance-resources.js';
import { isObject } from '../engine/json/json-value.js';

/**
 * A CodeSystem resource indexed for lookups: every concept (nested or flat) by code, its
 * displays and designations, its properties and its place in the hierarchy. The hierarchy comes
 * from nesting and from the `parent` / `child` / `subsumedBy` properties, so both styles of
 * CodeSystem answer is-a and generalizes filters.
 */
export type CodeSystemContent = 'complete' | 'fragment' | 'not-present' | 'example' | 'supplement';

export interface Designation {
  language?: string;
  value: string;
}

export interface ConceptEntry {
  code: string;
  display?: string;
  designations: Designation[];
  /** Property values by property code, as strings (codes, booleans and numbers stringified). */
  properties: Map<string, string[]>;
  parents: Set<string>;
  children: Set<string>;
}

interface RawConcept {
  code?: unknown;
  display?: unknown;
  designation?: Array<{ language?: string; value?: unknown }>;
  property?: Array<Record<string, unknown>>;
  concept?: RawConcept[];
}

const HIERARCHY_UP = new Set(['parent', 'subsumedBy']);

export class CodeSystemIndex {
  readonly url: string;
  readonly version: string | undefined;
  readonly content: CodeSystemContent;
  /**
   * Like the HL7 validator: a code system that does not say it is case sensitive is matched
   * case-insensitively (R4's v2 tables leave the flag out).
   */
  readonly caseSensitive: boolean;
  /** CodeSystem.language: the language of the displays (named in display messages, as HL7 does). */
  readonly language: string | undefined;
  readonly concepts = new Map<string, ConceptEntry>();
  private readonly byLowerCase?: Map<string, ConceptEntry>;

  /**
   * For a built-in list that is known to be partial (ISO 3166 holds the alphabetic codes, not the
   * numeric ones): codes matching this pattern are "cannot check", never "unknown code".
   */
  readonly notHeldCodes?: RegExp;

  constructor(readonly resource: CanonicalResource, options: { notHeldCodes?: RegExp } = {}) {
    this.notHeldCodes = options.notHeldCodes;
    this.url = String(resource.url ?? '');
    this.version = typeof resource.version === 'string' ? resource.version : undefined;
    this.content = (resource.content as CodeSystemContent | undefined) ?? 'complete';
    this.caseSensitive = resource.caseSensitive === true;
    this.language = typeof resource.language === 'string' ? resource.language : undefined;
    const pendingLinks: Array<[from: string, to: string, up: boolean]> = [];
    this.walk((resource.concept as RawConcept[] | undefined) ?? [], undefined, pendingLinks);
    for (const [from, to, up] of pendingLinks) {
      const child = up ? from : to;
      const parent = up ? to : from;
      this.concepts.get(child)?.parents.add(parent);
      this.concepts.get(parent)?.children.add(child);
    }
    if (!this.caseSensitive) {
      this.byLowerCase = new Map();
      for (const entry of this.concepts.values()) this.byLowerCase.set(entry.code.toLowerCase(), entry);
    }
  }

  get label(): string {
    return String(this.resource.title ?? this.resource.name ?? this.url);
  }

  lookup(code: string): ConceptEntry | undefined {
    return this.concepts.get(code) ?? this.byLowerCase?.get(code.toLowerCase());
  }

  /** The code and every code below it. */
  selfAndDescendants(code: string): Set<string> {
    return this.closure(code, (entry) => entry.children);
  }

  /** The code and every code above it. */
  selfAndAncestors(code: string): Set<string> {
    return this.closure(code, (entry) => entry.parents);
  }

  private closure(code: string, next: (entry: ConceptEntry) => Iterable<string>): Set<string> {
    const start = this.lookup(code);
    const seen = new Set<string>();
    if (!start) return seen;
    const stack = [start.code];
    for (let current = stack.pop(); current !== undefined; current = stack.pop()) {
      if (seen.has(current)) continue;
      seen.add(current);
      const entry = this.concepts.get(current);
      if (entry) for (const link of next(entry)) stack.push(link);
    }
    return seen;
  }

  private walk(concepts: RawConcept[], parentCode: string | undefined, links: Array<[string, string, boolean]>): void {
    for (const concept of concepts) {
      if (typeof concept?.code !== 'string') continue;
      const entry: ConceptEntry = this.concepts.get(concept.code) ?? {
        code: concept.code,
        display: typeof concept.display === 'string' ? concept.display : undefined,
        designations: [],
        properties: new Map(),
        parents: new Set(),
        children: new Set(),
      };
      this.concepts.set(concept.code, entry);
      for (const designation of concept.designation ?? []) {
        if (typeof designation?.value === 'string') entry.designations.push({ language: designation.language, value: designation.value });
      }
      for (const property of concept.property ?? []) {
        const code = property.code;
        const value = propertyValue(property);
        if (typeof code !== 'string' || value === undefined) continue;
        const values = entry.properties.get(code) ?? [];
        values.push(value);
        entry.properties.set(code, values);
        if (HIERARCHY_UP.has(code)) links.push([entry.code, value, true]);
        else if (code === 'child') links.push([entry.code, value, false]);
      }
      if (parentCode !== undefined) links.push([entry.code, parentCode, true]);
      if (Array.isArray(concept.concept)) this.walk(concept.concept, entry.code, links);
    }
  }
}

function propertyValue(property: Record<string, unknown>): string | undefined {
  for (const key of ['valueCode', 'valueString', 'valueBoolean', 'valueInteger', 'valueDecimal', 'valueDateTime']) {
    const value = property[key];
    if (value !== undefined && value !== null) return String(value);
  }
  const coding = property.valueCoding;
  return isObject(coding) && typeof coding.code === 'string' ? coding.code : undefined;
}
