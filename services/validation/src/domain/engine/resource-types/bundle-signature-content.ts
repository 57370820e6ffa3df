/**
 * What a Bundle's digital signature covers, as the HL7 validator's BundleValidator composes it
 * to check a signature against: the Bundle in FHIR's canonical form, JSON or XML, by the
 * canonicalization method the signature names.
 *
 * - The method: the one the signature itself states (a JWS header's `canon`, an XML DSig's first
 *   Transform), else targetFormat's `canonicalization` parameter, else FHIR's JSON or XML one
 *   (by targetFormat's media type), with `#document` for a document Bundle. JSON or XML: the
 *   media type's, unless the signature states the method (then the method's name says).
 * - The content: the Bundle without its signature, and (a method ending `#document`) without its
 *   id and meta either. JSON: json/canonical-json.ts. XML: the Bundle written as FHIR XML
 *   (xml/compose-xml.ts, numbers as their source wrote them, no element without content) and
 *   canonicalized (XML-C14N 1.0, xml/c14n.ts).
 *
 * Undefined where the content cannot be composed as HL7 composes it (a narrative this cannot
 * write back, XHTML that is not XML).
 */
import type { NodeContext } from '../context/node-context.js';
import { canonicalJson, omittedBy } from '../json/canonical-json.js';
import { isObject } from '../json/json-value.js';
import { canonicalize, parseXmlTree } from '../xml/c14n.js';
import { composeXml } from '../xml/compose-xml.js';

const CANONICALIZATION = 'canonicalization';
const DOCUMENT = '#document';

export interface SignedContentMethod {
  /** The canonicalization method's url. */
  readonly method: string;
  /** Whether the content is FHIR XML (else JSON). */
  readonly xml: boolean;
}

/** The method of a signature: `stated` by the signature itself, else from targetFormat, else the default. */
export function signedContentMethod(stated: unknown, targetFormat: unknown, bundleType: unknown): SignedContentMethod {
  let xml = false;
  let fromTarget: string | undefined;
  if (typeof targetFormat === 'string') {
    const [base, ...params] = targetFormat.split(';');
    xml = (base ?? '').includes('xml');
    for (const p of params) {
      const eq = p.indexOf('=');
      if (eq > 0 && p.slice(0, eq).trim() === CANONICALIZATION) fromTarget = p.slice(eq + 1).trim();
    }
  }
  if (typeof stated === 'string') return { method: stated, xml: stated.includes('xml') };
  const method = fromTarget ?? `http://hl7.org/fhir/canonicalization/${xml ? 'xml' : 'json'}${bundleType === 'document' ? DOCUMENT : ''}`;
  return { method, xml };
}

/** The bytes the signature covers, composed from the Bundle; undefined when they cannot be composed here. */
export function signedContent(ctx: NodeContext, bundle: Record<string, unknown>, how: SignedContentMethod): Buffer | undefined {
  const document = how.method.endsWith(DOCUMENT);
  const run = ctx.run;
  if (!how.xml) {
    const text = canonicalJson(bundle, document ? 'http://hl7.org/fhir/canonicalization/json#document' : 'http://hl7.org/fhir/canonicalization/json', {
      prop: (obj, k) => run.rawNumber(undefined, obj, k, -1),
      item: (arr, i) => run.rawNumber(arr, {}, '', i),
    });
    return text === undefined ? undefined : Buffer.from(text, 'utf8');
  }
  const content = modelContent(bundle, omittedBy(document ? 'http://hl7.org/fhir/canonicalization/json#document' : 'http://hl7.org/fhir/canonicalization/json'), (container, key) => (Array.isArray(container) ? run.rawNumber(container, {}, '', Number(key)) : isObject(container) ? run.rawNumber(undefined, container, String(key), -1) : undefined));
  if (!isObject(content)) return undefined;
  const tree = parseXmlTree(composeXml(content, ctx.services.plans));
  return tree === undefined ? undefined : Buffer.from(canonicalize(tree, false), 'utf8');
}

/**
 * A copy of `value` as HL7's model holds it, for writing as XML: no null, empty array or object
 * without content (an array keeps its positions, null where an item has none), numbers as the
 * source wrote them; `omit` names root properties left out.
 */
function modelContent(value: unknown, omit: ReadonlySet<string>, rawNumber: (container: unknown, key: string | number) => string | undefined): unknown {
  const copy = (v: unknown, container: unknown, key: string | number): unknown => {
    if (v === null || v === undefined) return undefined;
    if (typeof v === 'number') return rawNumber(container, key) ?? v;
    if (Array.isArray(v)) {
      const items: readonly unknown[] = v;
      const out = items.map((item, i) => copy(item, items, i) ?? null);
      return out.some((x) => x !== null) ? out : undefined;
    }
    if (isObject(v)) return copyObject(v, undefined);
    return v;
  };
  const copyObject = (obj: Record<string, unknown>, skip: ReadonlySet<string> | undefined): Record<string, unknown> | undefined => {
    const out: Record<string, unknown> = {};
    let content = false;
    for (const [k, v] of Object.entries(obj)) {
      if (skip?.has(k)) continue;
      const c = copy(v, obj, k);
      if (c === undefined) continue;
      out[k] = c;
      if (k !== 'resourceType') content = true;
    }
    return content ? out : undefined;
  };
  return isObject(value) ? copyObject(value, omit) : undefined;
}

/** A count as the HL7 validator's messages print one (`13,051`). */
export function groupDigits(n: number): string {
  return DIGIT_GROUPS.format(n);
}

const DIGIT_GROUPS = new Intl.NumberFormat('en-US', { useGrouping: true, maximumFractionDigits: 0 });
