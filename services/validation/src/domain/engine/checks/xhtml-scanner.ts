/**
 * A linear XHTML tokenizer for narratives: one pass over the text, each character looked at a
 * bounded number of times, no regular expression. It reports start tags (with their attributes),
 * end tags and text runs to a handler, and stops at the first construct that is not well formed
 * (an unterminated tag, comment or quoted value, a tag whose attribute syntax is broken).
 *
 * It is lenient where narratives in the wild are and the rules do not care: a `<` that does not
 * start a tag (`a < b`) is text, attribute values may be unquoted or missing, entities are left as
 * written. Comments and processing instructions are skipped, CDATA sections are text, and a
 * DOCTYPE declaration is reported (the HL7 validator refuses it: XXE protection).
 */

export interface XhtmlAttribute {
  readonly name: string;
  readonly value: string;
}

export interface XhtmlScanHandler {
  /** A start tag; `selfClosing` for `<br/>`. */
  open(name: string, attributes: readonly XhtmlAttribute[], selfClosing: boolean): void;
  close(name: string): void;
  /** Character data between `start` and `end` of the scanned text (entities not decoded). */
  text(start: number, end: number): void;
  doctype(): void;
}

export interface XhtmlScanError {
  readonly reason: string;
  /** Offset of the construct that is not well formed. */
  readonly at: number;
}

const enum Ch {
  Tab = 9, Lf = 10, Cr = 13, Space = 32, Bang = 33, DoubleQuote = 34, SingleQuote = 39, Dash = 45,
  Slash = 47, Lt = 60, Eq = 61, Gt = 62, Question = 63,
}

function isSpace(c: number): boolean {
  return c === Ch.Space || c === Ch.Lf || c === Ch.Tab || c === Ch.Cr;
}

/** XML NameStartChar, ASCII part, plus any non-ASCII character (names are checked against allow-lists later). */
function isNameStart(c: number): boolean {
  return (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || c === 95 || c === 58 || c > 127;
}

function isNameChar(c: number): boolean {
  return isNameStart(c) || (c >= 48 && c <= 57) || c === Ch.Dash || c === 46;
}

/** An attribute name runs to whitespace, `=`, `>`, `/` or a quote (what HTML tokenizers do). */
function isAttributeNameChar(c: number): boolean {
  return !isSpace(c) && c !== Ch.Eq && c !== Ch.Gt && c !== Ch.Slash && c !== Ch.DoubleQuote && c !== Ch.SingleQuote && c !== Ch.Lt;
}

/**
 * Scan `text` from `from`, calling `handler` for each token. Returns undefined when the whole text
 * was tokenized, or where and why it stopped. Linear in the text: every loop advances the position,
 * and every `indexOf` starts at the position and the position then moves past what it found.
 */
export function scanXhtml(text: string, handler: XhtmlScanHandler, from = 0): XhtmlScanError | undefined {
  const n = text.length;
  let i = from;
  let textStart = i;
  const flushText = (end: number) => {
    if (end > textStart) handler.text(textStart, end);
  };
  while (i < n) {
    const lt = text.indexOf('<', i);
    if (lt < 0) break;
    const c = text.charCodeAt(lt + 1);
    if (c === Ch.Bang) {
      flushText(lt);
      if (text.startsWith('<!--', lt)) {
        const end = text.indexOf('-->', lt + 4);
        if (end < 0) return { reason: 'unterminated comment', at: lt };
        i = textStart = end + 3;
      } else if (text.startsWith('<![CDATA[', lt)) {
        const end = text.indexOf(']]>', lt + 9);
        if (end < 0) return { reason: 'unterminated CDATA section', at: lt };
        handler.text(lt + 9, end);
        i = textStart = end + 3;
      } else if (text.startsWith('<!DOCTYPE', lt) || text.startsWith('<!doctype', lt)) {
        handler.doctype();
        const end = text.indexOf('>', lt);
        if (end < 0) return { reason: 'unterminated DOCTYPE declaration', at: lt };
        i = textStart = end + 1;
      } else {
        return { reason: `unexpected markup '<!' at character ${lt}`, at: lt };
      }
    } else if (c === Ch.Question) {
      flushText(lt);
      const end = text.indexOf('?>', lt + 2);
      if (end < 0) return { reason: 'unterminated processing instruction', at: lt };
      i = textStart = end + 2;
    } else if (c === Ch.Slash) {
      let j = lt + 2;
      if (!isNameStart(text.charCodeAt(j))) {
        i = lt + 1; // `</` not followed by a name: text
        continue;
      }
      flushText(lt);
      while (j < n && isNameChar(text.charCodeAt(j))) j++;
      const name = text.slice(lt + 2, j);
      while (j < n && isSpace(text.charCodeAt(j))) j++;
      if (text.charCodeAt(j) !== Ch.Gt) return { reason: `malformed end tag </${name}>`, at: lt };
      handler.close(name);
      i = textStart = j + 1;
    } else if (isNameStart(c)) {
      flushText(lt);
      const end = scanStartTag(text, lt, handler);
      if (typeof end !== 'number') return end;
      i = textStart = end;
    } else {
      i = lt + 1; // a `<` that starts no markup: text
    }
  }
  flushText(n);
  return undefined;
}

/** The start tag at `lt`: its end offset, or why it is not well formed. */
function scanStartTag(text: string, lt: number, handler: XhtmlScanHandler): number | XhtmlScanError {
  const n = text.length;
  let j = lt + 1;
  while (j < n && isNameChar(text.charCodeAt(j))) j++;
  const name = text.slice(lt + 1, j);
  const attributes: XhtmlAttribute[] = [];
  for (;;) {
    const before = j;
    while (j < n && isSpace(text.charCodeAt(j))) j++;
    if (j >= n) return { reason: `unterminated start tag <${name}>`, at: lt };
    const c = text.charCodeAt(j);
    if (c === Ch.Gt) {
      handler.open(name, attributes, false);
      return j + 1;
    }
    if (c === Ch.Slash) {
      if (text.charCodeAt(j + 1) !== Ch.Gt) return { reason: `malformed start tag <${name}>`, at: lt };
      handler.open(name, attributes, true);
      return j + 2;
    }
    // attributes are separated from the name and from each other by whitespace
    if (j === before || !isAttributeNameChar(c)) return { reason: `malformed attribute in start tag <${name}>`, at: lt };
    const nameStart = j;
    while (j < n && isAttributeNameChar(text.charCodeAt(j))) j++;
    const attributeName = text.slice(nameStart, j);
    let k = j;
    while (k < n && isSpace(text.charCodeAt(k))) k++;
    if (text.charCodeAt(k) !== Ch.Eq) {
      attributes.push({ name: attributeName, value: '' }); // a bare attribute (HTML style)
      continue;
    }
    k++;
    while (k < n && isSpace(text.charCodeAt(k))) k++;
    const q = text.charCodeAt(k);
    if (q === Ch.DoubleQuote || q === Ch.SingleQuote) {
      const close = text.indexOf(q === Ch.DoubleQuote ? '"' : "'", k + 1);
      if (close < 0) return { reason: `unterminated attribute value in start tag <${name}>`, at: lt };
      attributes.push({ name: attributeName, value: text.slice(k + 1, close) });
      j = close + 1;
    } else {
      const valueStart = k;
      while (k < n && !isSpace(text.charCodeAt(k)) && text.charCodeAt(k) !== Ch.Gt) k++;
      if (k === valueStart) return { reason: `missing attribute value in start tag <${name}>`, at: lt };
      attributes.push({ name: attributeName, value: text.slice(valueStart, k) });
      j = k;
    }
  }
}
