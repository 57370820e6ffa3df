import {
  booleanSetting, byteSizeSetting, enumSetting, intSetting, listSetting, portSetting,
  secondsSetting, stringSetting, urlSetting,
} from './parsers.js';
import { postgresUrlSetting, redisUrlSetting } from './connection-urls.js';
import { defineSetting, SettingParseError } from './setting.js';
import { STREAM_LIMIT_PROFILES } from '#contracts/catalog.js';

/**
 * Property groups shared by several services. Spread them into a service schema:
 * `loadConfig({ ...httpSettings({ port: 8081 }), ...databaseSettings({ name: 'tenant' }), ...mine })`.
 * The JS keys are camel-case versions of the property names so callers read `config.dbHost`.
 */

export function httpSettings(defaults: { port?: number; host?: string } = {}) {
  return {
    httpPort: portSetting('http.port', 'TCP port the HTTP API listens on').default(defaults.port ?? 8080),
    httpHost: stringSetting('http.host', 'Interface the HTTP API binds to').default(defaults.host ?? '0.0.0.0'),
    httpJsonLimit: byteSizeSetting('http.json-limit', 'Largest accepted JSON request body').default(1024 ** 2),
    httpRawLimit: byteSizeSetting('http.raw-limit', 'Largest accepted binary upload (gzip/tar packages)').default(50 * 1024 ** 2),
    ...exposureSettings(),
  };
}

/**
 * What the HTTP API shows besides its routes. In production only the scraper should read /metrics
 * (a port of its own that no Ingress routes to), and the API documents are for authenticated users
 * (the specification: each API carries interactive documentation; the gateway route is guarded by
 * AuthenticatedUser).
 */
export function exposureSettings() {
  return {
    metricsPort: portSetting('metrics.port', 'TCP port of a separate listener (on http.host) that serves only /metrics, for the scraper; /metrics then leaves the HTTP API port. Unset = /metrics on the HTTP API port (local runs)').optional(),
    docsEnabled: booleanSetting('docs.enabled', 'Serve the OpenAPI document (/api-docs) and the Swagger UI (/swagger; the gateway\'s /docs and /api/docs too)').default(true),
    docsAuthenticated: booleanSetting('docs.authenticated', 'Serve the API documents only to authenticated users (the AuthenticatedUser policy: a valid bearer token, as for /api); the Swagger UI then asks for the token. On in production').default(false),
  };
}

/** `db.name` is required unless the service supplies its own default name. */
export function databaseSettings(defaults: { name?: string } = {}) {
  const name = stringSetting('db.name', 'PostgreSQL database name');
  return {
    dbUrl: postgresUrlSetting('db.url', 'PostgreSQL address as one URL; when set it wins over db.host, db.port, db.user and db.name. sslmode require encrypts, verify-ca also checks the certificate against sslrootcert (else the system CAs), verify-full also the host name. The password stays in db.password; a URL with one is refused').optional(),
    dbHost: stringSetting('db.host', 'PostgreSQL host').default('127.0.0.1'),
    dbPort: portSetting('db.port', 'PostgreSQL port').default(5432),
    dbUser: stringSetting('db.user', 'PostgreSQL user').default('postgres'),
    dbPassword: stringSetting('db.password', 'PostgreSQL password (unset for trust auth)').secret().optional(),
    dbName: defaults.name === undefined ? name : name.default(defaults.name),
    dbPoolMax: intSetting('db.pool-max', 'Maximum connections in the pool', { min: 1, max: 1000 }).default(10),
  };
}

export function natsSettings() {
  return {
    natsServers: listSetting('nats.servers', 'NATS server URLs', urlSetting('nats.servers', 'NATS server URL', ['nats:', 'tls:']))
      .default(['nats://127.0.0.1:4222']),
    natsUser: stringSetting('nats.user', 'NATS user name').optional(),
    natsPassword: stringSetting('nats.password', 'NATS password').secret().optional(),
    natsToken: stringSetting('nats.token', 'NATS authentication token').secret().optional(),
    natsNamespace: defineSetting('nats.namespace', 'Keeps this installation apart from others on the same NATS server: subjects start with <namespace>.nhsn. instead of nhsn., '
      + 'stream names end with _<NAMESPACE> (each with its own durable consumers). Every service of one installation needs the same value; unset in production',
    'lower-case letters, digits and hyphens, starting with a letter (1-31 characters)', (raw) => {
      if (!/^[a-z][a-z0-9-]{0,30}$/.test(raw)) throw new SettingParseError(`must be lower-case letters, digits and hyphens, starting with a letter, at most 31 characters; got ${JSON.stringify(raw)}`);
      return raw;
    }).optional(),
    natsStreamLimits: enumSetting('nats.stream-limits', 'Size of every JetStream stream this installation provisions (max_bytes, which JetStream reserves against the server\'s storage when a stream is created): '
      + 'production 4 GiB per stream and 2 GiB dead letters; local 256 MiB / 128 MiB (what `npm start` uses); test 64 MiB / 32 MiB. Every service and tool of one installation needs the same value', STREAM_LIMIT_PROFILES).default('production'),
    natsProvision: booleanSetting('nats.provision', 'Create or update the JetStream streams (and the validation service its durable consumer) at start-up. '
      + 'Off where the jetstream-provisioning Job does that and the service\'s NATS user may not (the deploy manifests: docs/operations.md, NATS accounts)').default(true),
    natsStreamReplicas: intSetting('nats.stream-replicas', 'Copies of every JetStream stream across the NATS cluster, applied when streams are provisioned (1 for a single server; 3 on the production three-server cluster)', { min: 1, max: 5 }).default(1),
  };
}

export const CACHE_TYPES = ['none', 'memory', 'distributed'] as const;
export type CacheType = (typeof CACHE_TYPES)[number];

/**
 * Cache of remote validate-code calls. `cache.validate-code.ttl` has no default (specification:
 * "value not set by default"): unset means entries do not expire by time. The original used 3600 s;
 * set CACHE_VALIDATE_CODE_TTL=3600 to get that behaviour.
 */
export function cacheSettings() {
  return {
    cacheType: enumSetting('cache.type', 'Cache implementation for validate-code calls', CACHE_TYPES).default('memory'),
    cacheValidateCodeTtl: secondsSetting('cache.validate-code.ttl', 'Lifetime of validate-code cache entries in seconds; unset = no expiry', { min: 1 }).optional(),
    cacheMemoryMaxEntries: intSetting('cache.memory.max-entries', 'Maximum entries of the in-process cache', { min: 1 }).default(10_000),
    cacheServerUrl: redisUrlSetting('data.cache-server.url', 'Address of the distributed cache as one URL (rediss:// = TLS, certificate and host name verified); when set it wins over data.cache-server.host, port, username and database. The password stays in data.cache-server.password; a URL with one is refused').optional(),
    cacheServerHost: stringSetting('data.cache-server.host', 'Host of the distributed cache (cache.type distributed)').default('127.0.0.1'),
    cacheServerPort: portSetting('data.cache-server.port', 'Port of the distributed cache').default(6379),
    cacheServerPassword: stringSetting('data.cache-server.password', 'Password of the distributed cache').secret().optional(),
    cacheServerUsername: stringSetting('data.cache-server.username', 'Optional user name of the distributed cache').optional(),
    cacheServerDatabase: intSetting('data.cache-server.database', 'Database index of the distributed cache', { min: 0, max: 15 }).default(0),
  };
}

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

export function loggingSettings() {
  return {
    logLevel: enumSetting('log.level', 'Minimum level of log lines written', LOG_LEVELS).default('info'),
  };
}

export function shutdownSettings() {
  return {
    shutdownGraceMs: intSetting('shutdown.grace-ms', 'Milliseconds in-flight work may take to finish on SIGTERM', { min: 0 }).default(10_000),
  };
}
