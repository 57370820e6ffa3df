/**
 * Terminology adapters: the remote $validate-code clients (FHIR terminology server or the platform
 * terminology service over HTTP; the platform terminology service over NATS with the commands
 * ValidateValueSetCode / ValidateCodeSystemCode, `terminology.transport` nats), the validate-code
 * cache, and `createTerminology`, which picks local or remote terminology by the specification's
 * order of precedence. Both transports sit behind the same RemoteTerminology and cache.
 *
 * At the composition root (config = the validation service's loaded configuration):
 *
 *   const settings = {
 *     fhirTerminologyServiceUrl: config.fhirTerminologyServiceUrl, terminologyServiceUrl: config.terminologyServiceUrl,
 *     transport: config.terminologyTransport, nats: { servers: config.natsServers, user, pass, token, namespace },
 *     validateCodeTtlSeconds: config.cacheValidateCodeTtl, timeoutMs: config.terminologyTimeoutMs,
 *     // Our own credentials for an external server (ConfigError when incomplete); the platform service gets the caller's token.
 *     credentials: terminologyCredentials(config),
 *   };
 *   // No cache (and no Redis connection) when no server is configured: nothing would be cached.
 *   const cacheStore = resolveTerminologyEndpoint(settings).mode === 'local' || config.cacheType === 'none' ? undefined
 *     : await createValidateCodeCacheStore({ type: config.cacheType, ttlSeconds: config.cacheValidateCodeTtl,
 *         memoryMaxEntries: config.cacheMemoryMaxEntries, redis: { host, port, username, password, database }, logger, registry });
 *   const { terminology } = createTerminology({ source: definitionIndex, settings, cacheStore, logger, registry });
 *   // terminology: TerminologyPort for the engine; close cacheStore on shutdown.
 */
export { TERMINOLOGY_AUTH_KINDS, terminologyCredentialSettings, terminologyCredentials, type TerminologyCredentialConfig } from './credential-settings.js';
export { createTerminology, createValidateCodeCacheStore, VALIDATE_CODE_CACHE_NAMESPACE, type CreateTerminologyOptions, type TerminologySettings, type TerminologyWiring } from './create-terminology.js';
export {
  remoteTerminologyConfigured, resolveTerminologyEndpoint, PLATFORM_TERMINOLOGY_FHIR_PATH, TERMINOLOGY_TRANSPORTS,
  type TerminologyEndpoint, type TerminologyEndpointSettings, type TerminologyTransport,
} from './terminology-endpoint.js';
export { closeNatsTerminologyConnections, natsTerminologyConnection, type NatsTerminologyConnectionSettings } from './nats-terminology-connection.js';
export { NatsValidateCodeClient, codeSystemCommand, valueSetCommand, type NatsValidateCodeClientOptions } from './nats-validate-code-client.js';
export { FhirValidateCodeClient, type ValidateCodeAnswer, type ValidateCodeQuery, type ValidateCodeRemote } from './fhir-validate-code-client.js';
export { RemoteTerminology, UNAVAILABLE_SEVERITIES, type UnavailableSeverity } from './remote-terminology.js';
export { ValidateCodeCache, validateCodeCacheKey, type CachedValidateCode, type NearCacheOptions, type ValidateCodeCacheStore, type ValidateCodeTuple } from './validate-code-cache.js';
export { CircuitBreaker, type CircuitBreakerOptions } from './circuit-breaker.js';
export { TerminologyMetrics, type TerminologyCounts } from './terminology-metrics.js';
