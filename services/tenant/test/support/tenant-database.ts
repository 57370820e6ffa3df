import { randomBytes, randomUUID } from 'node:crypto';
import { MikroORM } from '@mikro-orm/postgresql';
import { openDatabase, type Database } from '#adapters/persistence/index.js';
import { silentLogger } from '#adapters/observability/logger.js';
import { buildCatalog, type Catalog } from '#contracts/catalog.js';
import type { MessageName, MessagePayloads } from '#contracts/types.js';
import type { TenantContext } from '#tenant/application/context.js';
import { ManualClock } from '#tenant/domain/clock.js';
import { tenantEntities } from '#tenant/adapters/persistence/entities.js';
import { tenantMigrations } from '#tenant/adapters/persistence/migrations.js';
import { MikroTenantStore } from '#tenant/adapters/persistence/tenant-store.js';

/** A uniquely named tenant database per spec file, with the real migrations; dropped afterwards. */
export interface TenantTestDatabase {
  readonly database: Database;
  readonly orm: MikroORM;
  readonly catalog: Catalog;
  readonly clock: ManualClock;
  readonly context: TenantContext;
  readonly settings: { checkIfMeasureExists: boolean };
  /** host/port/user/dbName, for a second ORM on the same database. */
  readonly connectionOptions: { host: string; port: number; user: string; dbName: string };
  /** Outbox rows of one subject name, oldest first. */
  outbox<N extends MessageName>(name: N): Promise<Array<{ subject: string; msg_id: string; payload: MessagePayloads[N] }>>;
  truncate(): Promise<void>;
  close(): Promise<void>;
}

const PG = { host: process.env.PGHOST ?? '127.0.0.1', port: Number(process.env.PGPORT ?? 5432), user: process.env.PGUSER ?? 'postgres' };

export async function openTenantTestDatabase(prefix: string, start = '2026-01-15T12:00:00Z'): Promise<TenantTestDatabase> {
  const dbName = `test_tenant_${prefix}_${Date.now().toString(36)}_${randomBytes(3).toString('hex')}`;
  const database = await openDatabase({
    ...PG, dbName, poolMax: 12, entities: tenantEntities, migrations: tenantMigrations, logger: silentLogger(),
  });
  const catalog = buildCatalog({ subjectRoot: `t${randomBytes(4).toString('hex')}`, streamSuffix: `_T${randomBytes(3).toString('hex').toUpperCase()}`, streamLimits: 'test' });
  const clock = new ManualClock(start);
  const settings = { checkIfMeasureExists: false };
  const store = new MikroTenantStore({ orm: database.orm, catalog });
  const context: TenantContext = { store, clock, newId: randomUUID, settings };
  return {
    database,
    orm: database.orm,
    catalog,
    clock,
    context,
    settings,
    connectionOptions: { ...PG, dbName },
    async outbox(name: string) {
      return database.orm.em.fork().execute(
        'select subject, msg_id, payload from outbox_message where subject = ? order by created_at, id', [catalog.byName(name).subject]);
    },
    async truncate() {
      await database.orm.em.fork().execute(
        'truncate report_schedule, facility_reporting_plan, measure_mapping, facility, vendor_version, vendor, outbox_message');
    },
    async close() {
      await database.close();
      await dropDatabase(dbName);
    },
  };
}

async function dropDatabase(dbName: string): Promise<void> {
  const orm = await MikroORM.init({ ...PG, dbName: 'postgres', entities: tenantEntities, ensureDatabase: false, allowGlobalContext: true, pool: { min: 0, max: 1 } });
  try {
    await orm.em.fork().execute(`drop database if exists "${dbName}" with (force)`);
  } finally {
    await orm.close(true);
  }
}
