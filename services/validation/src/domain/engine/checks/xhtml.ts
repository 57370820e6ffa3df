/**
 * Narrative (xhtml) rules, as the HL7 validator applies them (txt-1 and its XHTML checks): the
 * root is a <div> in the XHTML namespace; only the basic HTML formatting elements are used, each
 * with the global attributes or those that belong to it (a.href, img.src, table.border ...); no
 * DOCTYPE; hyperlink and image URLs are well formed and not `javascript:`; tags balance; internal
 * links (`href="#x"`) land on an anchor or a contained resource.
 *
 * The narrative is read by the linear tokenizer of xhtml-scanner.ts, once per text: the element
 * rules, txt-1, txt-2 and the link check all use the same scan (the last one is kept).
 *
 * Linear in the narrative, whatever its shape (a 360 KB narrative of nested links once took
 * minutes and hundreds of MB): a link's element path is built from at most MAX_PATH_ELEMENTS
 * names, its text from at most MAX_LINK_TEXT characters of the text ranges that follow it (never a
 * copy of the text per open link), and a closing tag finds its element through a per-name index of
 * the open path (never a search of the path).
 */
import type { MessageId } from '../messages.js';
import { scanXhtml, type XhtmlAttribute } from './xhtml-scanner.js';

const XHTML_NS = 'http://www.w3.org/1999/xhtml';

/** The elements of the HL7 validator's narrative allow-list. */
const ALLOWED_ELEMENTS = new Set([
  'p', 'br', 'div', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'a', 'span', 'b', 'em', 'i', 'strong', 'small', 'big', 'tt',
  'dfn', 'q', 'var', 'abbr', 'acronym', 'cite', 'blockquote', 'hr', 'address', 'bdo', 'kbd', 'samp', 'sub', 'sup', 'ul', 'ol',
  'li', 'dl', 'dt', 'dd', 'pre', 'table', 'caption', 'colgroup', 'col', 'thead', 'tr', 'tfoot', 'tbody', 'th', 'td', 'code', 'img',
  'map', 'area',
]);

/** Attributes allowed on any element (besides namespace declarations). */
const GLOBAL_ATTRIBUTES = new Set([
  'title', 'style', 'class', 'id', 'lang', 'xml:lang', 'dir', 'accesskey', 'tabindex',
  'span', 'width', 'align', 'valign', 'char', 'charoff', 'abbr', 'axis', 'headers', 'scope', 'rowspan', 'colspan',
]);

/** Attributes allowed on one element only (`element.attribute`). */
const ELEMENT_ATTRIBUTES = new Set([
  'a.href', 'a.name', 'a.charset', 'a.type', 'a.hreflang', 'a.rel', 'a.rev', 'a.shape', 'a.coords',
  'img.src', 'img.border', 'img.alt', 'img.longdesc', 'img.height', 'img.width', 'img.usemap', 'img.ismap',
  'div.xmlns', 'blockquote.cite', 'q.cite', 'map.name', 'area.shape', 'area.coords', 'area.href', 'area.nohref', 'area.alt',
  'table.summary', 'table.width', 'table.border', 'table.frame', 'table.rules', 'table.cellspacing', 'table.cellpadding',
  'pre.space', 'td.nowrap',
]);

/** Elements that have no content: written `<br>` they open nothing (unless the text closes them too). */
const VOID_ELEMENTS = new Set(['br', 'hr', 'img', 'col']);

/**
 * Longest link text kept (characters, after trimming): longer ones end with `...`. Enough for any
 * real link's label; a bound on what each of many nested unclosed links costs.
 */
export const MAX_LINK_TEXT = 256;
/** Deepest element path spelled out in full; a deeper one keeps its first and last names around `...`. */
export const MAX_PATH_ELEMENTS = 64;

/** Block elements HL7 refuses inside a paragraph (its HTML_BLOCK_LIST; names as written, as HL7 compares them). */
const BLOCK_ELEMENTS: ReadonlySet<string> = new Set(['div', 'blockquote', 'table', 'ol', 'ul', 'p']);

/** URL characters the HL7 validator accepts in a.href and img.src besides letters and digits. */
const URL_PUNCTUATION = new Set(";?:@&=+$.,/%-_~#[]!'()*|");

export interface XhtmlProblem {
  id: MessageId;
  args: unknown[];
}

export interface InternalLink {
  href: string;
  /** Element path in the narrative, as the HL7 validator reports it (`div/table/tr/td/a`). */
  path: string;
  /** The link's text, tags left out. */
  text: string;
}

/** Everything the rules need from one narrative, gathered in one scan. */
export interface NarrativeScan {
  readonly problems: readonly XhtmlProblem[];
  /** `name`/`id` values, the targets of internal links. */
  readonly anchors: ReadonlySet<string>;
  /** `<a href="#...">` links, resolved or not. */
  readonly internalLinks: readonly InternalLink[];
  /** `<img src="#...">` sources, resolved or not. */
  readonly internalImages: readonly string[];
  /** Some non-whitespace text, or an image (txt-2). */
  readonly hasContent: boolean;
}

let lastText: string | undefined;
let lastScan: NarrativeScan | undefined;

/** The scan of a narrative; the last one is kept, since the same text is checked by several rules in a row. */
export function scanNarrative(div: string): NarrativeScan {
  if (div === lastText && lastScan) return lastScan;
  const scan = scan0(div);
  lastText = div;
  lastScan = scan;
  return scan;
}

export function checkXhtml(div: string): readonly XhtmlProblem[] {
  return scanNarrative(div).problems;
}

/** Internal image sources (`src="#x"`) must name a contained resource (or an anchor of the narrative). */
export function unresolvedInternalImages(div: string, containedIds: readonly string[]): string[] {
  const scan = scanNarrative(div);
  if (scan.internalImages.length === 0) return [];
  const contained = new Set(containedIds);
  return scan.internalImages.filter((src) => src === '#' || !(scan.anchors.has(src.slice(1)) || contained.has(src.slice(1))));
}

/**
 * Internal hyperlinks (`href="#x"`) must land on an anchor of the narrative (`name`/`id`) or
 * on a contained resource's id. Each unresolved link comes with its element path in the
 * narrative (`div/table/tr/td/a`), as the HL7 validator reports it.
 */
export function unresolvedInternalLinks(div: string, containedIds: readonly string[]): InternalLink[] {
  const scan = scanNarrative(div);
  if (scan.internalLinks.length === 0) return [];
  const contained = new Set(containedIds);
  const resolves = (id: string) => scan.anchors.has(id) || contained.has(id);
  return scan.internalLinks.filter((link) => {
    const id = link.href.slice(1);
    return !resolves(id) && !resolves(safeDecode(id));
  });
}

function scan0(div: string): NarrativeScan {
  const problems: XhtmlProblem[] = [];
  const anchors = new Set<string>();
  const internalLinks: InternalLink[] = [];
  const internalImages: string[] = [];
  let hasContent = false;
  const stack: string[] = [];
  // path of open elements for link paths: closing pops to the element closed, so stray end tags do not derail it
  const path = new OpenPath();
  // Text of the links still open: the text ranges seen since the first of them opened (start, end
  // pairs into div); each link remembers where its own ranges begin.
  const linkRanges: number[] = [];
  const openLinks: { link: InternalLink; from: number }[] = [];
  const settleLinks = () => {
    settleLinkTexts(div, linkRanges, openLinks);
    openLinks.length = 0;
    linkRanges.length = 0;
  };
  /** Illegal entities reported so far (each once). */
  const entities = new Set<string>();
  let rootSeen = false;
  let done = false; // an unbalanced end tag ends the structural checks (as before: one message)
  let openParagraphs = 0; // <p> elements open around the current point (HL7: no block inside a paragraph)
  const closedByName = new Map<string, boolean>();
  const hasEndTag = (name: string) => {
    let has = closedByName.get(name);
    if (has === undefined) closedByName.set(name, (has = div.includes(`</${name}>`)));
    return has;
  };

  const stop = scanXhtml(div, {
    open(rawName, attributes, selfClosing) {
      const name = rawName.startsWith('xhtml:') ? rawName.slice(6) : rawName;
      const lower = name.toLowerCase();
      if (!rootSeen) {
        rootSeen = true;
        checkRoot(rawName, attributes, problems);
      }
      if (lower === 'img') {
        hasContent = true;
        const src = attributes.find((a) => a.name === 'src')?.value;
        if (src !== undefined && src.startsWith('#')) internalImages.push(src);
      }
      for (const a of attributes) {
        if (a.name === 'id' || a.name === 'name') anchors.add(a.value);
        if (a.value.includes('&')) checkEntities(a.value, 0, a.value.length, problems, entities);
      }
      if (!done) {
        checkElement(name, lower, attributes, problems);
        if (openParagraphs > 0 && BLOCK_ELEMENTS.has(name)) problems.push({ id: 'XHTML_XHTML_ELEMENT_ILLEGAL_IN_PARA', args: [name] });
      }
      if (lower === 'a') {
        const href = attributes.find((a) => a.name === 'href')?.value;
        if (href !== undefined && href.startsWith('#') && href.length > 1) {
          const entry = { link: { href, path: path.render('a'), text: '' }, from: linkRanges.length };
          internalLinks.push(entry.link);
          openLinks.push(entry);
        }
      }
      if (selfClosing) return;
      if (!VOID_ELEMENTS.has(lower)) path.push(name);
      if (done) return;
      if (!VOID_ELEMENTS.has(lower) || hasEndTag(rawName)) {
        stack.push(name);
        if (name === 'p') openParagraphs++;
      }
    },
    close(rawName) {
      const name = rawName.startsWith('xhtml:') ? rawName.slice(6) : rawName;
      path.closeTo(name);
      if (name === 'a' && openLinks.length > 0) settleLinks();
      if (done) return;
      if (name === 'p' && openParagraphs > 0) openParagraphs--;
      if (stack.pop() !== name) {
        problems.push({ id: 'XHTML_INVALID', args: [`unexpected closing tag </${name}>`] });
        done = true;
      }
    },
    text(start, end) {
      if (!rootSeen) {
        if (!isBlank(div, start, end)) {
          problems.push({ id: 'XHTML_INVALID', args: ['the narrative does not start with an element'] });
          rootSeen = true; // no root check for an element further on
          done = true;
        }
        return;
      }
      if (!hasContent && !isBlank(div, start, end)) hasContent = true;
      checkEntities(div, start, end, problems, entities);
      if (openLinks.length > 0 && end > start) linkRanges.push(start, end);
    },
    doctype() {
      problems.push({ id: 'XHTML_DOCTYPE', args: [] });
    },
  });
  settleLinks();
  if (stop) {
    // what follows the broken construct still counts as text for txt-2
    if (!hasContent && !isBlank(div, stop.at, div.length)) hasContent = true;
    if (!done) problems.push({ id: 'XHTML_INVALID', args: [stop.reason] });
  } else if (!rootSeen) {
    if (!done) problems.push({ id: 'XHTML_INVALID', args: ['the narrative does not start with an element'] });
  } else if (!done && stack.length > 0) {
    problems.push({ id: 'XHTML_INVALID', args: [`unclosed element <${stack[stack.length - 1]}>`] });
  }
  return { problems, anchors, internalLinks, internalImages, hasContent };
}

/**
 * The open elements' names, for link paths. Closing an element truncates the path to it (the
 * latest open element of that name); each name keeps the positions it was pushed at, so finding it
 * costs O(1) amortized instead of a search of the path (30,000 stray end tags under 30,000 open
 * elements were 10 s). An entry whose position was truncated away or reused by another name is
 * dropped when met: the topmost valid entry is always the latest (a later push of the same name
 * lands above it).
 */
class OpenPath {
  private readonly names: string[] = [];
  private readonly positions = new Map<string, number[]>();
  /** The first half of a deep path, rendered (reset when the path is cut back into it). */
  private head: string | undefined;

  push(name: string): void {
    let at = this.positions.get(name);
    if (!at) this.positions.set(name, (at = []));
    at.push(this.names.length);
    this.names.push(name);
  }

  /** Truncates to before the latest open `name`; nothing when none is open (a stray end tag). */
  closeTo(name: string): void {
    const at = this.positions.get(name);
    if (!at) return;
    for (let top = at.at(-1); top !== undefined; top = at.at(-1)) {
      if (top < this.names.length && this.names[top] === name) {
        this.names.length = top;
        if (top < MAX_PATH_ELEMENTS / 2) this.head = undefined;
        at.pop();
        return;
      }
      at.pop();
    }
  }

  /** `div/table/tr/td/a`: the open names and `last`; past MAX_PATH_ELEMENTS, the first and last halves around `...`. */
  render(last: string): string {
    const { names } = this;
    if (names.length < MAX_PATH_ELEMENTS) return names.length === 0 ? last : `${names.join('/')}/${last}`;
    const half = MAX_PATH_ELEMENTS / 2;
    // the head stays the same while the path stays deep: joined once
    this.head ??= `${names.slice(0, half).join('/')}/...`;
    let tail = '';
    for (let i = names.length - half + 1; i < names.length; i++) tail += `/${names[i]}`;
    return `${this.head}${tail}/${last}`;
  }
}

/**
 * Gives each open link its text: the text ranges from its own on, trimmed, at most MAX_LINK_TEXT
 * characters (then `...`). Nested links' texts are suffixes of one another, so the ranges are
 * joined once and each link takes a slice of that (where its first non-blank character is, found
 * in one backward pass for all links).
 */
function settleLinkTexts(div: string, ranges: readonly number[], links: readonly { link: InternalLink; from: number }[]): void {
  if (links.length === 0) return;
  const count = ranges.length / 2;
  const pieces: string[] = [];
  for (let k = 0; k < count; k++) pieces.push(div.slice(ranges[2 * k], ranges[2 * k + 1]));
  const all = pieces.join('');
  // textFrom[k]: where, in `all`, the first non-blank character at range k or after is (-1: none)
  const textFrom = new Int32Array(count + 1).fill(-1);
  let offset = all.length;
  for (let k = count - 1; k >= 0; k--) {
    const piece = pieces[k] ?? '';
    offset -= piece.length;
    const first = firstNonBlank(piece, 0, piece.length);
    // -1 (no text at or after this range) is also what the array was filled with
    textFrom[k] = first >= 0 ? offset + first : (textFrom[k + 1] ?? -1);
  }
  const lastText = lastNonBlank(all);
  for (const { link, from } of links) {
    const start = textFrom[from / 2] ?? -1;
    if (start < 0) link.text = '';
    else if (lastText - start < MAX_LINK_TEXT) link.text = all.slice(start, lastText + 1);
    else link.text = `${all.slice(start, start + MAX_LINK_TEXT).trimEnd()}...`;
  }
}

/** The last position of non-blank text, or -1. */
function lastNonBlank(text: string): number {
  for (let i = text.length - 1; i >= 0; i--) if (!isBlank(text, i, i + 1)) return i;
  return -1;
}

/** The first position of non-blank text in [start, end), or -1. */
function firstNonBlank(text: string, start: number, end: number): number {
  for (let i = start; i < end; i++) if (!isBlank(text, i, i + 1)) return i;
  return -1;
}

/** The five entities XML declares; the narrative is XML, so no other named entity is defined in it. */
const XML_ENTITIES = new Set(['quot', 'amp', 'apos', 'lt', 'gt']);

/**
 * Entity references in narrative text (HL7's XhtmlParser in XML mode): numeric references and the
 * five XML entities are fine; any other name (`&nbsp;`, `&reg;`, which only HTML defines) is
 * illegal, each reported once. The reference runs to the first of `; & ' " > <`, as HL7 reads it.
 * What no HTML entity can be named (empty, one character, or with a character other than a letter
 * or digit: `AT&T rocks`, `?a=1&b=2`) is an unescaped `&` that HL7's parser cannot read at all: the
 * narrative is not well formed (once), as when its tags do not balance.
 */
function checkEntities(text: string, start: number, end: number, problems: XhtmlProblem[], reported: Set<string>): void {
  // A scan of [start, end) only: indexOf would search on to the end of the narrative for every text run.
  let i = nextAmpersand(text, start, end);
  while (i < end) {
    let j = i + 1;
    while (j < end && !ENTITY_END.has(text.charCodeAt(j))) j++;
    const name = text.slice(i + 1, j);
    if (!name.startsWith('#') && !XML_ENTITIES.has(name) && !ENTITY_NAME.test(name)) {
      if (!reported.has(UNREADABLE)) {
        reported.add(UNREADABLE);
        problems.push({ id: 'XHTML_INVALID', args: [`unable to parse character reference '${name}'`] });
      }
    } else if (!name.startsWith('#') && !XML_ENTITIES.has(name)) {
      const shown = `&${name};`;
      if (!reported.has(shown)) {
        reported.add(shown);
        problems.push({ id: 'XHTML_XHTML_Entity_Illegal', args: [shown] });
      }
    }
    i = nextAmpersand(text, j, end); // j > i: every step moves on
  }
}

/** A name an HTML entity can have (linear: one character class, anchored). */
const ENTITY_NAME = /^[A-Za-z][A-Za-z0-9]+$/;

/** The key of the one unreadable-reference problem among the reported entities. */
const UNREADABLE = '\u0000unreadable';

/** The first `&` in [from, end), or end. */
function nextAmpersand(text: string, from: number, end: number): number {
  let i = from;
  while (i < end && text.charCodeAt(i) !== 38) i++;
  return i;
}

/** `;`, `&`, `'`, `"`, `>`, `<`: where an entity reference ends. */
const ENTITY_END = new Set([59, 38, 39, 34, 62, 60]);

function checkRoot(rawName: string, attributes: readonly XhtmlAttribute[], problems: XhtmlProblem[]): void {
  if (rawName !== 'div' && rawName !== 'xhtml:div') {
    problems.push({ id: 'XHTML_ROOT', args: [rawName] });
    return;
  }
  const ns = attributes.find((a) => a.name === 'xmlns' || a.name === 'xmlns:xhtml')?.value;
  if (ns !== XHTML_NS) problems.push({ id: 'XHTML_NAMESPACE', args: [ns ?? ''] });
}

function checkElement(name: string, lower: string, attributes: readonly XhtmlAttribute[], problems: XhtmlProblem[]): void {
  if (!ALLOWED_ELEMENTS.has(lower)) {
    problems.push({ id: 'XHTML_ELEMENT', args: [name] });
    return;
  }
  for (const a of attributes) {
    const an = a.name.toLowerCase();
    if (!an.startsWith('xmlns') && !GLOBAL_ATTRIBUTES.has(an) && !ELEMENT_ATTRIBUTES.has(`${lower}.${an}`)) {
      problems.push({ id: 'XHTML_ATTRIBUTE', args: [name, a.name] });
    } else if ((an === 'href' || an === 'src') && (lower === 'a' || lower === 'img' || lower === 'area')) {
      if (isJavascriptUrl(a.value)) problems.push({ id: 'XHTML_ATTRIBUTE', args: [name, a.name] });
      else {
        const why = urlProblem(a.value);
        if (why !== undefined) problems.push({ id: 'XHTML_URL_INVALID', args: [a.value, why] });
      }
    }
  }
}

function isJavascriptUrl(value: string): boolean {
  return value.trimStart().slice(0, 11).toLowerCase() === 'javascript:';
}

/** Why a hyperlink or image URL is not valid (the HL7 validator's character rule), or undefined. */
function urlProblem(value: string): string | undefined {
  if (value.length === 0) return 'URL is empty';
  if (value.startsWith('data:')) return undefined;
  const invalid = new Set<string>();
  let count = 0;
  for (const ch of value) {
    if (isUrlLetterOrDigit(ch) || URL_PUNCTUATION.has(ch)) continue;
    count++;
    invalid.add(`'${ch}'`);
  }
  if (count === 0) return undefined;
  const list = [...invalid].sort().join(',');
  return count === 1 ? `URL contains Invalid Character (${list})` : `URL contains ${count} Invalid Characters (${list})`;
}

// Linear: one character class tested against a single character.
const LETTER_OR_DIGIT = /^[\p{Alphabetic}\p{Nd}]$/u;

function isUrlLetterOrDigit(ch: string): boolean {
  const c = ch.charCodeAt(0);
  if (c < 128) return (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122);
  return LETTER_OR_DIGIT.test(ch);
}

/** Only whitespace (JavaScript's \s: what trim() removes) between start and end. */
function isBlank(text: string, start: number, end: number): boolean {
  for (let i = start; i < end; i++) {
    const c = text.charCodeAt(i);
    if (c === 32 || (c >= 9 && c <= 13)) continue;
    if (c < 128) return false;
    if (c === 0xa0 || c === 0x1680 || (c >= 0x2000 && c <= 0x200a) || c === 0x2028 || c === 0x2029 || c === 0x202f || c === 0x205f || c === 0x3000 || c === 0xfeff) continue;
    return false;
  }
  return true;
}

function safeDecode(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}
