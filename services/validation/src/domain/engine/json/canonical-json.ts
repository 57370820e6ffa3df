/**
 * FHIR's canonical JSON form of a resource (https://hl7.org/fhir/R4/json.html#canonical), the
 * bytes a JSON digital signature covers, as the HL7 validator composes it: no whitespace between
 * tokens, the properties of every object in order of their names (UTF-16 code units, as RFC 8785
 * orders them), numbers as the source wrote them (`1.50` stays `1.50`), strings escaped as JSON
 * requires and no more, and each narrative's `div` written back the way HL7 writes XHTML
 * (checks/xhtml-canonical.ts). A property whose value is null, or an empty array, is not written
 * (HL7 reads neither into its model); nulls inside an array of primitives stay (they align the
 * values with their `_name` extensions).
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

class NoCanonicalForm extends Error {}

/**
 * The canonical JSON text of `resource` under `method` (UTF-8 encode it for the signed bytes);
 * undefined when a narrative has no canonical form here.
 */
export function canonicalJson(resource: Record<string, unknown>, method: JsonCanonicalization, rawNumbers?: RawNumbers): string | undefined {
  try {
    return writeObject(resource, OMITTED[method], rawNumbers);
  } catch (e) {
    if (e instanceof NoCanonicalForm) return undefined;
    throw e;
  }
}

function writeObject(obj: Record<string, unknown>, omit: ReadonlySet<string> | undefined, rawNumbers: RawNumbers | undefined): string {
  // default sort: UTF-16 code units, the order RFC 8785 asks for
  const keys = Object.keys(obj).sort();
  let out = '{';
  let first = true;
  for (const key of keys) {
    if (omit?.has(key)) continue;
    const value = obj[key];
    if (value === null || value === undefined || (Array.isArray(value) && value.length === 0)) continue;
    let text: string;
    if (key === 'div' && typeof value === 'string') {
      const div = canonicalXhtml(value);
      if (div === undefined) throw new NoCanonicalForm();
      text = JSON.stringify(div);
    } else {
      text = typeof value === 'number' ? (rawNumbers?.prop(obj, key) ?? JSON.stringify(value)) : writeValue(value, rawNumbers);
    }
    out += (first ? '' : ',') + JSON.stringify(key) + ':' + text;
    first = false;
  }
  return out + '}';
}

function writeValue(value: unknown, rawNumbers: RawNumbers | undefined): string {
  if (value === null || value === undefined) return 'null';
  if (Array.isArray(value)) {
    const items: readonly unknown[] = value;
    return '[' + items.map((item, i) => (typeof item === 'number' ? (rawNumbers?.item(items, i) ?? JSON.stringify(item)) : writeValue(item, rawNumbers))).join(',') + ']';
  }
  if (isObject(value)) return writeObject(value, undefined, rawNumbers);
  return JSON.stringify(value);
}
