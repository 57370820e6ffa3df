import { randomBytes } from 'node:crypto';
import { MikroORM } from '@mikro-orm/postgresql';
import { openDatabase, type Database } from '#adapters/persistence/database.js';
import { silentLogger } from '#adapters/observability/logger.js';
import { validationApiEntities } from '#validation/adapters/persistence/entities.js';
import { validationApiMigrations } from '#validation/adapters/persistence/migrations.js';

/** A uniquely named database per spec file (other engineers' tests share the server), dropped afterwards. */
export const PG = { host: process.env.PGHOST ?? '127.0.0.1', port: Number(process.env.PGPORT ?? 5432), user: process.env.PGUSER ?? 'postgres' };

export function uniqueDbName(prefix: string): string {
  return `test_valapi_${prefix}_${Date.now().toString(36)}_${randomBytes(3).toString('hex')}`;
}

export function openValidationTestDatabase(dbName: string): Promise<Database> {
  return openDatabase({ ...PG, dbName, poolMax: 6, entities: validationApiEntities, migrations: validationApiMigrations, logger: silentLogger() });
}

export async function dropValidationTestDatabase(dbName: string): Promise<void> {
  if (!/^test_valapi_[a-z0-9_]+$/.test(dbName)) throw new Error(`refusing to drop ${dbName}`);
  const orm = await MikroORM.init({ ...PG, dbName: 'postgres', entities: validationApiEntities, ensureDatabase: false, allowGlobalContext: true, pool: { min: 0, max: 1 } });
  try {
    await orm.em.fork().execute(`drop database if exists "${dbName}" with (force)`);
  } finally {
    await orm.close(true);
  }
}
