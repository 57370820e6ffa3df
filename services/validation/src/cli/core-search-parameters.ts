/**
 * R4 core SearchParameters (part of the core package, but not of the definition index), for the
 * rules that compare against them (CapabilityStatement search parameters, SearchParameter.derivedFrom).
 *
 * They are reached only through `resolve('SearchParameter', url)`, and only by those rules, so the
 * CLI layers them LAZILY over the definitions: the file (over a thousand resources) is read and
 * parsed the first time a SearchParameter is looked up, never by a run that does not need one (most
 * runs: it was a tenth of a cold start). The layer answers exactly as
 * `new LayeredConformanceSource(searchParameters, base)` did.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { isCanonicalResource, type CanonicalResource, type ConformanceResourceSource } from '../domain/ports/conformance-resources.js';
import { isArray, isObject } from '../domain/engine/json/json-value.js';
import { LayeredConformanceSource } from '../domain/engine/layered-source.js';
import { locateCoreDefinitions } from '../adapters/fhir-definitions/core-definitions.js';

type Kind = 'StructureDefinition' | 'ValueSet' | 'CodeSystem';

/** The file of the core SearchParameters, or undefined when the core definitions cannot be found. */
export async function coreSearchParametersFile(): Promise<string | undefined> {
  try {
    const { r4Dir } = await locateCoreDefinitions();
    return path.join(r4Dir, 'search-parameters.json');
  } catch {
    return undefined;
  }
}

/** The SearchParameters of the file; none when it cannot be read. */
export function readSearchParameters(file: string | undefined): CanonicalResource[] {
  if (!file) return [];
  try {
    const bundle: unknown = JSON.parse(readFileSync(file, 'utf8'));
    const entries = isObject(bundle) && isArray(bundle.entry) ? bundle.entry : [];
    return entries.flatMap((e) => {
      const resource = isObject(e) ? e.resource : undefined;
      return isCanonicalResource(resource) && resource.resourceType === 'SearchParameter' ? [resource] : [];
    });
  } catch {
    return [];
  }
}

export class LazyCoreSearchParameters implements ConformanceResourceSource {
  /** Without the SearchParameters: every other lookup (the same snapshots as with them, which hold no StructureDefinition). */
  private readonly plain: LayeredConformanceSource;
  private withParameters: LayeredConformanceSource | undefined;

  constructor(private readonly file: string | undefined, private readonly base: ConformanceResourceSource) {
    this.plain = new LayeredConformanceSource([], base);
  }

  structureDefinition(canonical: string): CanonicalResource | undefined {
    return this.plain.structureDefinition(canonical);
  }

  valueSet(canonical: string): CanonicalResource | undefined {
    return this.plain.valueSet(canonical);
  }

  codeSystem(canonical: string): CanonicalResource | undefined {
    return this.plain.codeSystem(canonical);
  }

  all(resourceType: Kind): Iterable<CanonicalResource> {
    return this.plain.all(resourceType);
  }

  resolve(resourceType: string, canonical: string): CanonicalResource | undefined {
    if (resourceType !== 'SearchParameter') return this.plain.resolve(resourceType, canonical);
    this.withParameters ??= new LayeredConformanceSource(readSearchParameters(this.file), this.base);
    return this.withParameters.resolve(resourceType, canonical);
  }

  /** Whether the SearchParameters were read (tests). */
  get loaded(): boolean {
    return this.withParameters !== undefined;
  }
}

/** Every core SearchParameter, read now (tests that build a source of their own). */
export async function loadCoreSearchParameters(): Promise<CanonicalResource[]> {
  return readSearchParameters(await coreSearchParametersFile());
}
