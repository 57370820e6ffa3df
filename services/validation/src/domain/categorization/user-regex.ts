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
import { InvalidInputError } from '#shared-kernel/domain/errors.js';
import { translateJavaRegex } from '../regex/java-dialect.js';

export { translateJavaRegex };

/** Longer patterns are refused: a rule is a short description of a message, not a program. */
export const MAX_REGEX_LENGTH = 4000;

/** A pattern refused (400): the shared vocabulary's InvalidInputError; the matcher names the field it came from. */
export class UserRegexError extends InvalidInputError {
  override readonly name = 'UserRegexError';
}

export interface UserRegex {
  /** The pattern as the user wrote it (what export gives back). */
  readonly source: string;
  /** Unanchored search, like Java's `Matcher.find()`. */
  test(value: string): boolean;
  /**
   * The literal `test` checks first (see literalShortcut), so that a caller testing many patterns
   * against one value can check all their literals in one pass, then call `testHavingLiteral`.
   */
  readonly literal: LiteralShortcut;
  /** `test` for a value already known to satisfy `literal` (the literal check is not repeated). */
  testHavingLiteral(value: string): boolean;
  /** Texts every match contains (see requiredTexts): a further prefilter for such callers; `test` does not use them. */
  readonly requiredTexts: readonly string[];
  /**
   * RE2's size of the compiled program: matching costs at most about this many steps per character of
   * the value (linear, but a `[\p{L}\d]{900}` is 900 times dearer per character than `a`).
   */
  readonly programSize: number;
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
  const literal = literalShortcut(pattern);
  const regexTest = (value: string) => compiled.test(value);
  return {
    source: pattern,
    test: withLiteralShortcut(literal, regexTest),
    literal,
    testHavingLiteral: literal.exact !== undefined ? () => true : regexTest,
    requiredTexts: requiredTexts(pattern),
    programSize: compiled.programSize(),
  };
}

function withLiteralShortcut(literal: LiteralShortcut, regexTest: (value: string) => boolean): (value: string) => boolean {
  const { exact, anchored, prefix, contains } = literal;
  if (exact !== undefined) return anchored ? (value) => value.startsWith(exact) : (value) => value.includes(exact);
  if (prefix !== undefined) return (value) => value.startsWith(prefix) && regexTest(value);
  if (contains !== undefined) return (value) => value.includes(contains) && regexTest(value);
  return regexTest;
}

/** Characters with a meaning in the regex grammar; everything else is a literal. */
const SPECIAL = new Set(['\\', '.', '[', ']', '(', ')', '*', '+', '?', '{', '}', '|', '^', '$']);
const QUANTIFIER = new Set(['*', '+', '?', '{']);

export interface LiteralShortcut {
  /** The pattern is this literal text (searched anywhere, or at the start when `anchored`). */
  readonly exact?: string;
  readonly anchored?: boolean;
  /** Every match starts the input with this text (a `^literal...` pattern): a cheap first test. */
  readonly prefix?: string;
  /** Every match contains this text (a `literal...` pattern, unanchored): a cheap first test. */
  readonly contains?: string;
}

/**
 * Most category rules are a literal message start (`^Wrong Display Name '.*' for `) or a literal
 * phrase (`labeled as a fragment`). Checking that literal with startsWith/includes is ~100x cheaper
 * than running the regex engine, and the flow categorizes ~100 issues per patient against ~150
 * such leaves. Only shapes whose meaning is certain get a shortcut: a pattern of plain characters,
 * or a pattern that starts with plain characters (`^` or not; the last one dropped when a quantifier
 * may apply to it) and has no `|` outside parentheses: every match then starts with (anchored) or
 * contains (unanchored) that text. Anything else (a leading class, group, escape or flag, top-level
 * alternation) runs the regex alone.
 */
export function literalShortcut(pattern: string): LiteralShortcut {
  if (hasTopLevelAlternation(pattern)) return {};
  const anchored = pattern.startsWith('^');
  let literal = '';
  let i = anchored ? 1 : 0;
  for (; i < pattern.length; i++) {
    const ch = pattern.charAt(i);
    if (SPECIAL.has(ch)) break;
    literal += ch;
  }
  if (i === pattern.length) return literal.length > 0 ? { exact: literal, anchored } : {};
  if (QUANTIFIER.has(pattern.charAt(i)) || matchesNothingItself(pattern, i)) literal = withoutLastCharacter(literal);
  if (literal.length === 0) return {};
  return anchored ? { prefix: literal } : { contains: literal };
}

/**
 * A flag group (`(?i)`) or a quotation (`\Q\E`, maybe empty) at `i` adds no character of its own, so a
 * quantifier after it may apply to the character before: `ab(?i)*` is `ab*`.
 */
function matchesNothingItself(pattern: string, i: number): boolean {
  return pattern.startsWith('\\Q', i) || (pattern.startsWith('(?', i) && !pattern.startsWith('(?:', i));
}

/** A quantifier applies to the whole last character, which is two UTF-16 units outside the BMP. */
function withoutLastCharacter(text: string): string {
  const last = text.charCodeAt(text.length - 1);
  const before = text.charCodeAt(text.length - 2);
  const pair = last >= 0xdc00 && last <= 0xdfff && before >= 0xd800 && before <= 0xdbff;
  return text.slice(0, pair ? -2 : -1);
}

/**
 * Texts every match contains, longest first: a prefilter for callers that test many patterns on
 * one value, beyond literalShortcut, which stops at the first group or class
 * (`is (less|greater) than the specified` needs ` than the specified `, `[Cc]omma .*in the JSON`
 * needs `in the JSON`). The runs of plain (or escaped punctuation, or `\Q...\E`) characters of the
 * pattern's top-level sequence are collected, groups and classes skipped whole, a character followed
 * by a quantifier dropped. Whatever is not certainly understood ends the walk, keeping the runs found
 * before it (less the last character, which a quantifier after it may still take): an escape of a
 * letter or digit (`\d`, `\p{L}`), a `{`, a flag group (`(?i)` would make the case of the text
 * optional), a nested class. The result must never name a text some match lacks: callers skip the
 * regex engine when a text is missing.
 */
export function requiredTexts(pattern: string): string[] {
  if (hasTopLevelAlternation(pattern)) return [];
  const runs = new Set<string>();
  let run = '';
  const endRun = () => {
    if (run.length > 0) runs.add(run);
    run = '';
  };
  let understood = true;
  for (let i = 0; i < pattern.length && understood; i++) {
    const ch = pattern.charAt(i);
    if (ch === '\\') {
      const next = pattern[i + 1];
      if (next === 'Q') {
        const end = pattern.indexOf('\\E', i + 2);
        run += pattern.slice(i + 2, end === -1 ? pattern.length : end);
        i = end === -1 ? pattern.length : end + 1;
      } else if (next !== undefined && next.charCodeAt(0) < 0x80 && !/[0-9A-Za-z]/.test(next) /* one character */) {
        run += next; // RE2: an escaped ASCII character other than a letter or digit is itself
        i++;
      } else {
        understood = false;
      }
    } else if (ch === '*' || ch === '+' || ch === '?') {
      run = withoutLastCharacter(run);
      endRun();
    } else if (ch === '.' || ch === '^' || ch === '$') {
      endRun();
    } else if (ch === '[' || ch === '(') {
      const end = ch === '[' ? classEnd(pattern, i) : groupEnd(pattern, i);
      if (end === undefined) {
        understood = false;
      } else {
        endRun();
        i = end;
      }
    } else if (SPECIAL.has(ch)) {
      understood = false;
    } else {
      run += ch;
    }
  }
  // `a(?i)*` is `a*`, `ab{2}` repeats b.
  if (!understood) run = withoutLastCharacter(run);
  endRun();
  return [...runs].sort((a, b) => b.length - a.length);
}

/** The index of the `]` closing the class opened at `start`; undefined if unsure (a nested `[`, as in `[[:alpha:]]`). */
function classEnd(pattern: string, start: number): number | undefined {
  let i = start + 1;
  if (pattern[i] === '^') i++;
  if (pattern[i] === ']') i++; // a literal `]` right after the opening bracket
  for (; i < pattern.length; i++) {
    const ch = pattern[i];
    if (ch === '\\') i++;
    else if (ch === '[') return undefined;
    else if (ch === ']') return i;
  }
  return undefined;
}

/** The index of the `)` closing the group opened at `start`; undefined for a flag group or if unsure. */
function groupEnd(pattern: string, start: number): number | undefined {
  if (pattern[start + 1] === '?' && pattern[start + 2] !== ':') return undefined;
  let depth = 0;
  for (let i = start; i < pattern.length; i++) {
    const ch = pattern[i];
    if (ch === '\\') {
      if (pattern[i + 1] === 'Q') {
        const end = pattern.indexOf('\\E', i + 2);
        if (end === -1) return undefined;
        i = end + 1;
      } else {
        i++;
      }
    } else if (ch === '[') {
      const end = classEnd(pattern, i);
      if (end === undefined) return undefined;
      i = end;
    } else if (ch === '(') {
      depth++;
    } else if (ch === ')' && --depth === 0) {
      return i;
    }
  }
  return undefined;
}

/** A `|` outside any group or character class (escapes and `\Q...\E` respected). */
function hasTopLevelAlternation(pattern: string): boolean {
  let depth = 0;
  let inClass = false;
  for (let i = 0; i < pattern.length; i++) {
    const ch = pattern.charAt(i);
    if (ch === '\\') {
      if (pattern[i + 1] === 'Q') {
        const end = pattern.indexOf('\\E', i + 2);
        if (end === -1) return false;
        i = end + 1;
      } else {
        i++;
      }
      continue;
    }
    if (inClass) {
      if (ch === ']') inClass = false;
      continue;
    }
    if (ch === '[') {
      inClass = true;
      if (pattern[i + 1] === '^') i++;
      if (pattern[i + 1] === ']') i++;
    } else if (ch === '(') depth++;
    else if (ch === ')') depth = Math.max(0, depth - 1);
    else if (ch === '|' && depth === 0) return true;
  }
  return false;
}
