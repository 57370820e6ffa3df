/**
 * FHIR's canonical JSON form of a resource (https://hl7.org/fhir/R4/json.html#canonical), the
 * bytes a JSON digital signature covers, as the HL7 validator composes it: no whitespace between
 * tokens, the properties of every object in order of their names (UTF-16 code units, as RFC 8785
 * orders them), numbers as the source wrote them (`1.50` stays `1.50`), strings escaped as JSON
 * requires and no more, and each narrative's `div` written back the way HL7 writes XHTML
 * (checks/xhtml-canonical.ts). What HL7's model holds no element for is not written: a null, an
 * empty array, an object with no content (an item of an array without content is written null,
 * as HL7 writes one; nulls align primitive values with their `_name` extensions).
 *
 * Two methods (Signature.targetFormat's `canonicalization=` value), as HL7 composes them:
 * - `http://hl7.org/fhir/canonicalization/json`: the whole resource but its signature;
 * - `http://hl7.org/fhir/canonicalization/json#document`: nor the Bundle's id and meta either
 *   (a document's identity is Bundle.identifier; id and meta change as it is stored and moved).
 */
import { canonicalXhtml } from '../checks/xhtml-canonical.js';
import { isObject } from './json-value.js';

/** The canonicalizations this module composes. */
export const JSON_CANONICALIZATIONS = ['http://hl7.org/fhir/canonicalization/json', 'http://hl7.org/fhir/canonicalization/json#document'] as const;
export type JsonCanonicalization = (typeof JSON_CANONICALIZATIONS)[number];

/** The source text of a number (a property's or an array item's), when the parser kept it. */
export interface RawNumbers {
  prop(obj: Record<string, unknown>, key: string): string | undefined;
  item(arr: readonly unknown[], index: number): string | undefined;
}

/** Root properties each method leaves out. */
const OMITTED: Readonly<Record<JsonCanonicalization, ReadonlySet<string>>> = {
  'http://hl7.org/fhir/canonicalization/json': new Set(['signature']),
  'http://hl7.org/fhir/canonicalization/json#document': new Set(['signature', 'id', 'meta']),
};

/** The root properties `method` leaves out (the XML form leaves out the same: bundle-signature-content.ts). */
export function omittedBy(method: JsonCanonicalization): ReadonlySet<string> {
  return OMITTED[method];
}

class NoCanonicalForm extends Error {}

/**
 * The canonical JSON text of `resource` under `method` (UTF-8 encode it for the signed bytes);
 * undefined when a narrative has no canonical form here.
 */
export function canonicalJson(resource: Record<string, unknown>, method: JsonCanonicalization, rawNumbers?: RawNumbers): string | undefined {
  try {
    return writeObject(resource, OMITTED[method], rawNumbers) ?? '{}';
  } catch (e) {
    if (e instanceof NoCanonicalForm) return undefined;
    throw e;
  }
}

/** An object's text; undefined when it has nothing but its resourceType (HL7 writes no element without content). */
function writeObject(obj: Record<string, unknown>, omit: ReadonlySet<string> | undefined, rawNumbers: RawNumbers | undefined): string | undefined {
  // default sort: UTF-16 code units, the order RFC 8785 asks for
  const keys = Object.keys(obj).sort();
  const members: string[] = [];
  let content = false;
  for (const key of keys) {
    if (omit?.has(key)) continue;
    const value = obj[key];
    let text: string | undefined;
    if (key === 'div' && typeof value === 'string') {
      const div = canonicalXhtml(value);
      if (div === undefined) throw new NoCanonicalForm();
      text = JSON.stringify(div);
    } else {
      text = typeof value === 'number' ? (rawNumbers?.prop(obj, key) ?? JSON.stringify(value)) : writeValue(value, rawNumbers);
    }
    if (text === undefined) continue;
    members.push(JSON.stringify(key) + ':' + text);
    if (key !== 'resourceType') content = true;
  }
  return content ? '{' + members.join(',') + '}' : undefined;
}

/** A value's text; undefined for what HL7 does not write (null, an empty object or array, an array of nothing but nulls). */
function writeValue(value: unknown, rawNumbers: RawNumbers | undefined): string | undefined {
  if (value === null || value === undefined) return undefined;
  if (Array.isArray(value)) {
    const items: readonly unknown[] = value;
    const texts = items.map((item, i) => (typeof item === 'number' ? (rawNumbers?.item(items, i) ?? JSON.stringify(item)) : writeValue(item, rawNumbers)));
    // an item without content stays as null: it aligns primitive values with their `_name` extensions
    return texts.some((t) => t !== undefined) ? '[' + texts.map((t) => t ?? 'null').join(',') + ']' : undefined;
  }
  if (isObject(value)) return writeObject(value, undefined, rawNumbers);
  return JSON.stringify(value);
}
