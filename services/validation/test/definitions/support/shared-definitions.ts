/**
 * R4 core + the nine shared IG packages, loaded once per test process (the start-up cache in the
 * project's git-ignored .cache folder makes repeated runs fast).
 */
import { sharedDir } from '#test-support/shared-dir.js';
import { loadDefinitions, type LoadedDefinitions } from '#validation/adapters/fhir-definitions/definition-cache.js';

let loading: Promise<LoadedDefinitions> | undefined;

export function sharedDefinitions(): Promise<LoadedDefinitions> {
  loading ??= loadDefinitions({ packages: [sharedDir('fhir-packages')] });
  return loading;
}
