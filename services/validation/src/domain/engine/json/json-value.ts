/** Small questions about parsed JSON values that every part of the walk asks. */

export function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** A JSON value's kind as the HL7 validator words it in shape errors ("an Array", "a Null"). */
export function jsonKind(v: unknown): string {
  if (v === null) return 'a Null';
  if (Array.isArray(v)) return 'an Array';
  switch (typeof v) {
    case 'string': return 'a String';
    case 'number': return 'a Number';
    case 'boolean': return 'a Boolean';
    default: return 'an Object';
  }
}

/** An array, its elements unknown (`Array.isArray` alone narrows to `any[]`); no copy, no cast. */
export function isArray(v: unknown): v is readonly unknown[] {
  return Array.isArray(v);
}

/** The value when it is a string, else undefined. */
export function str(v: unknown): string | undefined {
  return typeof v === 'string' ? v : undefined;
}

