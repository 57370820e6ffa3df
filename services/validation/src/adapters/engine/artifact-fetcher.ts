/**
 * The fetcher the service's validation workers use: the stored RESOURCE artifacts a scope sees
 * (by `Type/id`, by canonical url), then, only when an operator configured one, a FHIR server
 * (fhir-server-fetcher.ts). In memory first: artifacts answer synchronously, so a policy that
 * checks references costs nothing when the artifacts know them.
 */
import type { FhirResource } from '../../domain/ports/conformance-resources.js';
import { InMemoryResourceFetcher, type FetchAnswer, type ResourceFetcher } from '../../domain/ports/resource-fetcher.js';

export class ArtifactFetcher implements ResourceFetcher {
  private readonly artifacts: InMemoryResourceFetcher;

  constructor(resources: Iterable<FhirResource>, private readonly server?: ResourceFetcher) {
    this.artifacts = new InMemoryResourceFetcher(resources);
  }

  fetch(reference: string): FetchAnswer | Promise<FetchAnswer> {
    return this.artifacts.fetch(reference) ?? this.server?.fetch(reference);
  }
}
