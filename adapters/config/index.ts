/**
 * Typed configuration from environment variables, validated once at start-up.
 *
 * Declare each property once, with its specification name:
 *
 * ```ts
 * const schema = {
 *   ...httpSettings({ port: 8081 }),
 *   ...cacheSettings(),
 *   artifactInit: booleanSetting('artifact.init', 'Load default artifacts at start-up').default(true),
 *   terminologyUrl: urlSetting('svc.fhir-terminology-service-url', 'External terminology server').optional(),
 * };
 * const config = exitOnConfigError(() => loadConfig(schema), logger); // config.artifactInit: boolean
 * ```
 *
 * Environment variable rule (`envVarName`): upper-case the property name and replace every `.` and
 * `-` with `_` (`data.cache-server.host` → `DATA_CACHE_SERVER_HOST`). The name spelled exactly as in
 * the specification is also read when it is a valid variable name (`MeasureConfig__CheckIfMeasureExists`);
 * the derived upper-case name takes precedence when both are set. Empty values count as unset.
 *
 * Errors: `loadConfig` throws one ConfigError listing every bad property with its variable, e.g.
 * `Invalid configuration: cache.type (CACHE_TYPE) must be one of none, memory, distributed; got "redis2"`;
 * `exitOnConfigError` turns it into a stderr message and exit code 78 (EX_CONFIG).
 * PostgreSQL and Redis may also be given as one URL each (`db.url`, `data.cache-server.url`; never with a
 * password): `databaseAddress(config)` / `cacheServerAddress(config)` resolve which form applies.
 * `isLoopbackHost` / `isSecureOrLoopbackUrl` tell settings that are safe only on this machine (auth off,
 * credentials over plain http) from the rest.
 * `describeConfig` + `toMarkdownTable` generate documentation, and `checkDeploymentEnv` checks a
 * Kubernetes ConfigMap/Secret, from the same schema.
 */
export { Setting, SettingParseError, defineSetting, type Parser, type SettingSpec } from './setting.js';
export {
  booleanSetting, byteSizeSetting, durationSetting, enumSetting, intSetting, listSetting, portSetting,
  secondsSetting, stringSetting, urlSetting, type IntRange,
} from './parsers.js';
export {
  ConfigError, EX_CONFIG, describeConfig, envVarCandidates, envVarName, exitOnConfigError, loadConfig, toMarkdownTable,
  type ConfigOf, type ConfigProblem, type ConfigRow, type ConfigSchema,
} from './load.js';
export { checkDeploymentEnv, type DeploymentEnv } from './deployment-check.js';
export {
  PG_SSL_MODES, cacheServerAddress, databaseAddress, parsePostgresUrl, parseRedisUrl, postgresUrlSetting, redisUrlSetting,
  type CacheServerAddressSettings, type DatabaseAddressSettings, type PgSslMode, type PostgresAddress, type RedisAddress,
} from './connection-urls.js';
export {
  CACHE_TYPES, LOG_LEVELS, cacheSettings, databaseSettings, exposureSettings, httpSettings, loggingSettings, natsSettings, shutdownSettings,
  type CacheType,
} from './common.js';
export { isLoopbackHost, isSecureOrLoopbackUrl } from './loopback.js';
