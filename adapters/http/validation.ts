import type { z } from 'zod';
import { HttpProblem, type FieldError } from './problem.js';

/** `a.b[0].c`; the root (the whole body) is `(root)`. */
export function fieldPath(path: readonly PropertyKey[]): string {
  let text = '';
  for (const segment of path) {
    if (typeof segment === 'number') text += `[${segment}]`;
    else text += text === '' ? String(segment) : `.${String(segment)}`;
  }
  return text === '' ? '(root)' : text;
}

export function zodFieldErrors(error: z.ZodError): FieldError[] {
  return error.issues.map((issue) => ({ field: fieldPath(issue.path), message: issue.message }));
}

function parseWith<S extends z.ZodType>(schema: S, value: unknown, what: string): z.output<S> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const errors = zodFieldErrors(result.error);
  const [first] = errors;
  const more = errors.length > 1 ? ` (and ${errors.length - 1} more)` : '';
  // zod reports at least one issue when parsing fails.
  throw HttpProblem.badRequest(`${what} is invalid${first ? `: ${first.field}: ${first.message}` : ''}${more}`, errors);
}

/** Validates a request body; 400 Problem Details listing every field path and message. */
export function parseBody<S extends z.ZodType>(schema: S, body: unknown): z.output<S> {
  return parseWith(schema, body, 'Request body');
}

/** Validates `req.query` (strings; use `z.coerce` for numbers). */
export function parseQuery<S extends z.ZodType>(schema: S, query: unknown): z.output<S> {
  return parseWith(schema, query, 'Query');
}

/** Validates `req.params`. */
export function parseParams<S extends z.ZodType>(schema: S, params: unknown): z.output<S> {
  return parseWith(schema, params, 'Path parameters');
}
