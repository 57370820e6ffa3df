/**
 * R4 core SearchParameters (part of the core package, but not of the definition index):
 * loaded for the rules that compare against them (CapabilityStatement search parameters,
 * SearchParameter.derivedFrom).
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { CanonicalResource } from '../domain/conformance-resources.js';
import { locateCoreDefinitions } from '../adapters/fhir-definitions/core-definitions.js';

export async function loadCoreSearchParameters(): Promise<CanonicalResource[]> {
  try {
    const { r4Dir } = await locateCoreDefinitions();
    const bundle = JSON.parse(await readFile(path.join(r4Dir, 'search-parameters.json'), 'utf8'));
    return (bundle.entry ?? []).map((e: any) => e.resource).filter((r: any) => r?.resourceType === 'SearchParameter');
  } catch {
    return [];
  }
}
