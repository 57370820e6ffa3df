/**
 * A stored text column that holds one of a fixed set of words (a CHECK constraint or the writer
 * keeps it so), read back as that word's type; a value outside the set is a corrupt row, refused
 * here rather than passed on under a type it does not have.
 */
export function storedMember<const V extends string>(values: readonly V[], value: string, column: string): V {
  const known = values.find((member) => member === value);
  if (known === undefined) throw new Error(`${column} holds ${JSON.stringify(value)}, which is not one of ${values.join(', ')}`);
  return known;
}
