/**
 * Narrative (xhtml) safety: the element and attribute allow-list of the FHIR narrative rules
 * (txt-1), checked with a small tag scanner. It is not a full XML parser; it finds what the
 * HL7 validator reports: unknown or active elements (script, iframe, object, ...), event
 * handler attributes, a root that is not <div>, and unbalanced tags.
 */
import type { MessageId } from '../messages.js';

const ALLOWED_ELEMENTS = new Set([
  'p', 'br', 'div', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'a', 'span', 'b', 'em', 'i', 'strong', 'small', 'big', 'tt', 'small',
  'dfn', 'q', 'var', 'abbr', 'acronym', 'cite', 'blockquote', 'hr', 'address', 'bdo', 'kbd', 'samp', 'sub', 'sup', 'ul', 'ol',
  'li', 'dl', 'dt', 'dd', 'pre', 'table', 'caption', 'colgroup', 'col', 'thead', 'tr', 'tfoot', 'tbody', 'th', 'td', 'code', 'img',
]);
const ALLOWED_ATTRIBUTES = new Set([
  'title', 'style', 'class', 'id', 'lang', 'xml:lang', 'dir', 'accesskey', 'tabindex', 'rowspan', 'colspan', 'align',
  'valign', 'span', 'width', 'height', 'border', 'cellspacing', 'cellpadding', 'summary', 'frame', 'rules', 'abbr', 'axis',
  'headers', 'scope', 'char', 'charoff', 'href', 'name', 'src', 'alt', 'xmlns', 'start', 'type', 'value', 'cite', 'datetime',
  'xmlns:xhtml', 'compact', 'hreflang', 'rel', 'rev', 'shape', 'coords', 'longdesc', 'usemap', 'bgcolor',
]);

export interface XhtmlProblem {
  id: MessageId;
  args: unknown[];
}

const TAG = /<(\/?)([A-Za-z][\w:.-]*)((?:\s+[^\s=/>]+(?:\s*=\s*(?:"[^"]*"|'[^']*'|[^\s>]+))?)*)\s*(\/?)>/g;
const ATTR = /([^\s=/>]+)(?:\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>]+)))?/g;

export function checkXhtml(div: string): XhtmlProblem[] {
  const problems: XhtmlProblem[] = [];
  const text = div.replace(/<!--[\s\S]*?-->/g, '').replace(/<\?[\s\S]*?\?>/g, '').trim();
  const first = /^<([A-Za-z][\w:.-]*)/.exec(text);
  if (!first) {
    problems.push({ id: 'XHTML_INVALID', args: ['the narrative does not start with an element'] });
    return problems;
  }
  if (first[1] !== 'div' && first[1] !== 'xhtml:div') problems.push({ id: 'XHTML_ROOT', args: [first[1]] });
  else {
    const ns = /^<[^>]*\sxmlns(?::xhtml)?\s*=\s*["']([^"']*)["']/.exec(text)?.[1];
    if (ns !== 'http://www.w3.org/1999/xhtml') problems.push({ id: 'XHTML_NAMESPACE', args: [ns ?? ''] });
  }
  const stack: string[] = [];
  TAG.lastIndex = 0;
  let m: RegExpExecArray | null;
  while ((m = TAG.exec(text)) !== null) {
    const closing = m[1] === '/';
    const name = m[2].startsWith('xhtml:') ? m[2].slice(6) : m[2];
    const selfClosing = m[4] === '/';
    if (!ALLOWED_ELEMENTS.has(name.toLowerCase())) {
      if (!closing) problems.push({ id: 'XHTML_ELEMENT', args: [name] });
    } else if (!closing) {
      ATTR.lastIndex = 0;
      let a: RegExpExecArray | null;
      const attrs = m[3];
      while ((a = ATTR.exec(attrs)) !== null) {
        const an = a[1].toLowerCase();
        const value = a[2] ?? a[3] ?? a[4] ?? '';
        if (!ALLOWED_ATTRIBUTES.has(an) && !an.startsWith('xmlns')) problems.push({ id: 'XHTML_ATTRIBUTE', args: [name, a[1]] });
        else if ((an === 'href' || an === 'src') && /^\s*javascript:/i.test(value)) problems.push({ id: 'XHTML_ATTRIBUTE', args: [name, a[1]] });
      }
    }
    if (selfClosing) continue;
    if (closing) {
      const top = stack.pop();
      if (top !== name) {
        problems.push({ id: 'XHTML_INVALID', args: [`unexpected closing tag </${name}>`] });
        return problems;
      }
    } else if (!['br', 'hr', 'img', 'col'].includes(name.toLowerCase()) || text.includes(`</${m[2]}>`)) {
      stack.push(name);
    }
  }
  if (stack.length > 0) problems.push({ id: 'XHTML_INVALID', args: [`unclosed element <${stack[stack.length - 1]}>`] });
  return problems;
}

/**
 * Internal hyperlinks (`href="#x"`) must land on an anchor of the narrative (`name`/`id`) or
 * on a contained resource's id. Each unresolved link comes with its element path in the
 * narrative (`div/table/tr/td/a`), as the HL7 validator reports it.
 */
export function unresolvedInternalLinks(div: string, containedIds: readonly string[]): { href: string; path: string; text: string }[] {
  if (!div.includes('href="#') && !div.includes("href='#")) return [];
  const targets = new Set<string>(containedIds);
  for (const m of div.matchAll(/\s(?:name|id)\s*=\s*["']([^"']*)["']/g)) targets.add(m[1]);
  const out: { href: string; path: string; text: string }[] = [];
  const stack: string[] = [];
  const tag = /<(\/?)([A-Za-z][\w:.-]*)([^>]*?)(\/?)>/g;
  let m: RegExpExecArray | null;
  while ((m = tag.exec(div)) !== null) {
    const name = m[2].startsWith('xhtml:') ? m[2].slice(6) : m[2];
    if (m[1] === '/') {
      const at = stack.lastIndexOf(name);
      if (at >= 0) stack.length = at;
      continue;
    }
    if (name === 'a') {
      const href = /\shref\s*=\s*["']#([^"']*)["']/.exec(m[3])?.[1];
      if (href !== undefined && href !== '' && !targets.has(href) && !targets.has(safeDecode(href))) {
        const end = div.indexOf('</a>', tag.lastIndex);
        const text = (end >= 0 ? div.slice(tag.lastIndex, end) : '').replace(/<[^>]*>/g, '').trim();
        out.push({ href: '#' + href, path: [...stack, 'a'].join('/'), text });
      }
    }
    if (m[4] !== '/' && !['br', 'hr', 'img', 'col'].includes(name.toLowerCase())) stack.push(name);
  }
  return out;
}

function safeDecode(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}
