/**
 * Java regular expressions (the dialect of the HL7 validator, of FHIR's regex extensions and of
 * category rules written for the original system) made ready for RE2: the Java-only escapes that
 * have an exact RE2 spelling are rewritten; everything else is passed through untouched so that
 * RE2 reports genuine incompatibilities (look-around, back-references, possessive quantifiers) itself.
 */

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
    const ch = pattern.charAt(i);
    if (ch === '\\' && i + 1 < pattern.length) {
      const next = pattern.charAt(i + 1);
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
