/**
 * The small FHIRPath subset that slicing discriminators use: dotted names, `$this`,
 * `extension('url')`, `ofType(T)`, `resolve()` (a Reference's target in the containing
 * resource or Bundle, through `resolver`; a resource is itself) and choice names (`value`
 * finds `valueQuantity`).
 */

/** Resolves a literal reference where the item being sliced sits (contained, Bundle). */
export interface ReferenceResolver {
  resolveReference(ref: string): unknown;
}
function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** One step of a discriminator path, parsed once per path. */
interface Segment {
  /** `name`: a property (or choice) name; `extension`: extension('url'); `ofType`: ofType(T); `skip`: $this, ''; `resolve`. */
  kind: 'name' | 'extension' | 'ofType' | 'skip' | 'resolve';
  /** The name, the extension url or the type. */
  arg: string;
}

const cache = new Map<string, Segment[]>();

function segmentsOf(path: string): Segment[] {
  let s = cache.get(path);
  if (!s) {
    const raw: string[] = [];
    let depth = 0;
    let start = 0;
    for (let i = 0; i < path.length; i++) {
      const c = path[i];
      if (c === '(') depth++;
      else if (c === ')') depth--;
      else if (c === '.' && depth === 0) {
        raw.push(path.slice(start, i));
        start = i + 1;
      }
    }
    raw.push(path.slice(start));
    s = raw.map(parseSegment);
    cache.set(path, s);
  }
  return s;
}

function parseSegment(seg: string): Segment {
  if (seg === '$this' || seg === '') return { kind: 'skip', arg: '' };
  if (seg === 'resolve()') return { kind: 'resolve', arg: '' };
  // linear (both): anchored, `.+` gives back characters until the fixed ending fits
  const ext = /^extension\(['"](.+)['"]\)$/.exec(seg);
  if (ext) return { kind: 'extension', arg: ext[1] ?? '' };
  const ofType = /^ofType\((.+)\)$/.exec(seg);
  if (ofType) return { kind: 'ofType', arg: ofType[1] ?? '' };
  return { kind: 'name', arg: seg };
}

/**
 * The items the discriminator path selects in `value`. With `types`, the type each item has
 * by its JSON name when the last step is a choice (`valueQuantity` → `Quantity`), else ''.
 */
export function evaluateDiscriminatorPath(value: unknown, path: string, resolver?: ReferenceResolver, types?: string[]): unknown[] {
  let current: unknown[] = value === undefined ? [] : [value];
  const segments = segmentsOf(path);
  for (let si = 0; si < segments.length; si++) {
    const segment = segments[si];
    if (segment === undefined) break;
    const { kind, arg: seg } = segment;
    if (kind === 'skip') continue;
    if (kind === 'resolve') {
      current = resolveAll(current, resolver);
      continue;
    }
    const typed = types !== undefined && si === segments.length - 1;
    const next: unknown[] = [];
    for (const c of current) {
      if (!isObject(c)) continue;
      if (kind === 'extension') {
        const list = c.extension;
        if (Array.isArray(list)) for (const e of list) if (isObject(e) && e.url === seg) next.push(e);
        continue;
      }
      if (kind === 'ofType') {
        if (c.resourceType === seg || !('resourceType' in c)) next.push(c);
        continue;
      }
      const direct = c[seg];
      if (direct !== undefined) {
        if (Array.isArray(direct)) next.push(...direct);
        else next.push(direct);
        if (typed) while (types.length < next.length) types.push('');
        continue;
      }
      // choice: `value` matches valueX
      for (const k in c) {
        if (k.length > seg.length && k.startsWith(seg) && k.charCodeAt(seg.length) >= 65 && k.charCodeAt(seg.length) <= 90) {
          const v = c[k];
          if (Array.isArray(v)) next.push(...v);
          else next.push(v);
          if (typed) while (types.length < next.length) types.push(k.slice(seg.length));
        }
      }
    }
    if (typed) while (types.length < next.length) types.push('');
    current = next;
  }
  return current;
}

/** `resolve()`: a Reference becomes its target when it resolves; a resource stays itself. */
function resolveAll(items: unknown[], resolver: ReferenceResolver | undefined): unknown[] {
  const out: unknown[] = [];
  for (const c of items) {
    if (!isObject(c)) continue;
    if (typeof c.resourceType === 'string') out.push(c);
    else if (typeof c.reference === 'string' && resolver) {
      const target = resolver.resolveReference(c.reference);
      if (target !== undefined) out.push(target);
    }
  }
  return out;
}
