/**
 * Regular expressions written by users (category rules) are compiled with re2js: RE2 semantics,
 * matching in time linear in the input, so no rule can hang the service (`(a+)+$` included).
 *
 * Rules were historically written for java.util.regex and evaluated with `Matcher.find()`, i.e. an
 * unanchored search. re2js's `test` has the same meaning. RE2 already accepts Java's identity escapes
 * of punctuation (`\'`, `\:`, `\/`, `\-`), so an export of the original system imports unchanged; the
 * few Java escapes RE2 lacks but that have an exact RE2 spelling are rewritten before compiling.
 * Java features RE2 cannot do in linear time (look-around, back-references, possessive quantifiers)
 * are refused with the compiler's message.
 */
import { RE2JS } from 're2js';

/** Longer patterns are refused: a rule is a short description of a message, not a program. */
export const MAX_REGEX_LENGTH = 4000;

export class UserRegexError extends Error {
  override readonly name = 'UserRegexError';
}

export interface UserRegex {
  /** The pattern as the user wrote it (what export gives back). */
  readonly source: string;
  /** Unanchored search, like Java's `Matcher.find()`. */
  test(value: string): boolean;
}

/** Java escapes outside a character class that RE2 spells differently. */
const JAVA_ESCAPES_OUTSIDE_CLASS: Readonly<Record<string, string>> = {
  e: '\\x1B', // escape character
  a: '\\x07', // bell (RE2 knows \a too, kept explicit)
  Z: '(?:\\n?\\z)', // end of input, or before a final line terminator
  h: '[\\t \\xA0\\x{1680}\\x{180E}\\x{2000}-\\x{200A}\\x{202F}\\x{205F}\\x{3000}]', // horizontal whitespace
};

/** The same inside a character class (no groups allowed there). */
const JAVA_ESCAPES_INSIDE_CLASS: Readonly<Record<string, string>> = {
  e: '\\x1B',
  h: '\\t \\xA0\\x{1680}\\x{180E}\\x{2000}-\\x{200A}\\x{202F}\\x{205F}\\x{3000}',
};

/**
 * Rewrites the Java-only escapes listed above; everything else is passed through untouched so
 * that RE2 reports genuine incompatibilities itself. `\Q...\E` quoting is respected.
 */
export function translateJavaRegex(pattern: string): string {
  let out = '';
  let inClass = false;
  for (let i = 0; i < pattern.length; i++) {
    const ch = pattern[i]!;
    if (ch === '\\' && i + 1 < pattern.length) {
      const next = pattern[i + 1]!;
      if (next === 'Q') {
        const end = pattern.indexOf('\\E', i + 2);
        const stop = end === -1 ? pattern.length : end + 2;
        out += pattern.slice(i, stop);
        i = stop - 1;
        continue;
      }
      const table = inClass ? JAVA_ESCAPES_INSIDE_CLASS : JAVA_ESCAPES_OUTSIDE_CLASS;
      out += table[next] ?? `\\${next}`;
      i++;
      continue;
    }
    if (ch === '[' && !inClass) {
      inClass = true;
      out += ch;
      // A `]` (or `^]`) right after the opening bracket is a literal in both dialects.
      if (pattern[i + 1] === '^') { out += '^'; i++; }
      if (pattern[i + 1] === ']') { out += '\\]'; i++; }
      continue;
    }
    if (ch === ']' && inClass) inClass = false;
    out += ch;
  }
  return out;
}

export function compileUserRegex(pattern: string): UserRegex {
  if (typeof pattern !== 'string') throw new UserRegexError('regex must be a string');
  if (pattern.length === 0) throw new UserRegexError('regex must not be empty');
  if (pattern.length > MAX_REGEX_LENGTH) {
    throw new UserRegexError(`regex is ${pattern.length} characters long; at most ${MAX_REGEX_LENGTH} are allowed`);
  }
  let compiled: RE2JS;
  try {
    compiled = RE2JS.compile(translateJavaRegex(pattern));
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new UserRegexError(`regex cannot be compiled with RE2 (linear-time) semantics: ${reason}`);
  }
  return { source: pattern, test: (value: string) => compiled.test(value) };
}
