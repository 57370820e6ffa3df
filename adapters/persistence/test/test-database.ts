import { randomBytes } from 'node:crypto';
import { MikroORM, defineEntity, p } from '@mikro-orm/postgresql';
import { Migration } from '@mikro-orm/migrations';
import type { Generated } from 'kysely';
import { silentLogger } from '../../observability/logger.js';
import { openDatabase, type Database } from '../database.js';
import { outboxMigration } from '../outbox/outbox-table.js';

/** Test-only helpers: a uniquely named database per spec file, a tiny entity and its migration. */

export const PG = {
  host: process.env.PGHOST ?? '127.0.0.1',
  port: Number(process.env.PGPORT ?? 5432),
  user: process.env.PGUSER ?? 'postgres',
};

export const Widget = defineEntity({
  name: 'Widget',
  tableName: 'widget',
  properties: {
    id: p.integer().primary().autoincrement(),
    label: p.string(),
    data: p.json<Record<string, unknown>>().nullable(),
  },
});

export class CreateWidgetTable extends Migration {
  override up(): void {
    this.addSql('create table "widget" ("id" serial primary key, "label" text not null, "data" jsonb null)');
  }
}

/** The tables the tests read through Kysely, besides the outbox (OutboxDatabase). */
export interface TestTables {
  widget: { id: Generated<number>; label: string; data: unknown };
  mikro_orm_migrations: { name: string };
  pg_database: { datname: string };
}

export const widgetMigration = { name: 'Migration20261122000001_widget', class: CreateWidgetTable };

export function uniqueDbName(prefix: string): string {
  return `test_${prefix}_${Date.now().toString(36)}_${randomBytes(4).toString('hex')}`;
}

/** `port`: reach PostgreSQL another way, e.g. through a TCP proxy that a test cuts. */
export function openTestDatabase(dbName: string, extra: { poolMax?: number; port?: number } = {}): Promise<Database> {
  return openDatabase({
    ...PG,
    ...(extra.port === undefined ? {} : { port: extra.port }),
    dbName,
    poolMax: extra.poolMax,
    entities: [Widget],
    migrations: [widgetMigration, outboxMigration],
    logger: silentLogger(),
  });
}

/** Runs statements against the `postgres` maintenance database (to look at or drop test databases). */
export async function withMaintenanceDb<T>(fn: (orm: MikroORM) => Promise<T>): Promise<T> {
  const orm = await MikroORM.init({
    ...PG,
    dbName: 'postgres',
    entities: [Widget],
    ensureDatabase: false,
    allowGlobalContext: true,
    pool: { min: 0, max: 1 },
  });
  try {
    return await fn(orm);
  } finally {
    await orm.close(true);
  }
}

export async function databaseExists(dbName: string): Promise<boolean> {
  return withMaintenanceDb(async (orm) => {
    const rows = await orm.em.fork().getKysely<TestTables>()
      .selectFrom('pg_database').select('datname').where('datname', '=', dbName).execute();
    return rows.length === 1;
  });
}

export async function dropTestDatabase(dbName: string): Promise<void> {
  if (!/^test_[a-z0-9_]+$/.test(dbName)) throw new Error(`refusing to drop ${dbName}`);
  await withMaintenanceDb((orm) => orm.em.fork().execute(`drop database if exists "${dbName}" with (force)`));
}
