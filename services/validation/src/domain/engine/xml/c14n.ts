/**
 * Canonical XML (W3C XML-C14N 1.0, http://www.w3.org/TR/2001/REC-xml-c14n-20010315, and
 * Exclusive XML Canonicalization 1.0, http://www.w3.org/2001/10/xml-exc-c14n#), both without
 * comments: the bytes an XML digital signature digests and signs. An element is written with a
 * start and an end tag (never `<x/>`), its namespace declarations first (the default one, then by
 * prefix) and then its attributes by namespace URI and local name, text with `&`, `<`, `>` and CR
 * escaped, attribute values in double quotes with `&`, `<`, `"`, TAB, LF and CR escaped; comments
 * dropped, a namespace declaration written only where the output does not already have it in
 * effect (exclusive: only where the element or one of its attributes uses it).
 *
 * The XML is read into a small tree (saxes: no DTD, XML's five entities only) so that a subtree
 * can be canonicalized in the namespace context of its ancestors, as a signature's
 * SignedProperties is. Undefined where the text is not well-formed XML.
 */
import { SaxesParser } from 'saxes';

export interface XmlElement {
  readonly name: string;
  readonly attributes: readonly { readonly name: string; readonly value: string }[];
  readonly children: (XmlElement | string)[];
  readonly parent: XmlElement | undefined;
}

const XML_NS = 'http://www.w3.org/XML/1998/namespace';

/** The document element of `xml`; undefined when it is not well-formed. */
export function parseXmlTree(xml: string): XmlElement | undefined {
  const parser = new SaxesParser({ xmlns: false, position: false });
  let root: XmlElement | undefined;
  let current: XmlElement | undefined;
  const state = { failed: false };
  parser.on('error', () => {
    state.failed = true;
  });
  parser.on('doctype', () => {
    state.failed = true;
  });
  parser.on('opentag', (tag) => {
    const el: XmlElement = { name: tag.name, attributes: Object.entries(tag.attributes).map(([name, value]) => ({ name, value })), children: [], parent: current };
    if (current) current.children.push(el);
    else root ??= el;
    current = el;
  });
  parser.on('closetag', () => {
    current = current?.parent;
  });
  const text = (t: string) => {
    if (current) current.children.push(t);
  };
  parser.on('text', text);
  parser.on('cdata', text);
  try {
    parser.write(xml).close();
  } catch {
    return undefined;
  }
  return state.failed ? undefined : root;
}

/** The child elements of `el` with this local name (a prefix is not looked at, as HL7's look-ups do not). */
export function childrenNamed(el: XmlElement | undefined, localName: string): XmlElement[] {
  if (!el) return [];
  return el.children.filter((c): c is XmlElement => typeof c !== 'string' && localOf(c.name) === localName);
}

export function childNamed(el: XmlElement | undefined, localName: string): XmlElement | undefined {
  return childrenNamed(el, localName)[0];
}

/** The text content of an element (its descendants' text, in order). */
export function textOf(el: XmlElement | undefined): string | undefined {
  if (!el) return undefined;
  let out = '';
  const stack: (XmlElement | string)[] = [...el.children].reverse();
  for (let n = stack.pop(); n !== undefined; n = stack.pop()) {
    if (typeof n === 'string') out += n;
    else for (const c of [...n.children].reverse()) stack.push(c);
  }
  return out;
}

export function attributeOf(el: XmlElement | undefined, name: string): string | undefined {
  return el?.attributes.find((a) => a.name === name)?.value;
}

function localOf(name: string): string {
  const colon = name.indexOf(':');
  return colon < 0 ? name : name.slice(colon + 1);
}

function prefixOf(name: string): string {
  const colon = name.indexOf(':');
  return colon < 0 ? '' : name.slice(0, colon);
}

/** Namespace declarations of an element: prefix ('' for the default) → URI. */
function declarations(el: XmlElement): Map<string, string> {
  const m = new Map<string, string>();
  for (const a of el.attributes) {
    if (a.name === 'xmlns') m.set('', a.value);
    else if (a.name.startsWith('xmlns:')) m.set(a.name.slice(6), a.value);
  }
  return m;
}

/** The namespaces in scope at `el` (its own declarations and its ancestors'). */
function inScope(el: XmlElement): Map<string, string> {
  const chain: XmlElement[] = [];
  for (let e: XmlElement | undefined = el; e; e = e.parent) chain.push(e);
  const m = new Map<string, string>();
  for (const e of chain.reverse()) for (const [p, uri] of declarations(e)) m.set(p, uri);
  return m;
}

function escapeText(s: string): string {
  return s.replace(/[&<>\r]/g, (c) => (c === '&' ? '&amp;' : c === '<' ? '&lt;' : c === '>' ? '&gt;' : '&#xD;'));
}

function escapeAttribute(s: string): string {
  return s.replace(/[&<"\t\n\r]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '"': '&quot;', '\t': '&#x9;', '\n': '&#xA;', '\r': '&#xD;' })[c] ?? c);
}

/**
 * `el` and its content canonicalized in the namespace context of its ancestors: inclusive (all
 * namespaces in scope rendered at `el`) or exclusive (only those visibly used).
 */
export function canonicalize(el: XmlElement, exclusive: boolean): string {
  let out = '';
  /** Work: an element with the namespaces its output parent has in effect, or text to write. */
  type Work = { el: XmlElement; rendered: ReadonlyMap<string, string> } | { text: string };
  const work: Work[] = [{ el, rendered: new Map([['', '']]) }];
  for (let w = work.pop(); w !== undefined; w = work.pop()) {
    if ('text' in w) {
      out += w.text;
      continue;
    }
    const e = w.el;
    const own = declarations(e);
    // the namespaces in effect here (for the subtree root, its ancestors' too)
    const effective = inScope(e);
    const used = new Set<string>([prefixOf(e.name)]);
    for (const a of e.attributes) if (!a.name.startsWith('xmlns') && a.name.includes(':')) used.add(prefixOf(a.name));
    const candidates = exclusive ? [...used] : [...new Set([...effective.keys(), ...own.keys()])];
    const rendered = new Map(w.rendered);
    const nsOut: [string, string][] = [];
    for (const p of candidates) {
      if (p === 'xml') continue;
      const uri = effective.get(p) ?? '';
      if ((rendered.get(p) ?? (p === '' ? '' : undefined)) === uri) continue;
      if (p !== '' && uri === '') continue;
      nsOut.push([p, uri]);
      rendered.set(p, uri);
    }
    nsOut.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    const attrs = e.attributes
      .filter((a) => a.name !== 'xmlns' && !a.name.startsWith('xmlns:'))
      .map((a) => ({ ...a, uri: a.name.includes(':') ? (prefixOf(a.name) === 'xml' ? XML_NS : (effective.get(prefixOf(a.name)) ?? '')) : '', local: localOf(a.name) }))
      .sort((a, b) => (a.uri !== b.uri ? (a.uri < b.uri ? -1 : 1) : a.local < b.local ? -1 : a.local > b.local ? 1 : 0));
    out += `<${e.name}`;
    for (const [p, uri] of nsOut) out += p === '' ? ` xmlns="${escapeAttribute(uri)}"` : ` xmlns:${p}="${escapeAttribute(uri)}"`;
    for (const a of attrs) out += ` ${a.name}="${escapeAttribute(a.value)}"`;
    out += '>';
    work.push({ text: `</${e.name}>` });
    for (const c of [...e.children].reverse()) work.push(typeof c === 'string' ? { text: escapeText(c) } : { el: c, rendered });
  }
  return out;
}
