import { randomBytes } from 'node:crypto';
import { MikroORM } from '@mikro-orm/postgresql';
import { openDatabase } from '../../adapters/persistence/database.js';
import { insertMany } from '../../adapters/persistence/bulk-insert.js';
import { silentLogger } from '../../adapters/observability/logger.js';
import { validationApiEntities } from '../../services/validation/src/adapters/persistence/entities.js';
import { validationApiMigrations } from '../../services/validation/src/adapters/persistence/migrations.js';
const PG = { host: '127.0.0.1', port: 5432, user: 'postgres' };
const dbName = `bench_prof_${randomBytes(3).toString('hex')}`;
const db = await openDatabase({ ...PG, dbName, poolMax: 4, entities: validationApiEntities, migrations: validationApiMigrations, logger: silentLogger() });
await db.orm.em.fork().execute(`insert into category values ('c1','t','ERROR',false,'g'),('c2','t','ERROR',true,'g')`);
const times: Record<string, number> = {};
const time = async <T>(k: string, fn: () => Promise<T>) => { const t = performance.now(); try { return await fn(); } finally { times[k] = (times[k] ?? 0) + performance.now() - t; } };
const t0 = performance.now();
for (let p = 0; p < 150; p++) {
  await time('tx', () => db.orm.em.fork().transactional(async (em) => {
    const kdb = em.getKysely<any>();
    await time('delete', () => kdb.deleteFrom('validation_result').where('facility_id', '=', 'f').where('report_id', '=', 'r').where('patient_id', '=', `p${p}`).execute());
    const ids = await time('ids', async () => (await em.execute<{ id: string }[]>(`select nextval('validation_result_id_seq')::text as id from generate_series(1, 200)`)).map((r) => r.id));
    await time('cats', () => kdb.selectFrom('category').select('id').where('id', 'in', ['c1', 'c2']).execute());
    const rows = ids.map((id, i) => [id, 'f', 'r', `p${p}`, 'error', 'structure', `m ${i}`, null, `Bundle.entry[${i}]`, null]);
    await time('insert', () => insertMany(em, 'validation_result', ['id', 'facility_id', 'report_id', 'patient_id', 'severity', 'code', 'message', 'location', 'expression', 'message_id'], rows, { chunkSize: 6000 }));
    const links = ids.flatMap((id, i) => (i % 3 ? [[id, 'c1', 'f', 'r']] : [[id, 'c1', 'f', 'r'], [id, 'c2', 'f', 'r']]));
    await time('links', () => insertMany(em, 'result_category', ['result_id', 'category_id', 'facility_id', 'report_id'], links, { chunkSize: 15000 }));
  }));
}
console.log('total', performance.now() - t0, times);
await db.close();
const m = await MikroORM.init({ ...PG, dbName: 'postgres', entities: validationApiEntities, ensureDatabase: false, allowGlobalContext: true });
await m.em.fork().execute(`drop database if exists "${dbName}" with (force)`);
await m.close(true);
