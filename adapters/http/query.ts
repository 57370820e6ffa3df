import { HttpProblem } from './problem.js';

/** `req.query` as express 5 parses it. */
export type Query = Readonly<Record<string, unknown>>;

/** A query parameter given at most once as plain text; repeated or nested forms are refused. */
export function singleQueryValue(query: Query, name: string): string | undefined {
  const value = query[name];
  if (value === undefined) return undefined;
  if (typeof value !== 'string') {
    throw HttpProblem.badRequest(`Query parameter ${name} must be given once`, [{ field: name, message: 'must be given once' }]);
  }
  return value;
}

/** An integer query parameter; undefined when absent or empty. */
export function integerQueryValue(query: Query, name: string, range?: { readonly min: number; readonly max: number }): number | undefined {
  const raw = singleQueryValue(query, name)?.trim();
  if (raw === undefined || raw === '') return undefined;
  // An integer too large to hold exactly is out of the range, which is what the caller needs to hear.
  if (range && /^[+-]?\d+$/.test(raw) && !Number.isSafeInteger(Number(raw))) {
    throw HttpProblem.badRequest(`Query parameter ${name} must be between ${range.min} and ${range.max}; got "${raw.slice(0, 40)}"`,
      [{ field: name, message: `must be between ${range.min} and ${range.max}` }]);
  }
  if (!/^[+-]?\d+$/.test(raw) || !Number.isSafeInteger(Number(raw))) {
    throw HttpProblem.badRequest(`Query parameter ${name} must be an integer; got "${raw.slice(0, 40)}"`,
      [{ field: name, message: 'must be an integer' }]);
  }
  return Number(raw);
}
