/**
 * A narrative's `div` as the HL7 validator writes it back when it composes a resource in FHIR's
 * canonical JSON form (the content a JSON digital signature covers): the XHTML is read into
 * nodes and written again, so what the text says survives but not how it was spelled. Entities
 * are decoded and re-escaped (`&`, `<`, `>` always; a non-breaking space, `§`, `©`, `™`, `μ` and
 * `®` by their HTML names; a character beyond the basic plane as `&#xHEX;`; a `"` in text as
 * itself), attribute values are written in double quotes with `<`, `>`, `"` and `&` escaped (an
 * empty value reads `null`, as HL7's composer writes it), an element written `<x/>` stays so and
 * one written `<x></x>` stays expanded, and a void HTML element (`br`, `img`, `hr`…) is written
 * `<br/>` without content. Whitespace is kept as written.
 *
 * Where the div holds what this reading does not reproduce the way HL7's does (a comment, CDATA,
 * a processing instruction, a namespace prefix, an HTML entity other than those above, markup
 * that is not well formed), there is no canonical form: undefined, and the caller does not judge
 * a signature on a guess.
 */
import { scanXhtml, type XhtmlAttribute } from './xhtml-scanner.js';

/** Elements HTML closes by themselves: HL7's HTML composer writes them `<x/>`, content dropped. */
const VOID_ELEMENTS = new Set(['area', 'base', 'br', 'col', 'command', 'embed', 'hr', 'img', 'input', 'keygen', 'link', 'menuitem', 'meta', 'param', 'source', 'track', 'wbr']);

/** Named entities read here: XML's five and those HL7's HTML composer writes by name. */
const NAMED_ENTITIES: Readonly<Record<string, string>> = {
  amp: '&', lt: '<', gt: '>', quot: '"', apos: '\'',
  nbsp: '\u00a0', sect: '\u00a7', copy: '\u00a9', trade: '\u2122', mu: '\u03bc', reg: '\u00ae',
};

/** Characters HL7's HTML composer writes as named entities in text. */
const TEXT_ENTITIES: Readonly<Record<string, string>> = {
  '&': '&amp;', '<': '&lt;', '>': '&gt;',
  '\u00a0': '&nbsp;', '\u00a7': '&sect;', '\u00a9': '&copy;', '\u2122': '&trade;', '\u03bc': '&mu;', '\u00ae': '&reg;',
};

const ATTRIBUTE_ENTITIES: Readonly<Record<string, string>> = { '<': '&lt;', '>': '&gt;', '"': '&quot;', '&': '&amp;' };

/** Thrown inside the scan when the div holds what has no canonical form here. */
class NoCanonicalForm extends Error {}

/** Decodes entity and character references; throws NoCanonicalForm on one not read here. */
function decode(text: string): string {
  if (!text.includes('&')) return text;
  let out = '';
  let i = 0;
  while (i < text.length) {
    const amp = text.indexOf('&', i);
    if (amp < 0) break;
    out += text.slice(i, amp);
    const semi = text.indexOf(';', amp + 1);
    // a reference is short; a bare `&` has no canonical reading here
    if (semi < 0 || semi - amp > 12) throw new NoCanonicalForm();
    const name = text.slice(amp + 1, semi);
    let ch: string | undefined;
    if (name.startsWith('#x') || name.startsWith('#X')) ch = fromCodePoint(name.slice(2), 16);
    else if (name.startsWith('#')) ch = fromCodePoint(name.slice(1), 10);
    else ch = Object.hasOwn(NAMED_ENTITIES, name) ? NAMED_ENTITIES[name] : undefined;
    if (ch === undefined) throw new NoCanonicalForm();
    out += ch;
    i = semi + 1;
  }
  return out + text.slice(i);
}

function fromCodePoint(digits: string, radix: 10 | 16): string | undefined {
  // linear: anchored, one character class
  if (!(radix === 16 ? /^[0-9A-Fa-f]{1,6}$/ : /^[0-9]{1,7}$/).test(digits)) return undefined;
  const cp = Number.parseInt(digits, radix);
  return cp > 0 && cp <= 0x10ffff ? String.fromCodePoint(cp) : undefined;
}

function escapeText(text: string): string {
  let out = '';
  for (const ch of text) {
    const cp = ch.codePointAt(0) ?? 0;
    if (cp > 0xffff) out += `&#x${cp.toString(16).toUpperCase()};`;
    else out += TEXT_ENTITIES[ch] ?? ch;
  }
  return out;
}

function attributes(list: readonly XhtmlAttribute[]): string {
  let out = '';
  for (const a of list) {
    if (a.name.includes(':') && !a.name.startsWith('xmlns:') && a.name !== 'xml:lang') throw new NoCanonicalForm();
    const value = decode(a.value);
    const escaped = value === '' ? 'null' : value.replace(/[<>"&]/g, (c) => ATTRIBUTE_ENTITIES[c] ?? c);
    out += ` ${a.name}="${escaped}"`;
  }
  return out;
}

/** The div as HL7's canonical JSON composer writes it; undefined where that cannot be told here. */
export function canonicalXhtml(div: string): string | undefined {
  if (div.includes('<!') || div.includes('<?')) return undefined;
  let out = '';
  /** Depth inside a void element written without its content (0: writing). */
  let skipping = 0;
  const open: string[] = [];
  try {
    const error = scanXhtml(div, {
      open(name, attrs, selfClosing) {
        if (name.includes(':')) throw new NoCanonicalForm();
        if (skipping > 0) {
          if (!selfClosing) skipping++;
          return;
        }
        if (selfClosing || VOID_ELEMENTS.has(name)) {
          out += `<${name}${attributes(attrs)}/>`;
          if (!selfClosing) skipping = 1;
          return;
        }
        out += `<${name}${attributes(attrs)}>`;
        open.push(name);
      },
      close(name) {
        if (skipping > 0) {
          skipping--;
          return;
        }
        if (open.pop() !== name) throw new NoCanonicalForm();
        out += `</${name}>`;
      },
      text(start, end) {
        if (skipping === 0) out += escapeText(decode(div.slice(start, end)));
      },
      doctype() {
        throw new NoCanonicalForm();
      },
    });
    if (error !== undefined || open.length > 0 || skipping > 0) return undefined;
  } catch (e) {
    if (e instanceof NoCanonicalForm) return undefined;
    throw e;
  }
  return out;
}
