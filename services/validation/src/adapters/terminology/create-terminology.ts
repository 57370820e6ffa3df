import type { Registry } from 'prom-client';
import { createCache, type Cache, type CacheType, type RedisConnectionOptions } from '#adapters/cache/index.js';
import type { Logger } from '#adapters/observability/logger.js';
import {
  authorizationSource, describeCredentials, type AuthorizationSource, type HttpClient, type OutboundCredentials,
} from '#adapters/outbound-http/index.js';
import type { ConformanceResourceSource } from '../../domain/ports/conformance-resources.js';
import { LocalTerminology } from '../../domain/terminology/local-terminology.js';
import type { TerminologyPort } from '../../domain/ports/terminology.js';
import type { CircuitBreakerOptions } from './circuit-breaker.js';
import { catalogForNamespace } from '#contracts/catalog.js';
import { FhirValidateCodeClient, type ValidateCodeRemote } from './fhir-validate-code-client.js';
import { natsTerminologyConnection, type NatsTerminologyConnectionSettings } from './nats-terminology-connection.js';
import { NatsValidateCodeClient } from './nats-validate-code-client.js';
import { RemoteTerminology, type UnavailableSeverity } from './remote-terminology.js';
import { resolveTerminologyEndpoint, type TerminologyEndpoint, type TerminologyEndpointSettings } from './terminology-endpoint.js';
import { TerminologyMetrics } from './terminology-metrics.js';
import { ValidateCodeCache, type CachedValidateCode, type NearCacheOptions, type ValidateCodeCacheStore } from './validate-code-cache.js';

/**
 * Composition of the terminology side from configuration: the endpoint by the specification's
 * order of precedence, local terminology always, and — only when a server is configured — the
 * $validate-code client with its cache. In local mode nothing here can open a socket.
 */
export interface TerminologySettings extends TerminologyEndpointSettings {
  /** cache.validate-code.ttl (seconds); unset = the cache store's default. */
  validateCodeTtlSeconds?: number;
  /** Per attempt, default 5,000 ms. */
  timeoutMs?: number;
  /** Extra attempts on network errors, timeouts, 429 and 5xx (over NATS: timeouts, no responder, UNAVAILABLE); default 2. */
  retries?: number;
  retryBaseDelayMs?: number;
  circuitBreaker?: CircuitBreakerOptions;
  /** terminology.unavailable-severity (default warning): see RemoteTerminologyOptions. */
  unavailableSeverity?: UnavailableSeverity;
  /**
   * This service's own credentials for the external server (svc.fhir-terminology-service.*); plain
   * data holding secrets, cloned into the worker threads with the rest of these settings; never logged.
   */
  credentials?: OutboundCredentials;
  /** The NATS connection of `transport` nats (this service's own NATS settings). */
  nats?: NatsTerminologyConnectionSettings;
}

export interface CreateTerminologyOptions {
  source: ConformanceResourceSource;
  settings: TerminologySettings;
  /** Where remote answers are cached (see createValidateCodeCacheStore); absent = cache.type none. */
  cacheStore?: ValidateCodeCacheStore<CachedValidateCode>;
  logger: Logger;
  registry?: Registry;
  /** Counters to count into (shared by several terminologies of one worker thread); default a new one on `registry`. */
  metrics?: TerminologyMetrics;
  /**
   * In-process near cache in front of the store, so a warm run makes no Redis round trip per
   * repeated tuple (the same code in every resource of a bundle). Default 10,000 entries for at
   * most 30 s (never beyond cache.validate-code.ttl); `false` = every lookup goes to the store.
   */
  nearCache?: NearCacheOptions | false;
  /** Replaces the outbound HTTP client (tests). */
  http?: HttpClient;
}

export interface TerminologyWiring {
  terminology: TerminologyPort;
  local: LocalTerminology;
  endpoint: TerminologyEndpoint;
  metrics: TerminologyMetrics;
  cache?: ValidateCodeCache;
}

export const DEFAULT_NEAR_CACHE: NearCacheOptions = Object.freeze({ maxEntries: 10_000, ttlSeconds: 30 });

/**
 * One Authorization source per credentials object in this thread: every generation and scope builds its
 * own terminology, but an OAuth2 token must be fetched once and shared, not once per validator.
 */
const sources = new WeakMap<OutboundCredentials, AuthorizationSource | undefined>();

function sharedAuthorizationSource(credentials: OutboundCredentials, logger: Logger): AuthorizationSource | undefined {
  if (!sources.has(credentials)) sources.set(credentials, authorizationSource(credentials, { logger }));
  return sources.get(credentials);
}

export function createTerminology(options: CreateTerminologyOptions): TerminologyWiring {
  const endpoint = resolveTerminologyEndpoint(options.settings);
  const local = new LocalTerminology(options.source);
  const metrics = options.metrics ?? new TerminologyMetrics(options.registry);
  if (endpoint.mode === 'local') {
    options.logger.info('terminology: local only (no terminology server configured); no network call is made');
    return { terminology: local, local, endpoint, metrics };
  }
  const { settings } = options;
  let client: ValidateCodeRemote;
  let credentialsLog: Record<string, unknown>;
  if (endpoint.mode === 'platform-terminology-nats') {
    const nats = settings.nats;
    if (!nats) throw new Error('terminology.transport is nats but no NATS connection settings were given');
    client = new NatsValidateCodeClient({
      connection: () => natsTerminologyConnection(nats, options.logger), catalog: catalogForNamespace(nats.namespace), logger: options.logger,
      timeoutMs: settings.timeoutMs, retries: settings.retries, retryBaseDelayMs: settings.retryBaseDelayMs, circuitBreaker: settings.circuitBreaker,
    });
    // The caller's token stays off NATS: the connection is this service's.
    credentialsLog = { credentials: 'this service\'s NATS user (no caller token)' };
  } else {
    // The caller's token goes to the platform's own terminology service only; an external server gets ours.
    const platform = endpoint.mode === 'platform-terminology-service';
    const credentials = platform ? undefined : settings.credentials;
    client = new FhirValidateCodeClient({
      baseUrl: endpoint.baseUrl, logger: options.logger, http: options.http,
      timeoutMs: settings.timeoutMs, retries: settings.retries, retryBaseDelayMs: settings.retryBaseDelayMs, circuitBreaker: settings.circuitBreaker,
      forwardCallerAuthorization: platform,
      credentials: credentials && sharedAuthorizationSource(credentials, options.logger),
    });
    credentialsLog = platform ? { credentials: 'the caller\'s token' } : describeCredentials(credentials ?? { kind: 'none' });
  }
  const cache = options.cacheStore ? new ValidateCodeCache(options.cacheStore, settings.validateCodeTtlSeconds, options.nearCache === false ? undefined : options.nearCache ?? DEFAULT_NEAR_CACHE) : undefined;
  options.logger.info({ mode: endpoint.mode, baseUrl: client.baseUrl, cache: cache !== undefined, ...credentialsLog },
    'terminology: remote $validate-code behind local terminology');
  return { terminology: new RemoteTerminology({ local, remote: client, cache, metrics, unavailableSeverity: settings.unavailableSeverity }), local, endpoint, metrics, cache };
}

export interface ValidateCodeCacheStoreOptions {
  /** cache.type */
  type: CacheType;
  /** cache.validate-code.ttl */
  ttlSeconds?: number;
  memoryMaxEntries?: number;
  /** data.cache-server.* (distributed only). */
  redis?: RedisConnectionOptions;
  /** Per service and environment; default `validation:validate-code`. */
  namespace?: string;
  logger: Logger;
  registry?: Registry;
}

export const VALIDATE_CODE_CACHE_NAMESPACE = 'validation:validate-code';

/**
 * The platform cache for validate-code answers: none | memory (bounded, per process) | distributed
 * (Redis, shared). Its `cache_requests_total` label is the namespace, like the service runtime's
 * cache, so a worker thread's lookups reported to the main thread land in the same series.
 */
export function createValidateCodeCacheStore(options: ValidateCodeCacheStoreOptions): Promise<Cache<CachedValidateCode>> {
  return createCache<CachedValidateCode>({
    type: options.type,
    namespace: options.namespace ?? VALIDATE_CODE_CACHE_NAMESPACE,
    ttlSeconds: options.ttlSeconds,
    memoryMaxEntries: options.memoryMaxEntries,
    redis: options.redis,
    logger: options.logger,
    registry: options.registry,
  });
}
