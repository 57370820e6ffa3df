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
 * The canonicalization methods this knows (Signature.targetFormat's `canonicalization=` value):
 * - `http://hl7.org/fhir/canonicalization/json`: the whole resource but its signature;
 * - `http://hl7.org/fhir/canonicalization/json#document`: nor the Bundle's id and meta either
 *   (a document's identity is Bundle.identifier; id and meta change as it is stored and moved).
 * Any other method: undefined (no content can be told to have been signed).
 */
import { canonicalXhtml } from '../checks/xhtml-canonical.js';

/** The canonicalizations this module composes. */
export const JSON_CANONICALIZATIONS = ['http://hl7.org/fhir/canonicalization/json', 'http://hl7.org/fhir/canonicalization/json#document'] as const;
export type JsonCanonicalization = (typeof JSON_CANONICALIZATIONS)[number];

export function isJsonCanonicalization(value: string): value is JsonCanonicalization {
  return (JSON_CANONICALIZATIONS as readonly string[]).includes(value);
}

/** The source text of a number in its container (object key or array index), when the parser kept it. */
export type RawNumberLookup = (container: Record<string, unknown> | readonly unknown[], key: string | number) => string | undefined;

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
export function canonicalJson(resource: Record<string, unknown>, method: JsonCanonicalization, rawNumber?: RawNumberLookup): string | undefined {
  try {
    return writeObject(resource, OMITTED[method], rawNumber);
  } catch (e) {
    if (e instanceof NoCanonicalForm) return undefined;
    throw e;
  }
}

function writeObject(obj: Record<string, unknown>, omit: ReadonlySet<string> | undefined, rawNumber: RawNumberLookup | undefined): string {
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
      text = writeValue(value, obj, key, rawNumber);
    }
    out += (first ? '' : ',') + JSON.stringify(key) + ':' + text;
    first = false;
  }
  return out + '}';
}

function writeValue(value: unknown, container: Record<string, unknown> | readonly unknown[], key: string | number, rawNumber: RawNumberLookup | undefined): string {
  if (value === null) return 'null';
  if (typeof value === 'number') return rawNumber?.(container, key) ?? JSON.stringify(value);
  if (typeof value !== 'object') return JSON.stringify(value);
  if (Array.isArray(value)) {
    const items: readonly unknown[] = value;
    return '[' + items.map((item, i) => writeValue(item ?? null, items, i, rawNumber)).join(',') + ']';
  }
  return writeObject(value as Record<string, unknown>, undefined, rawNumber);
}
