/**
 * The fetcher port (domain/ports/resource-fetcher.ts) on a FHIR server an operator configured
 * (`validation.reference-server-url`): `GET [base]/Type/id` for a relative reference, or the
 * reference itself when it is an absolute URL under that base. Nothing else goes to the network: a
 * reference to another server, a canonical, or anything when no server is configured, stays
 * unresolved (HL7's fetcher fetches from anywhere; a service validating reports for many facilities
 * must not be made to call arbitrary hosts by the content it validates).
 *
 * Through the shared outbound HTTP client, with its timeout and one retry; never with the caller's
 * token (the validation may run for a message, not a request, and the server is not a platform
 * service), and with no credentials of this service either: a server that needs them is not
 * supported yet.
 */
import { createHttpClient, type HttpClient } from '#adapters/outbound-http/index.js';
import type { Logger } from '#adapters/observability/logger.js';
import { isFhirResource } from '../../domain/ports/conformance-resources.js';
import { restKey, type FetchAnswer, type ResourceFetcher } from '../../domain/ports/resource-fetcher.js';

export interface FhirServerFetcherOptions {
  /** The server's base (`https://fhir.example.org/r4`). */
  readonly baseUrl: string;
  readonly timeoutMs?: number;
  readonly logger: Logger;
  /** Tests give their own client. */
  readonly http?: HttpClient;
}

/** Largest response read as a resource (a reference names one resource, not a Bundle of thousands). */
const MAX_BODY_BYTES = 2 * 1024 * 1024;

export class FhirServerFetcher implements ResourceFetcher {
  private readonly base: string;
  private readonly http: HttpClient;

  constructor(options: FhirServerFetcherOptions) {
    this.base = options.baseUrl.replace(/\/+$/, '');
    this.http = options.http ?? createHttpClient({
      baseUrl: this.base,
      timeoutMs: options.timeoutMs ?? 5_000,
      retries: 1,
      retryBaseDelayMs: 200,
      // the server is not a platform service: the caller's token never goes there
      propagateCallerAuthorization: false,
      maxResponseBytes: MAX_BODY_BYTES,
      logger: options.logger,
    });
  }

  async fetch(reference: string): Promise<FetchAnswer> {
    const path = this.pathOf(reference);
    if (!path) return undefined;
    const response = await this.http.get(path, { headers: { accept: 'application/fhir+json' } });
    if (response.status === 404 || response.status === 410) return undefined;
    if (response.status !== 200) throw new Error(`the FHIR server answered ${response.status} for ${path}`);
    const body = response.body;
    const resource: unknown = Buffer.isBuffer(body) ? JSON.parse(body.toString('utf8')) : typeof body === 'string' ? JSON.parse(body) : body;
    const expected = restKey(reference)?.split('/')[0];
    return isFhirResource(resource) && resource.resourceType === expected ? resource : undefined;
  }

  /** `/Type/id` when the reference names a resource on this server (relative, or absolute under the base); else undefined. */
  private pathOf(reference: string): string | undefined {
    const key = restKey(reference);
    if (!key) return undefined;
    const relative = !reference.includes('://');
    if (!relative && !reference.startsWith(this.base + '/')) return undefined;
    const [type, id] = key.split('/');
    if (type === undefined || id === undefined) return undefined; // not reached: a key is Type/id
    return `/${type}/${encodeURIComponent(id)}`;
  }
}
