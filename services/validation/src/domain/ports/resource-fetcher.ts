/**
 * Port: what a reference or a canonical names when it is neither in the resource being validated,
 * its Bundle (or Parameters), nor the loaded definitions: the HL7 validator's fetcher
 * (IValidatorResourceFetcher). The engine asks it only when a setting needs the answer (a reference
 * policy that checks existence, a QuestionnaireResponse's questionnaire).
 *
 * Implementations: the CLI's supporting files (cli/file-fetcher.ts), the service's artifact store
 * (adapters/engine/artifact-fetcher.ts), and, only when an operator configures a FHIR server base,
 * that server (adapters/engine/fhir-server-fetcher.ts). Answers may be synchronous (in memory) or a
 * Promise (a server); the engine waits for pending answers at the end of a validation, as for
 * terminology.
 */
import type { FhirResource } from './conformance-resources.js';

export type FetchAnswer = FhirResource | undefined;

export interface ResourceFetcher {
  /**
   * The resource `reference` names: a relative reference (`Patient/1`, `Patient/1/_history/2`), an
   * absolute URL (`https://server/fhir/Patient/1`) or a canonical URL (`http://…/Questionnaire/q|1.0`).
   * undefined: not known. Never throws for an unknown reference; a failure to ask is a rejection.
   */
  fetch(reference: string): FetchAnswer | Promise<FetchAnswer>;

  /**
   * Whether a uri, url or canonical value outside the resource resolves (HL7's resolveURL), when
   * this fetcher can say: the engine then reports one that does not (rules/url-references.ts).
   * Absent: the fetcher cannot say, and such values are not checked.
   */
  resolvesUrl?(url: string): boolean;
}

/** Resources that resolve by `Type/id`, by absolute URL (`…/Type/id`) and by canonical url (`url`, `url|version`). */
export class InMemoryResourceFetcher implements ResourceFetcher {
  private readonly byKey = new Map<string, FhirResource>();

  constructor(resources: Iterable<FhirResource> = []) {
    for (const r of resources) this.add(r);
  }

  add(resource: FhirResource): void {
    if (typeof resource.id === 'string') this.byKey.set(`${resource.resourceType}/${resource.id}`, resource);
    const { url, version } = resource;
    if (typeof url === 'string') {
      if (!this.byKey.has(url)) this.byKey.set(url, resource);
      if (typeof version === 'string') this.byKey.set(`${url}|${version}`, resource);
    }
  }

  fetch(reference: string): FetchAnswer {
    const direct = this.byKey.get(reference);
    if (direct) return direct;
    // an absolute RESTful URL or a versioned read: the `Type/id` at its end
    const key = restKey(reference);
    return key ? this.byKey.get(key) : undefined;
  }
}

/**
 * `Type/id` of a RESTful reference (`Patient/1`, `https://server/fhir/Patient/1/_history/2`), or
 * undefined. Scanned by hand over the segments: nothing here backtracks on submitted text.
 */
export function restKey(reference: string): string | undefined {
  let s = reference;
  const hash = s.indexOf('#');
  if (hash >= 0) s = s.slice(0, hash);
  const query = s.indexOf('?');
  if (query >= 0) s = s.slice(0, query);
  const parts = s.split('/');
  if (parts.length >= 4 && parts[parts.length - 2] === '_history') parts.length -= 2;
  if (parts.length < 2) return undefined;
  const type = parts[parts.length - 2];
  const id = parts[parts.length - 1];
  if (type === undefined || id === undefined) return undefined; // not reached: two parts at least
  const c = type.charCodeAt(0);
  if (!(c >= 65 && c <= 90) || id === '' || id.length > 64) return undefined;
  return `${type}/${id}`;
}
