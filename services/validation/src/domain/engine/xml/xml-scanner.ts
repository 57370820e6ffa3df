/**
 * A fast reader for the XML that FHIR documents are made of, used before the full parser (saxes).
 *
 * saxes reads a document one character at a time through a state machine (a call per
 * character), which made reading FHIR XML about three times as slow as reading the same JSON.
 * This scanner jumps from `<` to `<` with the native indexOf and looks only at tags, so it is a
 * few times faster; it reports the same events, at the same positions, as the reader's saxes
 * handlers receive them.
 *
 * It reads a strict subset of XML: elements, attributes, character data with the five predefined
 * entities and character references, comments, and an XML declaration of version 1.0 in UTF-8.
 * Everything else it does not judge: a DOCTYPE, CDATA, processing instructions, non-ASCII names,
 * malformed or unbalanced markup, a character XML forbids, non-blank text outside the root... make
 * it return false, and the caller reads the document again with saxes, which answers as before
 * (with its messages and positions). So for a document it accepts, the events are saxes' events;
 * for any other, saxes decides. It never expands anything (no DTD, no entities beyond XML's own),
 * keeps its element stack in an array (no recursion), and each character is looked at a bounded
 * number of times: linear.
 */
import type { Position } from '../json/located-json.js';

/**
 * An element's attributes: the names and values (decoded as saxes decodes them) are the first
 * `count` of the two arrays. The scanner reuses one for every tag.
 */
export interface TagAttributes {
  readonly names: readonly string[];
  readonly values: readonly string[];
  readonly count: number;
}

/** Where the scanner's events go (the reader's handlers). */
export interface ScanSink {
  /**
   * An element opens. `start` and `at` are where saxes' opentagstart puts it (its `<`, except
   * after a name ended by a line break: see below); `attributes` is only valid during the call.
   */
  openTag(name: string, start: number, at: Position, attributes: TagAttributes): void;
  /** The element closes; `end` is the index just past its closing `>`. */
  closeTag(end: number): void;
  /** Character data that is not blank (as written: entities not decoded), inside the root. */
  text(raw: string): void;
}

const LT = 60;
const GT = 62;
const SLASH = 47;
const BANG = 33;
const QUESTION = 63;
const AMP = 38;
const EQ = 61;
const DQUOTE = 34;
const SQUOTE = 39;
const NL = 10;
const CR = 13;
const TAB = 9;
const SPACE = 32;

/** A character XML 1.0 forbids (a lone surrogate included); one native scan of the whole text. */
const FORBIDDEN_CHAR = /[^\t\n\r\x20-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/u;
/** The XML declaration the scanner accepts (at the very start): version 1.0, UTF-8 if stated. */
const XML_DECL = /<\?xml[ \t\n\r]+version[ \t\n\r]*=[ \t\n\r]*(?:"1\.0"|'1\.0')(?:[ \t\n\r]+encoding[ \t\n\r]*=[ \t\n\r]*(?:"[Uu][Tt][Ff]-8"|'[Uu][Tt][Ff]-8'))?(?:[ \t\n\r]+standalone[ \t\n\r]*=[ \t\n\r]*(?:"(?:yes|no)"|'(?:yes|no)'))?[ \t\n\r]*\?>/y;

function isSpace(c: number): boolean {
  return c === SPACE || c === NL || c === TAB || c === CR;
}

function isNameStart(c: number): boolean {
  return (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || c === 95 || c === 58;
}

function isNameChar(c: number): boolean {
  return (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || (c >= 48 && c <= 57) || c === 95 || c === 58 || c === 45 || c === 46;
}

/** A character XML allows (the CHAR production), as saxes checks a character reference. */
function isXmlChar(n: number): boolean {
  return n === 0x9 || n === 0xa || n === 0xd || (n >= 0x20 && n <= 0xd7ff) || (n >= 0xe000 && n <= 0xfffd) || (n >= 0x10000 && n <= 0x10ffff);
}

/**
 * The entity or character reference at `amp` (its `&`) as saxes resolves it, and the index past
 * its `;`; undefined when saxes would refuse it (or it runs past `limit`).
 */
function entityAt(text: string, amp: number, limit: number): { value: string; end: number } | undefined {
  let i = amp + 1;
  while (i < limit && i - amp <= 12 && text.charCodeAt(i) !== 59) i++;
  if (i >= limit || text.charCodeAt(i) !== 59) return undefined;
  const name = text.slice(amp + 1, i);
  const end = i + 1;
  switch (name) {
    case 'lt': return { value: '<', end };
    case 'gt': return { value: '>', end };
    case 'amp': return { value: '&', end };
    case 'quot': return { value: '"', end };
    case 'apos': return { value: "'", end };
  }
  let n = NaN;
  if (/^#x[0-9a-fA-F]{1,6}$/.test(name)) n = parseInt(name.slice(2), 16);
  else if (/^#[0-9]{1,7}$/.test(name)) n = parseInt(name.slice(1), 10);
  return isXmlChar(n) ? { value: String.fromCodePoint(n), end } : undefined;
}

/**
 * Character data between markup (`from` to `to`): whether saxes would take it (its entities
 * resolve, no `]]>`), and whether it is blank.
 */
function checkText(text: string, from: number, to: number): 'blank' | 'text' | 'refused' {
  let blank = true;
  for (let i = from; i < to; i++) {
    const c = text.charCodeAt(i);
    if (isSpace(c)) continue;
    blank = false;
    if (c === AMP) {
      const e = entityAt(text, i, to);
      if (!e) return 'refused';
      i = e.end - 1;
    } else if (c === GT && i - from >= 2 && text.charCodeAt(i - 1) === 93 && text.charCodeAt(i - 2) === 93) {
      return 'refused';
    }
  }
  return blank ? 'blank' : 'text';
}

/**
 * Reads `text` into `sink`; false when the text is outside the subset this scanner reads (the
 * caller then reads it with saxes, from the start, with a fresh sink).
 */
export function scanXml(text: string, sink: ScanSink): boolean {
  if (FORBIDDEN_CHAR.test(text)) return false;
  const length = text.length;
  let pos = text.charCodeAt(0) === 0xfeff ? 1 : 0;
  if (text.startsWith('<?xml', pos)) {
    XML_DECL.lastIndex = pos;
    if (!XML_DECL.test(text)) return false;
    pos = XML_DECL.lastIndex;
  }

  // lines, counted up to the tag being read: the next line break of each kind is remembered, so
  // the text is searched once for each
  const hasCr = text.indexOf('\r') >= 0;
  let line = 1;
  let lineStart = 0;
  let nextLf = text.indexOf('\n');
  let nextCr = hasCr ? text.indexOf('\r') : -1;
  if (nextLf < 0) nextLf = length;
  if (nextCr < 0) nextCr = length;
  /** Counts the line breaks before `index` (a \r\n, a lone \r and a \n each end a line, as in saxes). */
  const linesTo = (index: number): void => {
    for (;;) {
      const n = nextLf < nextCr ? nextLf : nextCr;
      if (n >= index) return;
      line++;
      if (n === nextCr) {
        const crlf = text.charCodeAt(n + 1) === NL;
        lineStart = crlf ? n + 2 : n + 1;
        nextCr = text.indexOf('\r', n + 1);
        if (nextCr < 0) nextCr = length;
        if (crlf) {
          nextLf = text.indexOf('\n', n + 2);
          if (nextLf < 0) nextLf = length;
        }
      } else {
        lineStart = n + 1;
        nextLf = text.indexOf('\n', n + 1);
        if (nextLf < 0) nextLf = length;
      }
    }
  };

  const open: string[] = [];
  const names: string[] = [];
  const values: string[] = [];
  const attributes = { names, values, count: 0 };
  let sawRoot = false;
  let closedRoot = false;

  while (pos < length) {
    const lt = text.indexOf('<', pos);
    const textEnd = lt < 0 ? length : lt;
    if (textEnd > pos) {
      const kind = checkText(text, pos, textEnd);
      if (kind === 'refused') return false;
      if (kind === 'text') {
        if (open.length === 0) return false;
        sink.text(text.slice(pos, textEnd));
      }
    }
    if (lt < 0) break;
    const c1 = text.charCodeAt(lt + 1);

    if (c1 === SLASH) {
      // a closing tag: its name, blanks, `>`
      let i = lt + 2;
      while (i < length && isNameChar(text.charCodeAt(i))) i++;
      const name = text.slice(lt + 2, i);
      while (i < length && isSpace(text.charCodeAt(i))) i++;
      if (text.charCodeAt(i) !== GT || open.length === 0 || open[open.length - 1] !== name) return false;
      open.pop();
      pos = i + 1;
      sink.closeTag(pos);
      if (open.length === 0) closedRoot = true;
      continue;
    }

    if (c1 === BANG) {
      // a comment (no `--` inside, as XML requires); a DOCTYPE or CDATA is left to saxes
      if (!text.startsWith('<!--', lt)) return false;
      const end = text.indexOf('-->', lt + 4);
      if (end < 0 || text.indexOf('--', lt + 4) < end) return false;
      pos = end + 3;
      continue;
    }

    if (c1 === QUESTION || closedRoot || !isNameStart(c1)) return false;

    // an opening tag: its name, its attributes, `>` or `/>`
    let i = lt + 2;
    while (i < length && isNameChar(text.charCodeAt(i))) i++;
    const name = text.slice(lt + 1, i);
    const after = text.charCodeAt(i);
    if (after !== GT && after !== SLASH && !isSpace(after)) return false;
    // where saxes' opentagstart places the element: the character after the name has been read,
    // so a name ended by a line break is on the previous line, at column 1 (and its start is
    // counted back from past the \r\n)
    linesTo(lt);
    let start = lt;
    let at: Position;
    if (after === NL || after === CR) {
      at = { line, col: 1 };
      if (after === CR && text.charCodeAt(i + 1) === NL) start = lt + 1;
    } else {
      at = { line, col: lt - lineStart + 1 };
    }

    let count = 0;
    let selfClosing = false;
    let spaced = true;
    for (;;) {
      const before = i;
      while (i < length && isSpace(text.charCodeAt(i))) i++;
      if (i > before) spaced = true;
      const c = text.charCodeAt(i);
      if (c === GT) {
        i++;
        break;
      }
      if (c === SLASH) {
        if (text.charCodeAt(i + 1) !== GT) return false;
        selfClosing = true;
        i += 2;
        break;
      }
      if (!spaced || !isNameStart(c)) return false;
      const nameStart = i;
      while (i < length && isNameChar(text.charCodeAt(i))) i++;
      const attrName = text.slice(nameStart, i);
      while (i < length && isSpace(text.charCodeAt(i))) i++;
      if (text.charCodeAt(i) !== EQ) return false;
      i++;
      while (i < length && isSpace(text.charCodeAt(i))) i++;
      const quote = text.charCodeAt(i);
      if (quote !== DQUOTE && quote !== SQUOTE) return false;
      const valueStart = i + 1;
      const valueEnd = text.indexOf(quote === DQUOTE ? '"' : "'", valueStart);
      if (valueEnd < 0) return false;
      const value = attributeValue(text, valueStart, valueEnd);
      if (value === undefined) return false;
      for (let a = 0; a < count; a++) if (names[a] === attrName) return false;
      names[count] = attrName;
      values[count] = value;
      count++;
      i = valueEnd + 1;
      spaced = false;
    }

    sawRoot = true;
    open.push(name);
    attributes.count = count;
    sink.openTag(name, start, at, attributes);
    pos = i;
    if (selfClosing) {
      open.pop();
      sink.closeTag(pos);
      if (open.length === 0) closedRoot = true;
    }
  }
  return sawRoot && open.length === 0;
}

/**
 * An attribute value as saxes gives it: entities resolved, each tab or line break (a \r\n is
 * one) a space; undefined when saxes would refuse it (a `<`, an unknown entity).
 */
function attributeValue(text: string, from: number, to: number): string | undefined {
  let out = '';
  let start = from;
  for (let i = from; i < to; i++) {
    const c = text.charCodeAt(i);
    if (c > GT) continue;
    if (c === LT) return undefined;
    if (c === AMP) {
      const e = entityAt(text, i, to);
      if (!e) return undefined;
      out += text.slice(start, i) + e.value;
      i = e.end - 1;
      start = e.end;
    } else if (c === NL || c === TAB || c === CR) {
      out += text.slice(start, i) + ' ';
      if (c === CR && i + 1 < to && text.charCodeAt(i + 1) === NL) i++;
      start = i + 1;
    }
  }
  return start === from ? text.slice(from, to) : out + text.slice(start, to);
}
