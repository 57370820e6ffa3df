/**
 * Terminology adapters: the remote $validate-code client (FHIR terminology server or the platform
 * terminology service), the validate-code cache, and `createTerminology`, which picks local or
 * remote terminology by the specification's order of precedence.
 */
export { createTerminology, createValidateCodeCacheStore, type CreateTerminologyOptions, type TerminologySettings, type TerminologyWiring } from './create-terminology.js';
export { resolveTerminologyEndpoint, PLATFORM_TERMINOLOGY_FHIR_PATH, type TerminologyEndpoint, type TerminologyEndpointSettings } from './terminology-endpoint.js';
export { FhirValidateCodeClient, type ValidateCodeAnswer, type ValidateCodeQuery, type ValidateCodeRemote } from './fhir-validate-code-client.js';
export { RemoteTerminology } from './remote-terminology.js';
export { ValidateCodeCache, validateCodeCacheKey, type CachedValidateCode, type NearCacheOptions, type ValidateCodeCacheStore, type ValidateCodeTuple } from './validate-code-cache.js';
export { CircuitBreaker, type CircuitBreakerOptions } from './circuit-breaker.js';
export { TerminologyMetrics, type TerminologyCounts } from './terminology-metrics.js';
