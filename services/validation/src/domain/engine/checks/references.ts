/**
 * Reference helpers: collecting the local references of a resource (contained-resource rules),
 * parsing a reference string into type/id, and a fullUrl index built once per Bundle so
 * resolution inside a 100,000-entry Bundle stays linear.
 */
import { isObject } from '../json/json-value.js';

// Linear: anchored; the type is letters up to '/', which it cannot match, and the ids are at most 64 characters.
const RELATIVE = /^([A-Z][A-Za-z]+)\/([A-Za-z0-9\-.]{1,64})(\/_history\/[A-Za-z0-9\-.]{1,64})?$/;
// Linear: as RELATIVE after a base; `.+\/` gives back one character at a time, and only at a '/' does the rest
// get tried, over the next segments and at most 64 + 74 characters: each character is revisited a bounded number of times.
const ABSOLUTE = /^(https?:\/\/.+\/)?([A-Z][A-Za-z]+)\/([A-Za-z0-9\-.]{1,64})(\/_history\/[A-Za-z0-9\-.]{1,64})?$/;

export interface ParsedReference {
  kind: 'local' | 'relative' | 'absolute' | 'urn' | 'other';
  type?: string;
  id?: string;
  base?: string;
}

export function parseReference(ref: string): ParsedReference {
  if (ref.startsWith('#')) return { kind: 'local', id: ref.slice(1) };
  if (ref.startsWith('urn:uuid:') || ref.startsWith('urn:oid:')) return { kind: 'urn' };
  let m = RELATIVE.exec(ref);
  if (m) return { kind: 'relative', type: m[1], id: m[2] };
  m = ABSOLUTE.exec(ref);
  if (m) return { kind: 'absolute', type: m[2], id: m[3], base: m[1] };
  return { kind: 'other' };
}

/** Whether a resolved resource has the version a `/_history/` reference names. */
export function hasVersion(resource: Record<string, unknown> | undefined, version: string): boolean {
  const meta = resource?.meta;
  return isObject(meta) && meta.versionId === version;
}

export interface BundleEntryInfo {
  index: number;
  fullUrl: string | undefined;
  resource: Record<string, unknown> | undefined;
}

/** fullUrl → entries, and "Type/id" → entries; built once per Bundle. */
export class BundleIndex {
  readonly byFullUrl = new Map<string, BundleEntryInfo[]>();
  readonly byTypeAndId = new Map<string, BundleEntryInfo[]>();

  /** `entries`: the Bundle's entries (kept for what is looked for across them, e.g. an id a `#` URL names). */
  constructor(readonly entries: readonly unknown[], readonly type?: string) {
    entries.forEach((e, index) => {
      if (!isObject(e)) return;
      const entry = e;
      const fullUrl = typeof entry.fullUrl === 'string' ? entry.fullUrl : undefined;
      const resource = isObject(entry.resource) ? entry.resource : undefined;
      const info: BundleEntryInfo = { index, fullUrl, resource };
      if (fullUrl) push(this.byFullUrl, fullUrl, info);
      if (resource && typeof resource.resourceType === 'string' && typeof resource.id === 'string') {
        push(this.byTypeAndId, `${resource.resourceType}/${resource.id}`, info);
      }
    });
  }

  /** Resolve a reference made from the entry whose fullUrl is `from`. */
  resolve(ref: string, from: string | undefined): BundleEntryInfo[] {
    const direct = this.byFullUrl.get(ref);
    if (direct) return direct;
    const parsed = parseReference(ref);
    if (parsed.kind === 'relative' && from) {
      // relative to the referring entry's base (RESTful fullUrls)
      // linear: at each '/' that `.+` gives back, the rest covers the next two segments only
      const m = /^(https?:\/\/.+\/)[A-Z][A-Za-z]+\/[^/]+$/.exec(from);
      if (m) {
        const hit = this.byFullUrl.get(String(m[1]) + ref);
        if (hit) return hit;
      } else if (from.startsWith('urn:uuid:')) {
        // from an entry named by a UUID, the HL7 validator takes `Type/id` to name the entry
        // `urn:uuid:id` and nothing else (not another entry of that type and id)
        return this.byFullUrl.get('urn:uuid:' + String(parsed.id)) ?? [];
      }
    }
    if (parsed.kind === 'relative' || parsed.kind === 'absolute') {
      return this.byTypeAndId.get(`${String(parsed.type)}/${String(parsed.id)}`) ?? [];
    }
    return [];
  }
}

function push<K, V>(m: Map<K, V[]>, k: K, v: V): void {
  const list = m.get(k);
  if (list) list.push(v);
  else m.set(k, [v]);
}

/**
 * Every string that starts with '#' (references, canonicals and uris to contained resources),
 * as dom-3 counts them.
 */
export function collectLocalReferences(root: unknown, out: Set<string>): void {
  const stack: unknown[] = [root];
  while (stack.length) {
    const v = stack.pop();
    if (typeof v === 'string') {
      if (v.charCodeAt(0) === 35) out.add(v);
    } else if (Array.isArray(v)) {
      for (const x of v) stack.push(x);
    } else if (isObject(v)) {
      for (const k in v) stack.push(v[k]);
    }
  }
}
