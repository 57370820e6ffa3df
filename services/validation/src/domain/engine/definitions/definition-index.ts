/**
 * The engine's one place to look up conformance resources: R4 core plus IG packages plus loose
 * resources, indexed by canonical URL and `url|version`, built once and then read-only.
 *
 * Several versions of one package may be loaded side by side. A plain lookup returns the
 * preferred candidate (see `compareCandidates`); `scoped()` gives a cheap view that pins package
 * versions and layers extra resources on top, so two facilities can be validated against two
 * versions of one IG in the same process without rebuilding anything.
 */
import type { CanonicalResource, ConformanceResourceSource } from '../../ports/conformance-resources.js';
import { addCandidate, Candidate, cloneTable, metaOf, pick, ResourceStore } from './candidates.js';
import {
  R4_CORE_PACKAGE,
  type BuildDefinitionIndexInput,
  type DefinitionIndexState,
  type DefinitionWarning,
  type DependencyStatus,
  type IndexedResourceType,
  type PackageDetails,
  type PackageRecord,
  type PackageRef,
  type ResourceOrigin,
  type ScopeOptions,
} from './definition-index-types.js';
import { compareVersions, fhirFamily } from './versions.js';

// what importers of this module have always found here
export { R4_CORE_PACKAGE } from './definition-index-types.js';
export type * from './definition-index-types.js';
export { compareVersions } from './versions.js';

/** The Maps, shared by the index and all its scoped views. */
interface IndexTables {
  state: Omit<DefinitionIndexState, 'blob' | 'offsets'>;
  store: ResourceStore;
  byTypeAndUrl: Map<string, Map<string, Candidate[]>>;
  byTypeName: Map<string, Candidate[]>;
  packageIdsByName: Map<string, number[]>;
  sameFhirFamily: boolean[];
  warnings: DefinitionWarning[];
}

interface Scope {
  excluded: Set<number> | undefined;
  pinned: Set<number> | undefined;
  extra: Map<string, Map<string, Candidate[]>> | undefined;
  warnings: DefinitionWarning[];
}

const CORE_SD_PREFIX = 'http://hl7.org/fhir/StructureDefinition/';

export class DefinitionIndex implements ConformanceResourceSource {
  private constructor(
    private readonly tables: IndexTables,
    private readonly scope: Scope,
  ) {}

  static build(input: BuildDefinitionIndexInput): DefinitionIndex {
    const packages: PackageRecord[] = [];
    const objects: CanonicalResource[] = [];
    const resourcePackage: number[] = [];
    const seenPackages = new Set<string>();
    const buildWarnings: DefinitionWarning[] = [];
    for (const pkg of input.packages) {
      const id = `${pkg.name}#${pkg.version}`;
      if (seenPackages.has(id)) {
        buildWarnings.push({ package: id, code: 'duplicate-package', message: `package ${id} given twice; the second copy is ignored` });
        continue;
      }
      seenPackages.add(id);
      const pkgIndex = packages.length;
      packages.push({ name: pkg.name, version: pkg.version, fhirVersion: pkg.fhirVersion, manifest: pkg.manifest, resourceCounts: pkg.resourceCounts, warnings: pkg.warnings });
      for (const r of pkg.resources) {
        objects.push(r);
        resourcePackage.push(pkgIndex);
      }
    }
    for (const r of input.resources ?? []) {
      objects.push(r);
      resourcePackage.push(-1);
    }
    const state = { formatVersion: 2 as const, fhirVersion: input.fhirVersion ?? '4.0.1', packages, resources: objects.map(metaOf), resourcePackage };
    return DefinitionIndex.create(state, new ResourceStore(state.resources, objects), buildWarnings);
  }

  /** Rebuilds the lookup tables over a state (read back from the start-up cache, or posted to a worker). */
  static fromState(state: DefinitionIndexState, extraWarnings: DefinitionWarning[] = []): DefinitionIndex {
    if (state.formatVersion !== 2) throw new Error(`unsupported definition index state format ${String(state.formatVersion)}`);
    if (state.offsets.length !== state.resources.length + 1) throw new Error('definition index state is inconsistent (offsets)');
    const { blob, offsets, ...rest } = state;
    return DefinitionIndex.create(rest, new ResourceStore(state.resources, new Array(state.resources.length), { blob, offsets }), extraWarnings);
  }

  /**
   * The same state with its JSON in a SharedArrayBuffer: posting it to worker threads then
   * shares the bytes instead of copying them.
   */
  static shareState(state: DefinitionIndexState): DefinitionIndexState {
    if (typeof SharedArrayBuffer !== 'undefined' && state.blob.buffer instanceof SharedArrayBuffer) return state;
    const shared = new Uint8Array(new SharedArrayBuffer(state.blob.byteLength));
    shared.set(state.blob);
    return { ...state, blob: shared };
  }

  private static create(state: IndexTables['state'], store: ResourceStore, extraWarnings: DefinitionWarning[]): DefinitionIndex {
    const family = fhirFamily(state.fhirVersion);
    const sameFhirFamily = state.packages.map((p) => fhirFamily(p.fhirVersion) === family);
    const packageIdsByName = new Map<string, number[]>();
    state.packages.forEach((p, i) => {
      const list = packageIdsByName.get(p.name) ?? [];
      list.push(i);
      packageIdsByName.set(p.name, list);
    });
    const byTypeAndUrl = new Map<string, Map<string, Candidate[]>>();
    const byTypeName = new Map<string, Candidate[]>();
    const { resources, resourcePackage } = state;
    for (const [i, meta] of resources.entries()) {
      const pkg = resourcePackage[i];
      if (pkg === undefined) throw new Error('definition index state is inconsistent (resourcePackage)');
      const candidate = new Candidate(store, i, meta.version, pkg, i);
      if (meta.url !== undefined) addCandidate(byTypeAndUrl, meta.resourceType, meta.url, candidate);
      // The base definition of a type is the one whose URL is the core URL of its type name.
      if (meta.resourceType === 'StructureDefinition' && meta.type !== undefined && meta.url === CORE_SD_PREFIX + meta.type) {
        const list = byTypeName.get(meta.type) ?? [];
        list.push(candidate);
        byTypeName.set(meta.type, list);
      }
    }
    const tables: IndexTables = { state, store, byTypeAndUrl, byTypeName, packageIdsByName, sameFhirFamily, warnings: [] };
    const index = new DefinitionIndex(tables, { excluded: undefined, pinned: undefined, extra: undefined, warnings: [] });
    for (const lists of byTypeAndUrl.values()) for (const list of lists.values()) list.sort((a, b) => index.compareCandidates(a, b));
    for (const list of byTypeName.values()) list.sort((a, b) => index.compareCandidates(a, b));
    tables.warnings.push(...extraWarnings, ...index.collectPackageWarnings());
    return index;
  }

  /** The plain data behind the index, for the start-up cache and for worker threads (packs the JSON on first call). */
  toState(): DefinitionIndexState {
    return { ...this.tables.state, ...this.tables.store.pack() };
  }

  get fhirVersion(): string {
    return this.tables.state.fhirVersion;
  }

  /** Missing dependencies, unparseable package files, scope problems: never fatal. */
  get warnings(): readonly DefinitionWarning[] {
    return this.scope.warnings.length ? [...this.tables.warnings, ...this.scope.warnings] : this.tables.warnings;
  }

  // ---- ConformanceResourceSource -------------------------------------------------------------

  structureDefinition(canonical: string): CanonicalResource | undefined {
    return this.resolve('StructureDefinition', canonical);
  }

  valueSet(canonical: string): CanonicalResource | undefined {
    return this.resolve('ValueSet', canonical);
  }

  codeSystem(canonical: string): CanonicalResource | undefined {
    return this.resolve('CodeSystem', canonical);
  }

  /** Every visible resource of a type: for each URL only the preferred version. */
  *all(resourceType: IndexedResourceType): Iterable<CanonicalResource> {
    const urls = new Set<string>();
    const table = this.tables.byTypeAndUrl.get(resourceType);
    if (this.scope.extra) for (const url of this.scope.extra.get(resourceType)?.keys() ?? []) urls.add(url);
    if (table) for (const url of table.keys()) urls.add(url);
    for (const url of urls) {
      const r = this.resolve(resourceType, url);
      if (r) yield r;
    }
  }

  // ---- more lookups --------------------------------------------------------------------------

  /**
   * A canonical resource of a given type by `url` or `url|version`. Without a version: the
   * preferred candidate. With one: exact `version` match, else the highest version that starts
   * with `<version>.` (FHIR's partial-version rule, `3.1` → `3.1.1`).
   */
  resolve(resourceType: IndexedResourceType, canonical: string): CanonicalResource | undefined {
    const bar = canonical.indexOf('|');
    const url = bar === -1 ? canonical : canonical.slice(0, bar);
    const version = bar === -1 ? undefined : canonical.slice(bar + 1);
    const extra = this.scope.extra?.get(resourceType)?.get(url);
    const base = this.tables.byTypeAndUrl.get(resourceType)?.get(url);
    return pick(extra, version, () => true) ?? pick(base, version, (c) => this.visible(c));
  }

  /** Any resource type by canonical (e.g. a profile URL whose type the caller does not know). */
  resolveAnyType(canonical: string): CanonicalResource | undefined {
    for (const type of ['StructureDefinition', 'ValueSet', 'CodeSystem', 'ImplementationGuide', 'NamingSystem', 'SearchParameter', 'Measure', 'Library'] as const) {
      const r = this.resolve(type, canonical);
      if (r) return r;
    }
    return undefined;
  }

  /** Every visible version of a canonical, preferred first. */
  versionsOf(resourceType: IndexedResourceType, url: string): CanonicalResource[] {
    const extra = this.scope.extra?.get(resourceType)?.get(url) ?? [];
    const base = (this.tables.byTypeAndUrl.get(resourceType)?.get(url) ?? []).filter((c) => this.visible(c));
    return [...extra, ...base].map((c) => c.resource);
  }

  /** The base StructureDefinition of a type by name: `Patient` → http://hl7.org/fhir/StructureDefinition/Patient. */
  structureDefinitionForType(typeName: string): CanonicalResource | undefined {
    const extra = this.scope.extra?.get('StructureDefinition')?.get(CORE_SD_PREFIX + typeName);
    const first = extra?.[0];
    if (first) return first.resource;
    return this.tables.byTypeName.get(typeName)?.find((c) => this.visible(c))?.resource;
  }

  /** The package a resource object was loaded from (identity lookup; loose resources have none). */
  originOf(resource: CanonicalResource): ResourceOrigin | undefined {
    const type = resource.resourceType;
    if (typeof resource.url !== 'string') return undefined;
    const lists = [this.scope.extra?.get(type)?.get(resource.url), this.tables.byTypeAndUrl.get(type)?.get(resource.url)];
    for (const list of lists) {
      const c = list?.find((x) => x.resource === resource);
      if (!c) continue;
      if (c.pkg < 0) return {};
      const p = this.pkg(c.pkg);
      return { package: { name: p.name, version: p.version }, fhirVersion: p.fhirVersion };
    }
    return undefined;
  }

  // ---- packages ------------------------------------------------------------------------------

  /** Loaded packages (visible in this scope), in load order. */
  packages(): PackageRef[] {
    return this.tables.state.packages.filter((_, i) => !this.scope.excluded?.has(i)).map((p) => ({ name: p.name, version: p.version }));
  }

  /** Details of a loaded package; without a version, the highest visible version of that name. */
  packageDetails(name: string, version?: string): PackageDetails | undefined {
    const ids = (this.tables.packageIdsByName.get(name) ?? []).filter((i) => !this.scope.excluded?.has(i));
    const chosen = version === undefined ? ids.sort((a, b) => compareVersions(this.pkgVersion(b), this.pkgVersion(a)))[0] : ids.find((i) => this.pkgVersion(i) === version);
    if (chosen === undefined) return undefined;
    const record = this.pkg(chosen);
    const details: PackageDetails = {
      name: record.name,
      version: record.version,
      fhirVersion: record.fhirVersion,
      fhirVersions: record.manifest.fhirVersions,
      canonical: record.manifest.canonical,
      dependencies: Object.entries(record.manifest.dependencies).map(([depName, depVersion]) => this.dependencyStatus(depName, depVersion)),
      profiles: [],
      extensions: [],
      logicalModels: [],
      valueSets: [],
      codeSystems: [],
      resourceCounts: record.resourceCounts,
      warnings: record.warnings,
    };
    const { resources, resourcePackage } = this.tables.state;
    for (const [i, r] of resources.entries()) {
      if (resourcePackage[i] !== chosen) continue;
      if (r.url === undefined) continue;
      if (r.resourceType === 'ValueSet') details.valueSets.push(r.url);
      else if (r.resourceType === 'CodeSystem') details.codeSystems.push(r.url);
      else if (r.resourceType === 'StructureDefinition') {
        if (r.derivation === 'constraint' && r.type === 'Extension') details.extensions.push(r.url);
        else if (r.derivation === 'constraint' && (r.kind === 'resource' || r.kind === 'complex-type')) details.profiles.push(r.url);
        else if (r.kind === 'logical') details.logicalModels.push(r.url);
      }
    }
    return details;
  }

  // ---- scopes --------------------------------------------------------------------------------

  /**
   * A view of this index in which the given package versions win: other versions of a pinned
   * package name are hidden. With `exclusive`, every package that is neither pinned nor core is
   * hidden too. `resources` (e.g. a facility's RESOURCE artifacts) are layered on top and win over
   * everything. Shares all tables with this index; costs only the extra resources.
   */
  scoped(pins: readonly PackageRef[], resources: readonly CanonicalResource[] = [], options: ScopeOptions = {}): DefinitionIndex {
    const { state, packageIdsByName } = this.tables;
    const excluded = new Set<number>(this.scope.excluded ?? []);
    const pinned = new Set<number>(this.scope.pinned ?? []);
    const warnings: DefinitionWarning[] = [...this.scope.warnings];
    for (const pin of pins) {
      const ids = packageIdsByName.get(pin.name) ?? [];
      const match = ids.find((i) => state.packages[i]?.version === pin.version);
      if (match === undefined) {
        warnings.push({ package: `${pin.name}#${pin.version}`, code: 'scope-package-not-loaded', message: `package ${pin.name}#${pin.version} is pinned but not loaded` });
        continue;
      }
      pinned.add(match);
      for (const i of ids) if (i !== match) excluded.add(i);
    }
    if (options.exclusive) {
      state.packages.forEach((p, i) => {
        if (!pinned.has(i) && p.name !== R4_CORE_PACKAGE.name) excluded.add(i);
      });
    }
    let extra = this.scope.extra ? cloneTable(this.scope.extra) : undefined;
    if (resources.length) {
      extra ??= new Map();
      let order = -1;
      for (const r of resources) if (typeof r.url === 'string') addCandidate(extra, r.resourceType, r.url, Candidate.extra(r, typeof r.version === 'string' ? r.version : undefined, order--));
      for (const lists of extra.values()) for (const list of lists.values()) list.sort((a, b) => compareVersions(b.version, a.version) || b.order - a.order);
    }
    return new DefinitionIndex(this.tables, { excluded: excluded.size ? excluded : undefined, pinned: pinned.size ? pinned : undefined, extra, warnings });
  }

  // ---- internals -----------------------------------------------------------------------------

  private visible(c: Candidate): boolean {
    return c.pkg < 0 || !this.scope.excluded?.has(c.pkg);
  }

  /** A package by the id the tables hold for it (packageIdsByName, a candidate's pkg). */
  private pkg(i: number): PackageRecord {
    const record = this.tables.state.packages[i];
    if (record === undefined) throw new Error(`definition index: no package ${i}`);
    return record;
  }

  private pkgVersion(i: number): string {
    return this.pkg(i).version;
  }

  /**
   * Preference among candidates for one URL, best first:
   * 1. resources of a package of the index's FHIR version (R4 content before the R5 uv.extensions copies),
   * 2. loose resources before packaged ones (explicitly loaded content is meant to win),
   * 3. the highest resource `version` (semver-ish),
   * 4. the highest package version, then package name, then load order (deterministic).
   */
  private compareCandidates(a: Candidate, b: Candidate): number {
    const fa = a.pkg < 0 || this.tables.sameFhirFamily[a.pkg] ? 0 : 1;
    const fb = b.pkg < 0 || this.tables.sameFhirFamily[b.pkg] ? 0 : 1;
    if (fa !== fb) return fa - fb;
    const la = a.pkg < 0 ? 0 : 1;
    const lb = b.pkg < 0 ? 0 : 1;
    if (la !== lb) return la - lb;
    const byVersion = compareVersions(b.version, a.version);
    if (byVersion) return byVersion;
    if (a.pkg >= 0 && b.pkg >= 0 && a.pkg !== b.pkg) {
      const pa = this.pkg(a.pkg);
      const pb = this.pkg(b.pkg);
      const byPkgVersion = compareVersions(pb.version, pa.version);
      if (byPkgVersion) return byPkgVersion;
      if (pa.name !== pb.name) return pa.name < pb.name ? -1 : 1;
    }
    return a.order - b.order;
  }

  private dependencyStatus(name: string, version: string): DependencyStatus {
    const ids = [...(this.tables.packageIdsByName.get(name) ?? []), ...(this.tables.packageIdsByName.get(name.replace(/\.r[2-6]b?$/, '' /* linear: fixed suffix */)) ?? [])];
    const visibleIds = [...new Set(ids)].filter((i) => !this.scope.excluded?.has(i));
    const exact = visibleIds.find((i) => this.pkgVersion(i) === version);
    if (exact !== undefined) return { name, version, present: true, loadedVersion: version, exactVersion: true };
    const best = visibleIds.sort((a, b) => compareVersions(this.pkgVersion(b), this.pkgVersion(a)))[0];
    return { name, version, present: best !== undefined, loadedVersion: best === undefined ? undefined : this.pkgVersion(best), exactVersion: false };
  }

  private collectPackageWarnings(): DefinitionWarning[] {
    const out: DefinitionWarning[] = [];
    for (const p of this.tables.state.packages) {
      const id = `${p.name}#${p.version}`;
      for (const w of p.warnings) out.push({ package: id, code: 'package-warning', message: w });
      for (const [depName, depVersion] of Object.entries(p.manifest.dependencies)) {
        const status = this.dependencyStatus(depName, depVersion);
        if (!status.present) {
          out.push({ package: id, code: 'missing-dependency', message: `package ${id} depends on ${depName}#${depVersion}, which is not loaded; its definitions will be unresolvable` });
        }
      }
    }
    return out;
  }
}
