/**
 * The resources behind the definition index (parsed from packed JSON on first use) and the
 * candidates for one canonical URL: which version, from which package, in which load order.
 */
import type { CanonicalResource } from '../../ports/conformance-resources.js';
import type { ResourceMeta } from './definition-index-types.js';
import { compareVersions } from './versions.js';
import { isCanonicalResource } from '../../ports/conformance-resources.js';

/** Parses resources from the packed JSON on first use and keeps them. */
export class ResourceStore {
  private packed: { blob: Uint8Array; offsets: Uint32Array } | undefined;

  constructor(
    readonly meta: ResourceMeta[],
    private readonly objects: (CanonicalResource | undefined)[],
    packed?: { blob: Uint8Array; offsets: Uint32Array },
  ) {
    this.packed = packed;
  }

  get(i: number): CanonicalResource {
    let r = this.objects[i];
    if (r === undefined) {
      if (!this.packed) throw new Error(`definition index state has neither the object nor packed JSON for resource ${String(i)}`);
      const { blob, offsets } = this.packed;
      const start = offsets[i];
      const end = offsets[i + 1];
      if (start === undefined || end === undefined) throw new Error(`definition index state has no offsets for resource ${i}`);
      const parsed: unknown = JSON.parse(Buffer.from(blob.buffer, blob.byteOffset + start, end - start).toString('utf8'));
      if (!isCanonicalResource(parsed)) throw new Error(`definition index state holds no resource at ${String(i)}`);
      r = parsed;
      this.objects[i] = r;
    }
    return r;
  }

  pack(): { blob: Uint8Array; offsets: Uint32Array } {
    if (!this.packed) {
      const parts: Buffer[] = [];
      const offsets = new Uint32Array(this.meta.length + 1);
      let pos = 0;
      for (let i = 0; i < this.meta.length; i++) {
        const part = Buffer.from(JSON.stringify(this.get(i)), 'utf8');
        offsets[i] = pos;
        pos += part.length;
        parts.push(part);
      }
      offsets[this.meta.length] = pos;
      this.packed = { blob: Buffer.concat(parts, pos), offsets };
    }
    return this.packed;
  }
}

export class Candidate {
  /** The resource, once read from the store (or as given, for a scope's extra resource). */
  private object: CanonicalResource | undefined = undefined;

  constructor(
    private readonly store: ResourceStore | undefined,
    readonly slot: number,
    readonly version: string | undefined,
    /** -1: loose; -2: scope extra resource. */
    readonly pkg: number,
    readonly order: number,
  ) {}

  /** A scope's extra resource: held as given, in no store and no package. */
  static extra(resource: CanonicalResource, version: string | undefined, order: number): Candidate {
    const candidate = new Candidate(undefined, -1, version, -2, order);
    candidate.object = resource;
    return candidate;
  }

  get resource(): CanonicalResource {
    if (this.object) return this.object;
    if (!this.store) throw new Error(`candidate ${String(this.slot)} has neither a resource nor a store`);
    this.object = this.store.get(this.slot);
    return this.object;
  }
}

export function pick(list: Candidate[] | undefined, version: string | undefined, visible: (c: Candidate) => boolean): CanonicalResource | undefined {
  if (!list) return undefined;
  if (version === undefined || version === '') return list.find(visible)?.resource;
  const exact = list.find((c) => c.version === version && visible(c));
  if (exact) return exact.resource;
  const prefix = `${version}.`;
  let best: Candidate | undefined;
  for (const c of list) {
    const v = c.version;
    if (typeof v === 'string' && v.startsWith(prefix) && visible(c) && (!best || compareVersions(v, best.version) > 0)) best = c;
  }
  return best?.resource;
}

export function metaOf(r: CanonicalResource): ResourceMeta {
  const meta: ResourceMeta = { resourceType: r.resourceType };
  if (typeof r.url === 'string') meta.url = r.url;
  if (typeof r.version === 'string') meta.version = r.version;
  if (r.resourceType === 'StructureDefinition') {
    if (typeof r.type === 'string') meta.type = r.type;
    if (typeof r.kind === 'string') meta.kind = r.kind;
    if (typeof r.derivation === 'string') meta.derivation = r.derivation;
  }
  return meta;
}

export function addCandidate(table: Map<string, Map<string, Candidate[]>>, type: string, url: string, c: Candidate): void {
  let byUrl = table.get(type);
  if (!byUrl) table.set(type, (byUrl = new Map()));
  const list = byUrl.get(url);
  if (list) list.push(c);
  else byUrl.set(url, [c]);
}

export function cloneTable(table: Map<string, Map<string, Candidate[]>>): Map<string, Map<string, Candidate[]>> {
  return new Map([...table].map(([k, v]) => [k, new Map([...v].map(([u, l]) => [u, [...l]]))]));
}
