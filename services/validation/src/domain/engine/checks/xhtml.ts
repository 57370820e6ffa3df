/**
 * Narrative (xhtml) rules, as the HL7 validator applies them (txt-1 and its XHTML checks): the
 * root is a <div> in the XHTML namespace; only the basic HTML formatting elements are used, each
 * with the global attributes or those that belong to it (a.href, img.src, table.border ...); no
 * DOCTYPE; hyperlink and image URLs are well formed and not `javascript:`; tags balance; internal
 * links (`href="#x"`) land on an anchor or a contained resource.
 *
 * The narrative is read by the linear tokenizer of xhtml-scanner.ts, once per text: the element
 * rules, txt-1, txt-2 and the link check all use the same scan (the last one is kept).
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
  let hasContent = false;
  const stack: string[] = [];
  // path of open elements for link paths: closing pops to the element closed, so stray end tags do not derail it
  const path: string[] = [];
  const openLinks: { link: InternalLink; text: string[] }[] = [];
  /** Illegal entities reported so far (each once). */
  const entities = new Set<string>();
  let rootSeen = false;
  let done = false; // an unbalanced end tag ends the structural checks (as before: one message)
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
      if (lower === 'img') hasContent = true;
      for (const a of attributes) {
        if (a.name === 'id' || a.name === 'name') anchors.add(a.value);
        if (a.value.includes('&')) checkEntities(a.value, 0, a.value.length, problems, entities);
      }
      if (!done) checkElement(name, lower, attributes, problems);
      if (lower === 'a') {
        const href = attributes.find((a) => a.name === 'href')?.value;
        if (href !== undefined && href.startsWith('#') && href.length > 1) {
          const entry = { link: { href, path: [...path, 'a'].join('/'), text: '' }, text: [] as string[] };
          internalLinks.push(entry.link);
          openLinks.push(entry);
        }
      }
      if (selfClosing) return;
      if (!VOID_ELEMENTS.has(lower)) path.push(name);
      if (done) return;
      if (!VOID_ELEMENTS.has(lower) || hasEndTag(rawName)) stack.push(name);
    },
    close(rawName) {
      const name = rawName.startsWith('xhtml:') ? rawName.slice(6) : rawName;
      const at = path.lastIndexOf(name);
      if (at >= 0) path.length = at;
      if (name === 'a' && openLinks.length > 0) {
        for (const open of openLinks) open.link.text = open.text.join('').trim();
        openLinks.length = 0;
      }
      if (done) return;
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
      if (openLinks.length > 0) {
        const piece = div.slice(start, end);
        for (const open of openLinks) open.text.push(piece);
      }
    },
    doctype() {
      problems.push({ id: 'XHTML_DOCTYPE', args: [] });
    },
  });
  for (const open of openLinks) open.link.text = open.text.join('').trim();
  if (stop) {
    // what follows the broken construct still counts as text for txt-2
    if (!hasContent && !isBlank(div, stop.at, div.length)) hasContent = true;
    if (!done) problems.push({ id: 'XHTML_INVALID', args: [stop.reason] });
  } else if (!rootSeen) {
    if (!done) problems.push({ id: 'XHTML_INVALID', args: ['the narrative does not start with an element'] });
  } else if (!done && stack.length > 0) {
    problems.push({ id: 'XHTML_INVALID', args: [`unclosed element <${stack[stack.length - 1]}>`] });
  }
  return { problems, anchors, internalLinks, hasContent };
}

/** The five entities XML declares; the narrative is XML, so no other named entity is defined in it. */
const XML_ENTITIES = new Set(['quot', 'amp', 'apos', 'lt', 'gt']);

/**
 * Entity references in narrative text (HL7's XhtmlParser in XML mode): numeric references and the
 * five XML entities are fine; any other name (`&nbsp;`, `&reg;`, which only HTML defines) is
 * illegal, each reported once. The reference runs to the first of `; & ' " > <`, as HL7 reads it.
 */
function checkEntities(text: string, start: number, end: number, problems: XhtmlProblem[], reported: Set<string>): void {
  let i = text.indexOf('&', start);
  while (i >= 0 && i < end) {
    let j = i + 1;
    while (j < end && !ENTITY_END.has(text.charCodeAt(j))) j++;
    const name = text.slice(i + 1, j);
    if (!name.startsWith('#') && !XML_ENTITIES.has(name)) {
      const shown = `&${name};`;
      if (!reported.has(shown)) {
        reported.add(shown);
        problems.push({ id: 'XHTML_XHTML_Entity_Illegal', args: [shown] });
      }
    }
    i = text.indexOf('&', j); // j > i: every step moves on
  }
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
