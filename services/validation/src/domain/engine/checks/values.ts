/**
 * Value comparisons for fixed[x] (exact equality) and pattern[x] (the instance contains at
 * least what the pattern says; arrays: every pattern item matches some instance item).
 */
import { isArray, isObject } from '../json/json-value.js';

export function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (isArray(a)) {
    if (!isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!deepEqual(a[i], b[i])) return false;
    return true;
  }
  if (!isObject(a) || !isObject(b)) return false;
  const ak = Object.keys(a);
  if (ak.length !== Object.keys(b).length) return false;
  for (const k of ak) if (!deepEqual(a[k], b[k])) return false;
  return true;
}

export function matchesPattern(value: unknown, pattern: unknown): boolean {
  if (pattern === null || typeof pattern !== 'object') return value === pattern;
  if (isArray(pattern)) {
    if (!Array.isArray(value)) return pattern.length === 1 && matchesPattern(value, pattern[0]);
    return pattern.every((p) => value.some((v) => matchesPattern(v, p)));
  }
  if (!isObject(value) || !isObject(pattern)) return false;
  for (const k in pattern) {
    const p = pattern[k];
    if (!(k in value)) return false;
    if (!matchesPattern(value[k], p)) return false;
  }
  return true;
}

/** A short rendering of a value for messages. */
export function describeValue(v: unknown): string {
  if (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean') return String(v);
  try {
    const s = JSON.stringify(v);
    return s.length > 200 ? s.slice(0, 197) + '...' : s;
  } catch {
    return String(v);
  }
}
