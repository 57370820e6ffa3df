import { envVarName } from './load.js';
import { defineSetting, SettingParseError, type Setting } from './setting.js';

/**
 * Addresses of PostgreSQL and Redis given as one URL each (`db.url`, `data.cache-server.url`), the
 * form managed services and operators hand out. Parsed at start-up, so a bad URL stops the service
 * with exit code 78 naming the property. Passwords are never accepted inside a URL: they are secrets
 * (`db.password`, `data.cache-server.password`) and a URL is a plain ConfigMap value that ends up in
 * logs, `kubectl describe` and shell history. No I/O here: the CA file named by `sslrootcert` is read
 * when the database is opened, because manifests are checked on machines that do not have it.
 */

/**
 * libpq's sslmode values that node-postgres can honour. `allow` and `prefer` need a fallback between
 * TLS and plain connections that the driver does not implement, so they are refused rather than
 * silently treated as something else.
 */
export const PG_SSL_MODES = ['disable', 'require', 'verify-ca', 'verify-full'] as const;
export type PgSslMode = (typeof PG_SSL_MODES)[number];

export interface PostgresAddress {
  readonly host: string;
  readonly port: number;
  readonly user: string;
  readonly database: string;
  /** `disable` when the URL has no sslmode (node-postgres' default; libpq's `prefer` has no equivalent). */
  readonly sslMode: PgSslMode;
  /** File with the CA certificate(s) that verify the server (`sslrootcert`); absent = Node's trust store. */
  readonly sslRootCert?: string;
}

export interface RedisAddress {
  readonly host: string;
  readonly port: number;
  readonly username?: string;
  readonly database: number;
  /** `rediss://`: TLS with certificate and host name verification. */
  readonly tls: boolean;
}

const fail = (message: string): never => {
  throw new SettingParseError(message);
};

/**
 * The value with anything that may be a password replaced, so an error message never echoes one:
 * between the first `:` after `scheme://` and the last `@` (a password may itself contain `@` or `/`).
 */
function redacted(raw: string): string {
  const at = raw.lastIndexOf('@');
  if (at < 0) return raw;
  const start = raw.indexOf('://');
  if (start < 0 || start > at) return '(not shown: it may hold credentials)';
  const colon = raw.indexOf(':', start + 3);
  return colon >= 0 && colon < at ? `${raw.slice(0, colon)}:***${raw.slice(at)}` : raw;
}

function parseUrl(raw: string, schemes: readonly string[], example: string, passwordProperty: string): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return fail(`must be a URL such as ${example}; got ${JSON.stringify(redacted(raw))}`);
  }
  if (!schemes.includes(url.protocol)) {
    fail(`must be a URL with scheme ${schemes.map((s) => s.replace(':', '')).join(' or ')} (${example}); got ${JSON.stringify(redacted(raw))}`);
  }
  if (url.password !== '') {
    fail(`must not contain a password (${redacted(raw).replace(/\?.*$/, '')}): give it in the secret ${passwordProperty} (${envVarName(passwordProperty)}) instead`);
  }
  if (url.hostname === '') fail(`must name a host (${example}); got ${JSON.stringify(raw)}`);
  return url;
}

function portOf(url: URL, fallback: number): number {
  return url.port === '' ? fallback : Number(url.port);
}

/** IPv6 literals come bracketed from the URL parser; the drivers want them bare. */
function hostOf(url: URL): string {
  return decodeURIComponent(url.hostname.replace(/^\[(.*)\]$/, '$1'));
}

const PG_EXAMPLE = 'postgres://user@host:5432/dbname?sslmode=verify-full&sslrootcert=/path/ca.crt';

export function parsePostgresUrl(raw: string): PostgresAddress {
  const url = parseUrl(raw, ['postgres:', 'postgresql:'], PG_EXAMPLE, 'db.password');
  const user = decodeURIComponent(url.username);
  const database = decodeURIComponent(url.pathname.replace(/^\//, ''));
  // libpq would fall back to the OS user and a database named like the user; inside a container that
  // is never what was meant, so both must be spelled out.
  if (user === '') fail(`must name the user (${PG_EXAMPLE}); got ${JSON.stringify(raw)}`);
  if (database === '' || database.includes('/')) fail(`must name exactly one database as its path (${PG_EXAMPLE}); got ${JSON.stringify(raw)}`);

  let sslMode: PgSslMode = 'disable';
  let sslRootCert: string | undefined;
  for (const [key, value] of url.searchParams) {
    if (key === 'sslmode') {
      sslMode = PG_SSL_MODES.find((mode) => mode === value) ?? fail(`sslmode must be one of ${PG_SSL_MODES.join(', ')}; got ${JSON.stringify(value)}`);
    } else if (key === 'sslrootcert') {
      if (value === '') fail('sslrootcert must name a file');
      sslRootCert = value;
    } else {
      // An ignored parameter (sslcert, connect_timeout, options ...) would look applied but not be.
      fail(`has the unsupported parameter ${JSON.stringify(key)} (supported: sslmode, sslrootcert)`);
    }
  }
  if (sslRootCert !== undefined && sslMode === 'disable') fail('sslrootcert needs sslmode require, verify-ca or verify-full');
  return { host: hostOf(url), port: portOf(url, 5432), user, database, sslMode, ...(sslRootCert === undefined ? {} : { sslRootCert }) };
}

const REDIS_EXAMPLE = 'rediss://user@host:6379/0';

export function parseRedisUrl(raw: string): RedisAddress {
  const url = parseUrl(raw, ['redis:', 'rediss:'], REDIS_EXAMPLE, 'data.cache-server.password');
  const path = url.pathname.replace(/^\//, '');
  if (path !== '' && !/^(\d|1[0-5])$/.test(path)) fail(`must have a database index 0..15 as its path (${REDIS_EXAMPLE}); got ${JSON.stringify(raw)}`);
  if (url.search !== '') fail(`must not have query parameters; got ${JSON.stringify(raw)}`);
  const username = decodeURIComponent(url.username);
  return {
    host: hostOf(url),
    port: portOf(url, 6379),
    ...(username === '' ? {} : { username }),
    database: path === '' ? 0 : Number(path),
    tls: url.protocol === 'rediss:',
  };
}

export function postgresUrlSetting(name: string, description: string): Setting<PostgresAddress> {
  return defineSetting(name, description,
    `URL postgres://user@host:port/dbname[?sslmode=${PG_SSL_MODES.join('|')}&sslrootcert=file], no password`,
    parsePostgresUrl);
}

export function redisUrlSetting(name: string, description: string): Setting<RedisAddress> {
  return defineSetting(name, description, 'URL redis:// or rediss:// (TLS) [user@]host:port[/db], no password', parseRedisUrl);
}

/** The settings the PostgreSQL address is resolved from (adapters/config databaseSettings). */
export interface DatabaseAddressSettings {
  readonly dbUrl?: PostgresAddress;
  readonly dbHost: string;
  readonly dbPort: number;
  readonly dbUser: string;
  readonly dbName: string;
}

/** `db.url` when set, else db.host/db.port/db.user/db.name without TLS. */
export function databaseAddress(config: DatabaseAddressSettings): PostgresAddress {
  return config.dbUrl ?? { host: config.dbHost, port: config.dbPort, user: config.dbUser, database: config.dbName, sslMode: 'disable' };
}

/** The settings the Redis address is resolved from (adapters/config cacheSettings). */
export interface CacheServerAddressSettings {
  readonly cacheServerUrl?: RedisAddress;
  readonly cacheServerHost: string;
  readonly cacheServerPort: number;
  readonly cacheServerUsername?: string;
  readonly cacheServerDatabase: number;
}

/** `data.cache-server.url` when set, else data.cache-server.host/port/username/database without TLS. */
export function cacheServerAddress(config: CacheServerAddressSettings): RedisAddress {
  return config.cacheServerUrl ?? {
    host: config.cacheServerHost, port: config.cacheServerPort, database: config.cacheServerDatabase, tls: false,
    ...(config.cacheServerUsername === undefined ? {} : { username: config.cacheServerUsername }),
  };
}
