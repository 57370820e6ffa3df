import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MikroORM } from '@mikro-orm/postgresql';
import { assert } from 'chai';
import { createHttpApp, listen, OpenApiBuilder, type HttpServerHandle } from '#adapters/http/index.js';
import { silentLogger } from '#adapters/observability/logger.js';
import { openDatabase, type Database } from '#adapters/persistence/index.js';
import { buildCatalog, type Catalog } from '#contracts/catalog.js';
import { tenantEntities } from '#tenant/adapters/persistence/entities.js';
import { tenantMigrations } from '#tenant/adapters/persistence/migrations.js';
import type { EhrConnection } from '#tenant/domain/ehr-connection.js';
import type { MasterKeyConfig, SigningKeyConfig } from '#tenant/signing-keys/adapters/config.js';
import type { JwksDocument } from '#tenant/signing-keys/domain/jwks.js';
import type { PublicJwk } from '#tenant/signing-keys/domain/model.js';
import { createSigningKeyModule, type SigningKeyModule } from '#tenant/composition.js';
import { signingKeyEntities, signingKeyMigrations } from '#tenant/signing-keys/index.js';

export const PG = { host: process.env.PGHOST ?? '127.0.0.1', port: Number(process.env.PGPORT ?? 5432), user: process.env.PGUSER ?? 'postgres' };

export const TEST_MASTER_KEY = randomBytes(32).toString('base64');
export const TEST_MASTER_KEY_ID = 'test-1';

/** What a harness module is configured with: the keyring `test-1` unless a test says otherwise. */
export type HarnessConfig = Partial<Pick<SigningKeyConfig, 'signingKeysJwksPath' | 'signingKeysDisabledRetentionMs' | 'signingKeysExpiryIntervalMs'>> & MasterKeyConfig;

/** Parts of a module a test may replace: its clock and where its JWKS documents go. */
export interface ModuleOverrides {
  readonly now?: () => Date;
  readonly writeJwks?: (document: JwksDocument) => Promise<void>;
}

/** A clock that runs with real time, shifted by `advance`. */
export class ShiftedClock {
  offsetMs = 0;
  readonly now = (): Date => new Date(Date.now() + this.offsetMs);
  advance(ms: number): void {
    this.offsetMs += ms;
  }
}

/**
 * A unique tenant database with the facility module's migrations and the registry's, the registry
 * module on the standard HTTP app listening on a real port, and a private JWKS directory.
 */
export interface SigningKeyHarness {
  readonly db: Database;
  /** The database's name, for a process of its own (`DB_URL`). */
  readonly dbName: string;
  readonly catalog: Catalog;
  readonly clock: ShiftedClock;
  readonly jwksPath: string;
  readonly keys: SigningKeyModule;
  readonly server: HttpServerHandle;
  readonly url: string;
  /** Another module on the same database (e.g. without master key), on its own server: another instance of the service. */
  withModule(config: HarnessConfig, overrides?: ModuleOverrides): Promise<{ keys: SigningKeyModule; url: string; close(): Promise<void> }>;
  addFacility(facilityId: string, options?: { kid?: string | null; deleted?: boolean; ehrConnections?: EhrConnection[] }): Promise<void>;
  sql<T = Record<string, unknown>>(query: string, params?: unknown[]): Promise<T[]>;
  close(): Promise<void>;
}

export async function openSigningKeyHarness(prefix: string, config: HarnessConfig = {}): Promise<SigningKeyHarness> {
  const dbName = `test_signing_keys_${prefix}_${Date.now().toString(36)}_${randomBytes(3).toString('hex')}`;
  const db = await openDatabase({
    ...PG, dbName, poolMax: 8, entities: [...tenantEntities, ...signingKeyEntities], migrations: [...tenantMigrations, ...signingKeyMigrations], logger: silentLogger(),
  });
  const dir = await mkdtemp(join(tmpdir(), 'jwks-'));
  const jwksPath = join(dir, 'nested', 'jwks.json');
  const catalog = buildCatalog({ subjectRoot: `t${randomBytes(4).toString('hex')}`, streamSuffix: `_T${randomBytes(3).toString('hex').toUpperCase()}`, streamLimits: 'test' });
  const clock = new ShiftedClock();
  const servers: HttpServerHandle[] = [];
  const modules: SigningKeyModule[] = [];

  async function serve(configOverrides: HarnessConfig, overrides: ModuleOverrides = {}) {
    const keys = createSigningKeyModule({
      orm: db.orm, logger: silentLogger(), catalog, now: overrides.now ?? clock.now,
      ...(overrides.writeJwks ? { writeJwks: overrides.writeJwks } : {}),
      config: {
        signingKeysMasterKeys: [{ id: TEST_MASTER_KEY_ID, base64: TEST_MASTER_KEY }], signingKeysJwksPath: jwksPath,
        signingKeysDisabledRetentionMs: 24 * 3_600_000, signingKeysExpiryIntervalMs: 60_000, ...config, ...configOverrides,
      },
    });
    const openApi = new OpenApiBuilder({ title: 'Tenant API', version: 'test' });
    keys.registerOpenApi(openApi);
    const http = createHttpApp({ serviceName: 'tenant-signing-keys-test', logger: silentLogger(), openApi });
    http.app.use(keys.router);
    http.app.use(keys.jwksRouter);
    const server = await listen(http.finish(), 0, '127.0.0.1');
    servers.push(server);
    modules.push(keys);
    return { keys, server };
  }

  const main = await serve({});
  return {
    db, dbName, catalog, clock, jwksPath, keys: main.keys, server: main.server, url: main.server.url,
    async withModule(configOverrides, overrides) {
      const extra = await serve(configOverrides, overrides);
      return { keys: extra.keys, url: extra.server.url, close: () => extra.server.close(100) };
    },
    async addFacility(facilityId, options = {}) {
      await db.orm.em.fork().execute(
        `insert into "facility" ("id", "facility_id", "time_zone", "scheduled_reports", "key_id", "ehr_connections", "is_deleted", "create_date")
         values (gen_random_uuid()::text, ?, 'UTC', '{"daily":[],"weekly":[],"monthly":[]}', ?, ?::jsonb, ?, now())`,
        [facilityId, options.kid ?? null, JSON.stringify(options.ehrConnections ?? []), options.deleted ?? false]);
    },
    sql: (query, params = []) => db.orm.em.fork().execute(query, params),
    async close() {
      await Promise.all(modules.map((module) => module.stop()));
      await Promise.all(servers.map((server) => server.close(100)));
      await db.close();
      await dropDatabase(dbName);
      await rm(dir, { recursive: true, force: true });
    },
  };
}

export async function dropDatabase(dbName: string): Promise<void> {
  const orm = await MikroORM.init({ ...PG, dbName: 'postgres', entities: signingKeyEntities, ensureDatabase: false, allowGlobalContext: true, pool: { min: 0, max: 1 } });
  try {
    await orm.em.fork().execute(`drop database if exists "${dbName}" with (force)`);
  } finally {
    await orm.close(true);
  }
}

/**
 * A response body as these tests read it: one of the API's answers (a signing key, a page of
 * them, the JWKS, a client assertion, a Problem), so every member is optional; one the answer
 * lacks reads as undefined, which the assertion then reports.
 */
export interface ResponseBody {
  kid?: string; algorithm?: string; status?: string; primary?: boolean; statusChangedAt?: string; publicJwk?: PublicJwk;
  facilities?: string[];
  metadata?: Record<string, number>; records?: { kid: string; algorithm: string }[];
  keys?: PublicJwk[];
  clientAssertion?: string; jti?: string; expiresAt?: string; connection?: string;
  type?: string; detail?: string; errors?: { field: string }[];
}

/** A member the test goes on with (as an argument, a key): the test fails here, naming it, when the answer lacks it. */
export function required<T>(value: T | undefined, what: string): T {
  assert.isDefined(value, what);
  return value;
}

/** Minimal JSON-over-HTTP client (fetch): status, headers and the parsed body. */
export async function call(method: string, url: string, body?: unknown): Promise<{ status: number; headers: Headers; body: ResponseBody }> {
  const response = await fetch(url, {
    method, ...(body === undefined ? {} : { body: JSON.stringify(body), headers: { 'content-type': 'application/json' } }),
  });
  const text = await response.text();
  let parsed: unknown = text;
  try {
    parsed = text === '' ? undefined : JSON.parse(text);
  } catch {
    // not JSON: keep the text
  }
  return { status: response.status, headers: response.headers, body: parsed as ResponseBody };
}
