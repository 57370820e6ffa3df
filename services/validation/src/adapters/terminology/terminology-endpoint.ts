/**
 * Where terminology questions go (specification, "Terminology resolution", in order):
 * 1. `svc.fhir-terminology-service-url` set → that standards-compliant FHIR terminology server, directly;
 * 2. else `svc.terminology-service-url` set → the platform terminology service at base + `/api/terminology/fhir`;
 * 3. else local terminology only: no network call is ever made.
 */
export interface TerminologyEndpointSettings {
  /** svc.fhir-terminology-service-url */
  fhirTerminologyServiceUrl?: string;
  /** svc.terminology-service-url */
  terminologyServiceUrl?: string;
}

export type TerminologyEndpoint =
  | { mode: 'fhir-terminology-server'; baseUrl: string }
  | { mode: 'platform-terminology-service'; baseUrl: string }
  | { mode: 'local' };

export const PLATFORM_TERMINOLOGY_FHIR_PATH = '/api/terminology/fhir';

export function resolveTerminologyEndpoint(settings: TerminologyEndpointSettings): TerminologyEndpoint {
  const direct = settings.fhirTerminologyServiceUrl?.trim();
  if (direct) return { mode: 'fhir-terminology-server', baseUrl: withoutTrailingSlash(direct) };
  const platform = settings.terminologyServiceUrl?.trim();
  if (platform) return { mode: 'platform-terminology-service', baseUrl: withoutTrailingSlash(platform) + PLATFORM_TERMINOLOGY_FHIR_PATH };
  return { mode: 'local' };
}

function withoutTrailingSlash(url: string): string {
  return url.replace(/\/+$/, '');
}
