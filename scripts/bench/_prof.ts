import { randomBytes } from 'node:crypto';
import { MikroORM } from '@mikro-orm/postgresql';
import { openDatabase } from '../../adapters/persistence/database.js';
import { silentLogger } from '../../adapters/observability/logger.js';
import { validationApiEntities } from '../../services/validation/src/adapters/persistence/entities.js';
import { validationApiMigrations } from '../../services/validation/src/adapters/persistence/migrations.js';
const PG = { host: '127.0.0.1', port: 5432, user: 'postgres' };
const dbName = `bench_prof_${randomBytes(3).toString('hex')}`;
const db = await openDatabase({ ...PG, dbName, poolMax: 4, entities: validationApiEntities, migrations: validationApiMigrations, logger: silentLogger(), debugSql: false });
await db.orm.em.fork().execute(`insert into category values ('c1','t','ERROR',false,'g'),('c2','t','ERROR',true,'g')`);
const em0 = db.orm.em.fork();
const origExecute = em0.getConnection().execute.bind(em0.getConnection());
const times: Record<string, number> = {};
const conn = db.orm.em.getConnection() as any;
const orig = conn.execute.bind(conn);
conn.execute = async (q: any, ...rest: any[]) => {
  const t = performance.now();
  try { return await orig(q, ...rest); } finally {
    const sql = typeof q === 'string' ? q : (q?.sql ?? String(q));
    const k = sql.slice(0, 40);
    times[k] = (times[k] ?? 0) + performance.now() - t;
  }
};
void origExecute;
const { PgResultRepository } = await import('../../services/validation/src/adapters/persistence/result-repository.js');
const repo = new PgResultRepository(db.orm);
const t0 = performance.now();
for (let p = 0; p < 150; p++) {
  const batch = Array.from({ length: 200 }, (_, i) => ({ issue: { severity: 'error' as const, code: 'structure', message: `m ${i}`, expression: `Bundle.entry[${i}]` }, categoryIds: i % 3 ? ['c1'] : ['c1', 'c2'] }));
  await repo.replacePatientResults({ facilityId: 'f', reportId: 'r', patientId: `p${p}` }, batch);
}
console.log('total', performance.now() - t0);
console.log(times);
await db.close();
const m = await MikroORM.init({ ...PG, dbName: 'postgres', entities: validationApiEntities, ensureDatabase: false, allowGlobalContext: true });
await m.em.fork().execute(`drop database if exists "${dbName}" with (force)`);
await m.close(true);
