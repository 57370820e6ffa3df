/**
 * Where the validation domain finds conformance resources (StructureDefinition, ValueSet,
 * CodeSystem, ...). The engine's definition index implements it (R4 core plus IG packages plus
 * RESOURCE artifacts); terminology reads ValueSets and CodeSystems through it.
 *
 * Canonical references may carry a version (`url|version`); without one the newest loaded
 * version is returned (or the one the active validation scope pins, see the engine).
 */
export interface FhirResource {
  resourceType: string;
  id?: string;
  [key: string]: unknown;
}

export interface CanonicalResource extends FhirResource {
  url?: string;
  version?: string;
  name?: string;
  title?: string;
  status?: string;
}

export interface ConformanceResourceSource {
  structureDefinition(canonical: string): CanonicalResource | undefined;
  valueSet(canonical: string): CanonicalResource | undefined;
  codeSystem(canonical: string): CanonicalResource | undefined;
  /** Every loaded resource of a type (for building indexes). */
  all(resourceType: 'StructureDefinition' | 'ValueSet' | 'CodeSystem'): Iterable<CanonicalResource>;
  /** Any canonical resource by type and `url` or `url|version`, from a source that can look up every type (the definition index does). */
  resolve?(resourceType: string, canonical: string): CanonicalResource | undefined;
}
