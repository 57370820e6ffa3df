import { CodeSystemIndex } from '../code-system-index.js';
import { ISO_3166_CODES } from './iso-3166.js';
import { checkLanguageTag, languageTagDisplay, languageTagFilter } from './language-tags.js';
import { checkMimeType } from './mime-types.js';
import { checkUcumUnit, ucumFilter } from './ucum.js';

/**
 * Code systems every FHIR validator supports without a CodeSystem resource. Two shapes:
 * - small closed lists (ISO 3166) become an ordinary CodeSystemIndex, so value set filters
 *   (e.g. the regex filters of iso3166-1-2/-3) work on them like on any held code system;
 * - grammars (BCP-47, BCP-13, UCUM) are predicates: a code is checked, never enumerated.
 */
export type BuiltinCheck = { valid: true } | { valid: false; reason: string };

export interface GrammarCodeSystem {
  url: string;
  name: string;
  caseSensitive: boolean;
  check(code: string): BuiltinCheck;
  /** The display of a valid code, when the system has one (kept apart: checks are far more frequent). */
  display?(code: string): string | undefined;
  /** A value set filter as a predicate on codes; undefined when the filter is not understood. */
  filter?(property: string, op: string, value: string): ((code: string) => boolean) | undefined;
}

export const BCP_47 = 'urn:ietf:bcp:47';
export const BCP_13 = 'urn:ietf:bcp:13';
export const UCUM = 'http://unitsofmeasure.org';
export const ISO_3166 = 'urn:iso:std:iso:3166';

const GRAMMARS: ReadonlyMap<string, GrammarCodeSystem> = new Map([
  [BCP_47, {
    url: BCP_47, name: 'Tags for the Identification of Languages', caseSensitive: false,
    check: checkLanguageTag,
    display: languageTagDisplay,
    filter: languageTagFilter,
  }],
  [BCP_13, { url: BCP_13, name: 'Mime Types', caseSensitive: false, check: checkMimeType }],
  [UCUM, { url: UCUM, name: 'Unified Code for Units of Measure (UCUM)', caseSensitive: true, check: checkUcumUnit, filter: ucumFilter }],
]);

let iso3166: CodeSystemIndex | undefined;

function iso3166Index(): CodeSystemIndex {
  iso3166 ??= new CodeSystemIndex({
    resourceType: 'CodeSystem', url: ISO_3166, name: 'ISO 3166-1 Codes for the representation of names of countries',
    content: 'complete', caseSensitive: true, concept: [...ISO_3166_CODES].map((code) => ({ code })),
  }, { notHeldCodes: /^\d{3}$/ /* linear: anchored, three digits */ });
  return iso3166;
}

export function grammarCodeSystem(system: string): GrammarCodeSystem | undefined {
  return GRAMMARS.get(system);
}

/** A built-in closed code system, as an index (undefined for everything else). */
export function builtinCodeSystemIndex(system: string): CodeSystemIndex | undefined {
  return system === ISO_3166 ? iso3166Index() : undefined;
}

/** The grammar narrowed by value set filters (all must hold), or undefined when one is not understood. */
export function filteredGrammar(grammar: GrammarCodeSystem, filters: Array<{ property?: string; op?: string; value?: string }>): GrammarCodeSystem | undefined {
  const predicates: Array<(code: string) => boolean> = [];
  for (const { property, op, value } of filters) {
    const predicate = property && op && value !== undefined ? grammar.filter?.(property, op, value) : undefined;
    if (!predicate) return undefined;
    predicates.push(predicate);
  }
  return {
    ...grammar,
    check: (code) => {
      const verdict = grammar.check(code);
      if (!verdict.valid) return verdict;
      return predicates.every((predicate) => predicate(code)) ? verdict : { valid: false, reason: 'not selected by the value set filter' };
    },
  };
}

/** Either grammar (a union of two includes of the same grammar-based system). */
export function eitherGrammar(first: GrammarCodeSystem, second: GrammarCodeSystem): GrammarCodeSystem {
  return { ...first, check: (code) => { const verdict = first.check(code); return verdict.valid ? verdict : second.check(code); } };
}

/** The first grammar without the codes of the second (an exclude on a grammar-based system). */
export function grammarWithout(kept: GrammarCodeSystem, removed: GrammarCodeSystem): GrammarCodeSystem {
  return { ...kept, check: (code) => (removed.check(code).valid ? { valid: false, reason: 'excluded by the value set' } : kept.check(code)) };
}
