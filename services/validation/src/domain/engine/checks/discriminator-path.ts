/**
 * The small FHIRPath subset that slicing discriminators use: dotted names, `$this`,
 * `extension('url')`, `ofType(T)`, `resolve()` (entry resources are already inline in
 * Bundles, so it is the identity here) and choice names (`value` finds `valueQuantity`).
 */
function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

const cache = new Map<string, string[]>();

function segmentsOf(path: string): string[] {
  let s = cache.get(path);
  if (!s) {
    s = [];
    let depth = 0;
    let start = 0;
    for (let i = 0; i < path.length; i++) {
      const c = path[i];
      if (c === '(') depth++;
      else if (c === ')') depth--;
      else if (c === '.' && depth === 0) {
        s.push(path.slice(start, i));
        start = i + 1;
      }
    }
    s.push(path.slice(start));
    cache.set(path, s);
  }
  return s;
}

export function evaluateDiscriminatorPath(value: unknown, path: string): unknown[] {
  let current: unknown[] = value === undefined ? [] : [value];
  for (const seg of segmentsOf(path)) {
    if (seg === '$this' || seg === '' || seg === 'resolve()') continue;
    const next: unknown[] = [];
    // linear (both): anchored, `.+` gives back characters until the fixed ending fits
    const ext = /^extension\(['"](.+)['"]\)$/.exec(seg);
    const ofType = /^ofType\((.+)\)$/.exec(seg);
    for (const c of current) {
      if (!isObject(c)) continue;
      if (ext) {
        const list = c.extension;
        if (Array.isArray(list)) for (const e of list) if (isObject(e) && e.url === ext[1]) next.push(e);
        continue;
      }
      if (ofType) {
        const t = ofType[1];
        if (c.resourceType === t || !('resourceType' in c)) next.push(c);
        continue;
      }
      const direct = c[seg];
      if (direct !== undefined) {
        if (Array.isArray(direct)) next.push(...direct);
        else next.push(direct);
        continue;
      }
      // choice: `value` matches valueX
      for (const k in c) {
        if (k.length > seg.length && k.startsWith(seg) && k.charCodeAt(seg.length) >= 65 && k.charCodeAt(seg.length) <= 90) {
          const v = c[k];
          if (Array.isArray(v)) next.push(...v);
          else next.push(v);
        }
      }
    }
    current = next;
  }
  return current;
}
