/**
 * Where terminology questions go (specification, "Terminology resolution", in order):
 * 1. `svc.fhir-terminology-service-url` set → that standards-compliant FHIR terminology server, directly (HTTP);
 * 2. else the platform terminology service: with `terminology.transport` nats, over NATS (the
 *    specification's commands ValidateValueSetCode / ValidateCodeSystemCode; no URL needed); else,
 *    `svc.terminology-service-url` set, over HTTP at base + `/api/terminology/fhir`;
 * 3. else local terminology only: no network call is ever made.
 */
export const TERMINOLOGY_TRANSPORTS = ['http', 'nats'] as const;
export type TerminologyTransport = (typeof TERMINOLOGY_TRANSPORTS)[number];

export interface TerminologyEndpointSettings {
  /** svc.fhir-terminology-service-url */
  fhirTerminologyServiceUrl?: string;
  /** svc.terminology-service-url */
  terminologyServiceUrl?: string;
  /** terminology.transport: how the platform terminology service is reached; default http. */
  transport?: TerminologyTransport;
}

export type TerminologyEndpoint =
  | { mode: 'fhir-terminology-server'; baseUrl: string }
  | { mode: 'platform-terminology-service'; baseUrl: string }
  | { mode: 'platform-terminology-nats' }
  | { mode: 'local' };

export const PLATFORM_TERMINOLOGY_FHIR_PATH = '/api/terminology/fhir';

export function resolveTerminologyEndpoint(settings: TerminologyEndpointSettings): TerminologyEndpoint {
  const direct = settings.fhirTerminologyServiceUrl?.trim();
  if (direct) return { mode: 'fhir-terminology-server', baseUrl: withoutTrailingSlash(direct) };
  if (settings.transport === 'nats') return { mode: 'platform-terminology-nats' };
  const platform = settings.terminologyServiceUrl?.trim();
  if (platform) return { mode: 'platform-terminology-service', baseUrl: withoutTrailingSlash(platform) + PLATFORM_TERMINOLOGY_FHIR_PATH };
  return { mode: 'local' };
}

function withoutTrailingSlash(url: string): string {
  return url.replace(/\/+$/, '');
}

/** Whether terminology questions can leave this process (any mode but local). */
export function remoteTerminologyConfigured(settings: TerminologyEndpointSettings): boolean {
  return resolveTerminologyEndpoint(settings).mode !== 'local';
}
