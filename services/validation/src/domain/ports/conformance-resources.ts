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

const isOptionalString = (value: unknown): boolean => value === undefined || typeof value === 'string';

/** A JSON object with a string resourceType (and a string id, if any). */
export function isFhirResource(value: unknown): value is FhirResource {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    && 'resourceType' in value && typeof value.resourceType === 'string' && isOptionalString('id' in value ? value.id : undefined);
}

/** A FhirResource whose canonical fields (url, version, name, title, status) are strings where present. */
export function isCanonicalResource(value: unknown): value is CanonicalResource {
  return isFhirResource(value) && [value.url, value.version, value.name, value.title, value.status].every(isOptionalString);
}

export interface ConformanceResourceSource {
  structureDefinition(canonical: string): CanonicalResource | undefined;
  valueSet(canonical: string): CanonicalResource | undefined;
  codeSystem(canonical: string): CanonicalResource | undefined;
  /** Every loaded resource of a type (for building indexes). */
  all(resourceType: 'StructureDefinition' | 'ValueSet' | 'CodeSystem'): Iterable<CanonicalResource>;
  /**
   * The ImplementationGuides given loose (a test's supporting files, the CLI's --load files): their
   * global profiles apply to every resource of their type, as the HL7 validator's IGs do.
   */
  implementationGuides?(): Iterable<CanonicalResource>;
  /** Any canonical resource by type and `url` or `url|version`, from a source that can look up every type (the definition index does). */
  resolve?(resourceType: string, canonical: string): CanonicalResource | undefined;
}
