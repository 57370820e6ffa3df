import { HttpProblem, integerQueryValue, singleQueryValue, type Query } from '#adapters/http/index.js';

/** `true`/`false` (any case); anything else is a 400 naming the parameter. */
export function booleanQueryValue(query: Query, name: string): boolean | undefined {
  const raw = singleQueryValue(query, name)?.trim().toLowerCase();
  if (raw === undefined || raw === '') return undefined;
  if (raw === 'true') return true;
  if (raw === 'false') return false;
  throw HttpProblem.badRequest(`Query parameter ${name} must be true or false`, [{ field: name, message: 'must be true or false' }]);
}

/** An integer within [min, max]; out of range is a 400 naming the parameter. */
export function rangedIntegerQueryValue(query: Query, name: string, min: number, max: number): number | undefined {
  const value = integerQueryValue(query, name);
  if (value !== undefined && (value < min || value > max)) {
    throw HttpProblem.badRequest(`Query parameter ${name} must be between ${min} and ${max}; got ${value}`,
      [{ field: name, message: `must be between ${min} and ${max}` }]);
  }
  return value;
}

/** Free text filter; at most `maxLength` characters so a filter cannot be abused as a payload. */
export function textQueryValue(query: Query, name: string, maxLength = 200): string | undefined {
  const raw = singleQueryValue(query, name);
  if (raw === undefined || raw.trim() === '') return undefined;
  if (raw.length > maxLength) {
    throw HttpProblem.badRequest(`Query parameter ${name} must be at most ${maxLength} characters`, [{ field: name, message: `must be at most ${maxLength} characters` }]);
  }
  return raw.trim();
}

export const toDomainOrder = (order: 'asc' | 'desc'): 'Ascending' | 'Descending' => (order === 'asc' ? 'Ascending' : 'Descending');
