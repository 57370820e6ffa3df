/**
 * Regular expressions that arrive with the data (a Questionnaire's or a profile's `regex`
 * extension, FHIRPath `matches()` in an invariant, a value set's regex filter) are run on RE2
 * (re2js, pure JS): matching takes time linear in the input whatever the pattern, so `(a+)+$`
 * cannot hang a validation. They are written in the Java dialect of the HL7 validator; its
 * escapes RE2 spells differently are translated first (java-dialect.ts).
 *
 * Each pattern is compiled once and kept in a cache bounded by bytes (byte-bounded-cache.ts):
 * submissions may carry patterns of their own, and a compiled pattern's matching state grows with
 * its program (measured ~7 MB for a 1 KB pattern after matching), so a bound on their number was
 * no bound on memory. A pattern RE2 cannot run (look-around, back-references, possessive quantifiers,
 * a repetition count over 1000, a pattern too long) is not an exception: the caller gets the
 * reason and reports it as the HL7 validator reports a regex it cannot evaluate.
 */
import { RE2JS } from 're2js';
import { ByteBoundedCache } from '../caching/byte-bounded-cache.js';
import { translateJavaRegex } from './java-dialect.js';

/** A FHIR regex describes a value's syntax; anything longer is refused rather than compiled. */
export const MAX_PATTERN_LENGTH = 10_000;
/** RE2's own measure of a compiled pattern's cost; beyond it matching gets slow even if linear. */
const MAX_PROGRAM_SIZE = 100_000;
/** What the compiled patterns of this thread may hold together (estimated, see patternBytes). */
export const REGEX_CACHE_BYTES = 64 * 1024 * 1024;
/** Estimated bytes per RE2 instruction once matched against (its DFA states): 7 MB for a 1 KB pattern of ~1,000 instructions. */
const BYTES_PER_INSTRUCTION = 7_000;

export interface RegexFlags {
  /** `i`: case-insensitive. */
  readonly ignoreCase?: boolean;
  /** `m`: `^` and `$` match at line boundaries. */
  readonly multiline?: boolean;
  /** `s`: `.` matches line terminators too (FHIRPath's single-line mode). */
  readonly dotAll?: boolean;
}

export interface LinearRegex {
  readonly source: string;
  /** The whole value matches (Java's `String.matches`: FHIR's regex extensions). */
  matchesWhole(value: string): boolean;
  /** Some part of the value matches (Java's `Matcher.find`, FHIRPath `matches()`). */
  find(value: string): boolean;
  /** Every match replaced by `substitution`, where `$1` names a group (FHIRPath `replaceMatches()`). */
  replaceAll(value: string, substitution: string): string;
}

export type CompiledRegex = LinearRegex | { readonly error: string };

interface CachedRegex {
  readonly compiled: CompiledRegex;
  /** RE2's program size (0 for a pattern that did not compile). */
  readonly programSize: number;
}

const cache = new ByteBoundedCache<CachedRegex>(REGEX_CACHE_BYTES, patternBytes);

/** A compiled pattern's estimated weight: the key, and its program once matched against. */
export function patternBytes(key: string, cached: CachedRegex): number {
  return 1_024 + key.length * 2 + cached.programSize * BYTES_PER_INSTRUCTION;
}

/** The pattern compiled for RE2, or why it cannot be run. Never throws. */
export function compileLinearRegex(pattern: string, flags: RegexFlags = {}): CompiledRegex {
  const bits = (flags.ignoreCase ? RE2JS.CASE_INSENSITIVE : 0) | (flags.multiline ? RE2JS.MULTILINE : 0) | (flags.dotAll ? RE2JS.DOTALL : 0);
  const key = `${bits}\u0000${pattern}`;
  let cached = cache.get(key);
  if (cached === undefined) {
    cached = compile(pattern, bits);
    cache.set(key, cached);
  }
  return cached.compiled;
}

export function isRegexError(compiled: CompiledRegex): compiled is { readonly error: string } {
  return 'error' in compiled;
}

/** The estimated bytes the cache holds (tests, probes). */
export function regexCacheBytes(): number {
  return cache.bytes;
}

function compile(pattern: string, bits: number): CachedRegex {
  if (pattern.length > MAX_PATTERN_LENGTH) return failed(`the pattern is ${pattern.length} characters long (at most ${MAX_PATTERN_LENGTH})`);
  let re: RE2JS;
  try {
    re = RE2JS.compile(translateJavaRegex(pattern), bits);
  } catch (error) {
    return failed(`not supported by linear-time (RE2) matching: ${error instanceof Error ? error.message : String(error)}`);
  }
  if (re.programSize() > MAX_PROGRAM_SIZE) return failed(`the pattern is too large to evaluate (RE2 program size ${re.programSize()})`);
  return { programSize: re.programSize(), compiled: {
    source: pattern,
    matchesWhole: (value) => re.testExact(value),
    find: (value) => re.test(value),
    replaceAll: (value, substitution) => re.matcher(value).replaceAll(substitution),
  } };
}

function failed(error: string): CachedRegex {
  return { compiled: { error }, programSize: 0 };
}
