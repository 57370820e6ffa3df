import { HttpProblem } from '#adapters/http/index.js';

/** `true`/`false` (any case) or absent; anything else is a 400 naming the parameter. */
export function booleanQuery(query: Readonly<Record<string, unknown>>, name: string): boolean {
  const value = query[name];
  if (value === undefined || value === '') return false;
  if (typeof value === 'string') {
    const lower = value.toLowerCase();
    if (lower === 'true') return true;
    if (lower === 'false') return false;
  }
  throw HttpProblem.badRequest(`Query parameter ${name} must be true or false`, [{ field: name, message: 'must be true or false' }]);
}
