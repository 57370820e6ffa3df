/**
 * Value comparisons for fixed[x] (exact equality) and pattern[x] (the instance contains at
 * least what the pattern says; arrays: every pattern item matches some instance item).
 */
export function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== typeof b || a === null || b === null || typeof a !== 'object') return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) {
    const bb = b as unknown[];
    if (a.length !== bb.length) return false;
    for (let i = 0; i < a.length; i++) if (!deepEqual(a[i], bb[i])) return false;
    return true;
  }
  const ao = a as Record<string, unknown>;
  const bo = b as Record<string, unknown>;
  const ak = Object.keys(ao);
  if (ak.length !== Object.keys(bo).length) return false;
  for (const k of ak) if (!deepEqual(ao[k], bo[k])) return false;
  return true;
}

export function matchesPattern(value: unknown, pattern: unknown): boolean {
  if (pattern === null || typeof pattern !== 'object') return value === pattern;
  if (Array.isArray(pattern)) {
    if (!Array.isArray(value)) return pattern.length === 1 && matchesPattern(value, pattern[0]);
    return pattern.every((p) => value.some((v) => matchesPattern(v, p)));
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return false;
  const v = value as Record<string, unknown>;
  for (const k in pattern as Record<string, unknown>) {
    const p = (pattern as Record<string, unknown>)[k];
    if (!(k in v)) return false;
    if (!matchesPattern(v[k], p)) return false;
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
