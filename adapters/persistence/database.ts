import { readFileSync } from 'node:fs';
import { isIP } from 'node:net';
import { checkServerIdentity, type ConnectionOptions } from 'node:tls';
import { MikroORM, type MigrationObject, type Options } from '@mikro-orm/postgresql';
import { Migrator } from '@mikro-orm/migrations';
import { databaseAddress, type DatabaseAddressSettings, type PgSslMode } from '../config/index.js';
import type { Logger } from '../observability/logger.js';
import { withOutboxMigrations } from './outbox/outbox-table.js';

/**
 * One PostgreSQL database per service, opened through MikroORM. Opening it creates the database when it
 * does not exist yet and applies the committed migrations, so a fresh environment needs no manual step.
 */

export interface DatabaseOptions {
  host: string;
  port?: number;
  user: string;
  password?: string;
  dbName: string;
  /** TLS to the server, with libpq's sslmode meanings (see pgSslOptions); default `disable`. */
  sslMode?: PgSslMode;
  /** PEM file of the CA certificate(s) that verify the server (libpq's sslrootcert); default Node's trust store. */
  sslRootCert?: string;
  /** Pool size. At least 2: start-up holds one connection for the migration lock while the migrator uses another. */
  poolMax?: number;
  /** `defineEntity(...)` results or EntitySchemas of this service. */
  entities: NonNullable<Options['entities']>;
  /** Migration classes in the order they were written; names are what the migration table records, so never rename one. */
  migrations: MigrationObject[];
  logger: Logger;
  /** How long `readinessCheck` waits for `select 1`. */
  readinessTimeoutMs?: number;
  /** Log every SQL statement at debug level. */
  debugSql?: boolean;
}

export interface Database {
  orm: MikroORM;
  /** Resolves when the database answers `select 1` in time; rejects with the reason otherwise. */
  readinessCheck(): Promise<void>;
  close(): Promise<void>;
}

/**
 * Any constant works as long as every service uses the same one: the lock is per database, and each
 * service has its own database, so two instances of one service serialise their migrations on it.
 */
const MIGRATION_LOCK_KEY = 7_310_402_118;

/**
 * The connection fields of DatabaseOptions from a service's configuration: `db.url` when set (with its
 * sslmode and sslrootcert), else db.host/db.port/db.user/db.name; the password is always `db.password`.
 */
export function databaseConnection(config: DatabaseAddressSettings & { dbPassword?: string }):
  Pick<DatabaseOptions, 'host' | 'port' | 'user' | 'password' | 'dbName' | 'sslMode' | 'sslRootCert'> {
  const address = databaseAddress(config);
  return {
    host: address.host, port: address.port, user: address.user, password: config.dbPassword, dbName: address.database,
    sslMode: address.sslMode, sslRootCert: address.sslRootCert,
  };
}

/**
 * node-postgres `ssl` options for a libpq sslmode. node-postgres' own connection-string parsing treats
 * `require` and `verify-ca` as `verify-full` and announces libpq's meanings for its next major
 * version, so the libpq meaning (what its `uselibpqcompat` mode does) is spelled out here instead:
 * - `disable`: no TLS.
 * - `require`: encrypted, the server is not authenticated — unless a CA is given, which makes it
 *   `verify-ca` (libpq does the same when a root certificate is present).
 * - `verify-ca`: the certificate must chain to the CA (or Node's trust store); the host name is not checked.
 * - `verify-full`: chain and host name (against the configured host, also when it is an IP address).
 */
export function pgSslOptions(mode: PgSslMode, host: string, ca?: string): false | ConnectionOptions {
  const trust = ca === undefined ? {} : { ca };
  if (mode === 'disable') return false;
  if (mode === 'require' && ca === undefined) return { rejectUnauthorized: false };
  if (mode === 'require' || mode === 'verify-ca') return { rejectUnauthorized: true, ...trust, checkServerIdentity: () => undefined };
  return {
    rejectUnauthorized: true,
    ...trust,
    // SNI only carries DNS names; an IP address is still checked against the certificate's IP SANs below.
    ...(isIP(host) === 0 ? { servername: host } : {}),
    checkServerIdentity: (_servername, cert) => checkServerIdentity(host, cert),
  };
}

function readRootCert(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (error) {
    throw new Error(`Cannot read the PostgreSQL CA certificate file ${file} (sslrootcert of db.url): ${error instanceof Error ? error.message : String(error)}`, { cause: error });
  }
}

export async function openDatabase(options: DatabaseOptions): Promise<Database> {
  const { logger } = options;
  const ssl = pgSslOptions(options.sslMode ?? 'disable', options.host, options.sslRootCert === undefined ? undefined : readRootCert(options.sslRootCert));
  const orm = await MikroORM.init({
    entities: options.entities,
    dbName: options.dbName,
    host: options.host,
    port: options.port ?? 5432,
    user: options.user,
    password: options.password,
    pool: { min: 0, max: Math.max(2, options.poolMax ?? 10) },
    // Handed to the pg Pool as is (MikroORM's clientUrl would ignore sslmode).
    ...(ssl ? { driverOptions: { ssl } } : {}),
    // Without this, code that forgets to fork would share one identity map across requests.
    allowGlobalContext: false,
    // We create the database ourselves below, where a start-up race between two instances is handled.
    ensureDatabase: false,
    extensions: [Migrator],
    migrations: { migrationsList: withOutboxMigrations(options.migrations), snapshot: false, transactional: true, allOrNothing: true },
    debug: options.debugSql ?? false,
    logger: (message: string) => logger.debug({ component: 'mikro-orm' }, stripAnsi(message)),
  });

  try {
    await ensureDatabaseExists(orm, options.dbName, logger);
    await applyMigrations(orm, logger);
  } catch (error) {
    await orm.close(true).catch(() => undefined);
    throw error;
  }

  const readinessTimeoutMs = options.readinessTimeoutMs ?? 2000;
  let closed = false;
  return {
    orm,
    // MikroORM reconnects lazily after close(), so a closed Database must say so itself.
    readinessCheck: () => (closed ? Promise.reject(new Error('database closed')) : selectOne(orm, readinessTimeoutMs)),
    close: async () => {
      closed = true;
      await orm.close(true);
    },
  };
}

async function ensureDatabaseExists(orm: MikroORM, dbName: string, logger: Logger): Promise<void> {
  try {
    const created = await orm.schema.ensureDatabase({ create: false });
    if (created) logger.info({ dbName }, 'database ready');
  } catch (error) {
    // Two instances starting together both see "absent" and both CREATE; the loser gets 42P04 or, when
    // the catalogue insert collides first, 23505 on pg_database. MikroORM has by then switched this
    // connection to the maintenance database, so point it back.
    const code = typeof error === 'object' && error !== null && 'code' in error ? error.code : undefined;
    if (code !== '42P04' && code !== '23505') throw error;
    logger.info({ dbName }, 'database was created concurrently by another instance');
    orm.config.set('dbName', dbName);
    await orm.reconnect();
  }
}

async function applyMigrations(orm: MikroORM, logger: Logger): Promise<void> {
  const em = orm.em.fork();
  // A transaction-scoped advisory lock: a second instance starting at the same moment waits here and
  // then finds nothing pending, instead of running the same CREATE TABLE twice.
  await em.transactional(async (tx) => {
    await tx.execute(`select pg_advisory_xact_lock(${MIGRATION_LOCK_KEY})`);
    const applied = await orm.migrator.up();
    if (applied.length > 0) logger.info({ migrations: applied.map((m) => m.name) }, 'migrations applied');
  });
}

async function selectOne(orm: MikroORM, timeoutMs: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`database did not answer within ${timeoutMs} ms`)), timeoutMs);
  });
  try {
    // Promise.race also covers the wait for a free pool connection, which a statement timeout would not.
    await Promise.race([orm.em.fork().execute('select 1'), timeout]);
  } finally {
    clearTimeout(timer);
  }
}

function stripAnsi(text: string): string {
  // eslint-disable-next-line no-control-regex
  return text.replace(/\u001b\[[0-9;]*m/g, '');
}
