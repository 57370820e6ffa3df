import { compileLinearRegex, isRegexError, type LinearRegex } from '../regex/linear-regex.js';
import type { CanonicalResource } from '../ports/conformance-resources.js';
import type { CodeSystemIndex, ConceptEntry } from './code-system-index.js';
import { filteredGrammar, type GrammarCodeSystem } from './builtin/builtin-code-systems.js';
import { KNOWN_EXTERNAL_CODE_SYSTEMS } from './builtin/known-external-systems.js';
import { ANY_SYSTEM, CodeSet, type ExpansionEntry } from './value-set-expansion.js';

/**
 * Expands ValueSet.compose (include/exclude, explicit concepts, filters, imported value sets)
 * against the code systems local terminology holds, or falls back on a pre-computed
 * ValueSet.expansion when the compose cannot be fully resolved. Pure: the caller supplies the
 * lookups (and caches the results per url|version).
 */
export interface ExpanderLookups {
  codeSystem(system: string, version?: string): CodeSystemIndex | undefined;
  grammar(system: string): GrammarCodeSystem | undefined;
  /** The expansion of an imported value set; undefined when it cannot be found (or is a cycle). */
  valueSet(canonical: string): CodeSet | undefined;
}

interface ComposeInclude {
  system?: string;
  version?: string;
  concept?: Array<{ code?: string; display?: string; designation?: Array<{ language?: string; value?: string }> }>;
  filter?: ComposeFilter[];
  valueSet?: string[];
}

interface ComposeFilter {
  property?: string;
  op?: string;
  value?: string;
}

interface ExpansionContains {
  system?: string;
  version?: string;
  code?: string;
  display?: string;
  designation?: Array<{ language?: string; value?: string }>;
  contains?: ExpansionContains[];
}

export function expandValueSet(valueSet: CanonicalResource, lookups: ExpanderLookups): CodeSet {
  const compose = valueSet.compose as { include?: ComposeInclude[]; exclude?: ComposeInclude[] } | undefined;
  const expansion = valueSet.expansion as { contains?: ExpansionContains[]; total?: number; offset?: number } | undefined;
  if (compose?.include?.length) {
    const composed = expandCompose(compose.include, compose.exclude ?? [], lookups);
    // A server-side expansion sees what we cannot (LOINC, SNOMED, ...): prefer it then.
    if (!composed.complete && expansion?.contains) return fromExpansion(expansion);
    return composed;
  }
  if (expansion) return fromExpansion(expansion);
  const empty = new CodeSet();
  empty.markOpen(ANY_SYSTEM, 'the value set has neither a compose nor an expansion');
  return empty;
}

function expandCompose(includes: ComposeInclude[], excludes: ComposeInclude[], lookups: ExpanderLookups): CodeSet {
  const result = new CodeSet();
  for (const include of includes) result.addAll(resolveInclude(include, lookups));
  for (const exclude of excludes) result.removeAll(resolveInclude(exclude, lookups));
  return result;
}

function resolveInclude(include: ComposeInclude, lookups: ExpanderLookups): CodeSet {
  const parts: CodeSet[] = [];
  if (include.system) parts.push(resolveSystemPart(include, include.system, lookups));
  for (const canonical of include.valueSet ?? []) {
    const imported = lookups.valueSet(canonical);
    if (imported) {
      parts.push(imported);
    } else {
      const missing = new CodeSet();
      missing.markOpen(include.system ?? ANY_SYSTEM, { text: `the imported value set ${canonical} could not be found`, missingValueSet: canonical });
      parts.push(missing);
    }
  }
  const first = parts[0];
  if (first === undefined) return new CodeSet();
  return parts.slice(1).reduce((acc, part) => acc.intersect(part), first);
}

function resolveSystemPart(include: ComposeInclude, system: string, lookups: ExpanderLookups): CodeSet {
  const set = new CodeSet();
  const codeSystem = lookups.codeSystem(system, include.version);
  if (codeSystem && !codeSystem.caseSensitive) set.caseInsensitive.add(system);
  const version = include.version ?? codeSystem?.version;

  if (include.concept?.length) {
    // Explicit concepts are members even when the code system itself is not held (e.g. LOINC lists).
    for (const concept of include.concept) {
      if (typeof concept.code !== 'string') continue;
      const known = codeSystem?.lookup(concept.code);
      set.add({
        system, code: known?.code ?? concept.code, version,
        display: concept.display ?? known?.display,
        designations: mergeDesignations(known, concept.designation),
      });
    }
    return set;
  }

  const grammar = lookups.grammar(system);
  if (!codeSystem || !isEnumerable(codeSystem)) {
    const narrowed = grammar && (include.filter?.length ? filteredGrammar(grammar, include.filter) : grammar);
    if (narrowed) {
      set.grammars.set(system, narrowed);
    } else {
      set.markOpen(system, notHeldReason(system, codeSystem, grammar !== undefined));
    }
    return set;
  }

  let codes: Iterable<string> = codeSystem.concepts.keys();
  for (const filter of include.filter ?? []) {
    const selected = applyFilter(codeSystem, filter);
    if (typeof selected === 'string') {
      set.markOpen(system, selected);
      return set;
    }
    codes = [...codes].filter((code) => selected.has(code));
  }
  if (codeSystem.notHeldCodes) {
    // e.g. iso3166-1-N (regex [0-9]{3}): the numeric codes are not in the built-in list.
    set.markOpen(system, { text: `the built-in list of ${system} does not hold codes like ${codeSystem.notHeldCodes.source}`, onlyCodesMatching: codeSystem.notHeldCodes });
  }
  for (const code of codes) {
    const entry = codeSystem.concepts.get(code);
    if (!entry) continue;
    set.add({ system, code, version, display: entry.display, designations: entry.designations });
  }
  // A fragment or example code system lists only some of its codes: others are not "not members".
  if (codeSystem.content !== 'complete') set.markOpen(system, `the code system ${system} is only ${codeSystem.content === 'example' ? 'an example' : `a ${codeSystem.content}`}`);
  return set;
}

function isEnumerable(codeSystem: CodeSystemIndex): boolean {
  return codeSystem.content !== 'not-present' && codeSystem.content !== 'supplement' && codeSystem.concepts.size > 0;
}

function notHeldReason(system: string, codeSystem: CodeSystemIndex | undefined, isGrammar: boolean): string {
  if (isGrammar) return `filters on the grammar-based code system ${system} are not evaluated locally`;
  if (codeSystem) return `the code system ${system} is not present locally (content = ${codeSystem.content})`;
  const name = KNOWN_EXTERNAL_CODE_SYSTEMS.get(system);
  if (name) return `the code system ${system} (${name}) is not held locally`;
  return `the code system ${system} is unknown`;
}

function mergeDesignations(
  known: ConceptEntry | undefined,
  extra: Array<{ language?: string; value?: string }> | undefined,
): ExpansionEntry['designations'] {
  const list = [...(known?.designations ?? [])];
  for (const designation of extra ?? []) if (typeof designation.value === 'string') list.push({ language: designation.language, value: designation.value });
  if (known?.display !== undefined) list.push({ value: known.display });
  return list;
}

function fromExpansion(expansion: { contains?: ExpansionContains[]; total?: number }): CodeSet {
  const set = new CodeSet();
  let count = 0;
  const walk = (contains: ExpansionContains[]): void => {
    for (const item of contains) {
      if (item.system && typeof item.code === 'string') {
        count++;
        set.add({
          system: item.system, code: item.code, version: item.version, display: item.display,
          designations: (item.designation ?? []).filter((d): d is { language?: string; value: string } => typeof d.value === 'string').map((d) => ({ language: d.language, value: d.value })),
        });
      }
      if (item.contains) walk(item.contains);
    }
  };
  walk(expansion.contains ?? []);
  if (typeof expansion.total === 'number' && expansion.total > count) {
    for (const system of set.members.keys()) set.markOpen(system, 'the stored expansion is only a page of the value set');
    if (set.members.size === 0) set.markOpen(ANY_SYSTEM, 'the stored expansion is empty but reports a total');
  }
  return set;
}

/** The codes a filter selects, or a reason string when the filter cannot be evaluated locally. */
export function applyFilter(codeSystem: CodeSystemIndex, filter: ComposeFilter): Set<string> | string {
  const { property, op, value } = filter;
  if (typeof property !== 'string' || typeof op !== 'string' || typeof value !== 'string') return 'a filter without property, op and value';
  const all = codeSystem.concepts;
  const select = (predicate: (entry: ConceptEntry) => boolean): Set<string> => {
    const result = new Set<string>();
    for (const entry of all.values()) if (predicate(entry)) result.add(entry.code);
    return result;
  };
  if (property === 'concept' || property === 'code') {
    switch (op) {
      case 'is-a': return codeSystem.selfAndDescendants(value);
      case 'descendent-of': {
        const below = codeSystem.selfAndDescendants(value);
        below.delete(codeSystem.lookup(value)?.code ?? value);
        return below;
      }
      case 'is-not-a': {
        const excluded = codeSystem.selfAndDescendants(value);
        return select((entry) => !excluded.has(entry.code));
      }
      case 'generalizes': return codeSystem.selfAndAncestors(value);
      case '=': {
        const entry = codeSystem.lookup(value);
        return new Set(entry ? [entry.code] : []);
      }
      case 'in': return new Set(splitList(value).map((code) => codeSystem.lookup(code)?.code).filter((c): c is string => c !== undefined));
      case 'not-in': {
        const excluded = new Set(splitList(value));
        return select((entry) => !excluded.has(entry.code));
      }
      case 'regex': {
        const pattern = compileRegex(value);
        return typeof pattern === 'string' ? pattern : select((entry) => pattern.matchesWhole(entry.code));
      }
      case 'exists': return value === 'true' ? new Set(all.keys()) : new Set();
      default: return `the filter operator '${op}' is not supported on ${property}`;
    }
  }
  const values = (entry: ConceptEntry): string[] => {
    if (property === 'display') return entry.display !== undefined ? [entry.display] : [];
    const own = entry.properties.get(property) ?? [];
    if (property === 'parent') return [...own, ...entry.parents];
    if (property === 'child') return [...own, ...entry.children];
    return own;
  };
  switch (op) {
    case '=': return select((entry) => values(entry).includes(value));
    case 'in': {
      const wanted = new Set(splitList(value));
      return select((entry) => values(entry).some((v) => wanted.has(v)));
    }
    case 'not-in': {
      const unwanted = new Set(splitList(value));
      return select((entry) => !values(entry).some((v) => unwanted.has(v)));
    }
    case 'regex': {
      const pattern = compileRegex(value);
      return typeof pattern === 'string' ? pattern : select((entry) => values(entry).some((v) => pattern.matchesWhole(v)));
    }
    case 'exists': {
      const wanted = value === 'true';
      return select((entry) => (values(entry).length > 0) === wanted);
    }
    default: return `the filter operator '${op}' is not supported on the property ${property}`;
  }
}

function splitList(value: string): string[] {
  return value.split(',').map((item) => item.trim()).filter((item) => item !== '');
}

// Regexes come from uploaded value sets: RE2 runs in linear time, so no pattern can hang us (compiled once, kept).
function compileRegex(source: string): LinearRegex | string {
  const compiled = compileLinearRegex(source);
  return isRegexError(compiled) ? `the regex '${source}' cannot be compiled (${compiled.error})` : compiled;
}
