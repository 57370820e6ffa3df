/**
 * A ConformanceResourceSource made of loose resources (a test's supporting files, the CLI's
 * --load files, RESOURCE artifacts) layered over another source (core + packages). Loose
 * resources win. StructureDefinitions that carry only a differential get a snapshot generated
 * on first use, so differential-only profiles validate like any other.
 */
import type { CanonicalResource, ConformanceResourceSource } from '../ports/conformance-resources.js';
import { SnapshotGenerator, type SnapshotMessage } from './definitions/snapshot-generator.js';
import { isObject } from './json/json-value.js';

type Kind = 'StructureDefinition' | 'ValueSet' | 'CodeSystem';

const EMPTY: ConformanceResourceSource = {
  structureDefinition: () => undefined,
  valueSet: () => undefined,
  codeSystem: () => undefined,
  all: () => [],
};

export class LayeredConformanceSource implements ConformanceResourceSource {
  private readonly byKind = new Map<string, Map<string, CanonicalResource>>();
  private readonly lists = new Map<string, CanonicalResource[]>();
  private readonly snapshots: SnapshotGenerator;
  private readonly withSnapshots = new Map<string, CanonicalResource | null>();
  /** Problems met while generating snapshots (for diagnostics). */
  readonly snapshotMessages: SnapshotMessage[] = [];

  constructor(resources: Iterable<CanonicalResource> = [], private readonly base: ConformanceResourceSource = EMPTY) {
    for (const r of resources) this.add(r);
    this.snapshots = new SnapshotGenerator({ structureDefinition: (c) => this.rawStructureDefinition(c) });
  }

  add(resource: CanonicalResource): void {
    const kind = resource.resourceType;
    let m = this.byKind.get(kind);
    if (!m) this.byKind.set(kind, (m = new Map()));
    let list = this.lists.get(kind);
    if (!list) this.lists.set(kind, (list = []));
    list.push(resource);
    if (typeof resource.url === 'string') {
      m.set(resource.url, resource);
      if (resource.version) m.set(`${resource.url}|${resource.version}`, resource);
    }
    if (kind === 'StructureDefinition' && typeof resource.id === 'string' && !m.has(resource.id)) m.set(resource.id, resource);
    this.withSnapshots.clear();
  }

  private local(kind: Kind, canonical: string): CanonicalResource | undefined {
    return versionMatch(this.byKind.get(kind), canonical);
  }

  private rawStructureDefinition(canonical: string): CanonicalResource | undefined {
    return this.local('StructureDefinition', canonical) ?? this.base.structureDefinition(canonical);
  }

  structureDefinition(canonical: string): CanonicalResource | undefined {
    let hit = this.withSnapshots.get(canonical);
    if (hit !== undefined) return hit ?? undefined;
    const raw = this.rawStructureDefinition(canonical);
    hit = raw ?? null;
    if (raw) {
      const els = isObject(raw.snapshot) ? raw.snapshot.element : undefined;
      if (!Array.isArray(els) || els.length === 0) {
        try {
          const result = this.snapshots.generate(raw);
          this.snapshotMessages.push(...result.messages);
          hit = result.elements.length ? result.structureDefinition : raw;
        } catch (e) {
          this.snapshotMessages.push({ severity: 'error', message: `${canonical}: ${e instanceof Error ? e.message : String(e)}` });
          hit = raw;
        }
      }
    }
    this.withSnapshots.set(canonical, hit);
    return hit ?? undefined;
  }

  valueSet(canonical: string): CanonicalResource | undefined {
    return this.local('ValueSet', canonical) ?? this.base.valueSet(canonical);
  }

  codeSystem(canonical: string): CanonicalResource | undefined {
    return this.local('CodeSystem', canonical) ?? this.base.codeSystem(canonical);
  }

  /** Any canonical resource by type (Questionnaire, Measure, ...): loose first, then the base when it can. */
  resolve(resourceType: string, canonical: string): CanonicalResource | undefined {
    const local = versionMatch(this.byKind.get(resourceType), canonical);
    if (local) return local;
    try {
      return this.base.resolve?.(resourceType, canonical);
    } catch {
      return undefined;
    }
  }

  implementationGuides(): Iterable<CanonicalResource> {
    return this.lists.get('ImplementationGuide') ?? [];
  }

  *all(resourceType: Kind): Iterable<CanonicalResource> {
    yield* this.lists.get(resourceType) ?? [];
    yield* this.base.all(resourceType);
  }
}

/**
 * `url` or `url|version` among loose resources: the exact version, else the resource of that url
 * when its version starts with the one asked for (FHIR's partial-version rule, `1.0` → `1.0.2`)
 * or it has none. Another version is not a match (the layer below may have it).
 */
function versionMatch(m: Map<string, CanonicalResource> | undefined, canonical: string): CanonicalResource | undefined {
  if (!m) return undefined;
  const exact = m.get(canonical);
  if (exact) return exact;
  const bar = canonical.indexOf('|');
  if (bar < 0) return undefined;
  const byUrl = m.get(canonical.slice(0, bar));
  const version = canonical.slice(bar + 1);
  if (!byUrl) return undefined;
  return byUrl.version === undefined || version === '' || byUrl.version.startsWith(version + '.') ? byUrl : undefined;
}
