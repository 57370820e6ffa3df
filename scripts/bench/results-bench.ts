/**
 * Results benchmark: writes 100,000 validation results with their categories
 * for one report (one row per patient submission, submission-results-table.ts), then reads them
 * back by facility and report with a severity filter, by category, and as category counts.
 *
 *   npx tsx scripts/bench/results-bench.ts [--results 100000] [--patients 500] [--queries 300] [--no-analyze]
 *
 * Uses a throw-away database on PostgreSQL (PGHOST/PGPORT/PGUSER or 127.0.0.1:5432 postgres),
 * dropped at the end. Prints the write rate (results/s and submissions/s), the stored size, and the
 * latency (p50/p99) of paged reads `?severity=error`, of pages of one category and of the category counts.
 */
import { randomBytes } from 'node:crypto';
import { parseArgs } from 'node:util';
import { MikroORM } from '@mikro-orm/postgresql';
import { openDatabase } from '#adapters/persistence/database.js';
import { silentLogger } from '#adapters/observability/logger.js';
import { PgCategoryRepository } from '#validation/adapters/persistence/category-repository.js';
import { validationApiEntities } from '#validation/adapters/persistence/entities.js';
import { validationApiMigrations } from '#validation/adapters/persistence/migrations.js';
import { PgResultRepository } from '#validation/adapters/persistence/result-repository.js';
import { defaultCategories } from '#validation/application/default-categories.js';
import type { NewResult } from '#validation/domain/ports/result-repository.js';
import { ISSUE_SEVERITIES } from '#validation/domain/results/issue-severity.js';
import { percentile } from './statistics.js';

const { values } = parseArgs({ options: {
  results: { type: 'string', default: '100000' },
  patients: { type: 'string', default: '500' },
  queries: { type: 'string', default: '300' },
  'no-analyze': { type: 'boolean', default: false },
} });
const TOTAL = Number(values.results);
const PATIENTS = Number(values.patients);
const QUERIES = Number(values.queries);
const PG = { host: process.env.PGHOST ?? '127.0.0.1', port: Number(process.env.PGPORT ?? 5432), user: process.env.PGUSER ?? 'postgres' };
const dbName = `bench_results_${Date.now().toString(36)}_${randomBytes(3).toString('hex')}`;

async function main(): Promise<void> {
  const db = await openDatabase({ ...PG, dbName, poolMax: 4, entities: validationApiEntities, migrations: validationApiMigrations, logger: silentLogger() });
  try {
    const categories = new PgCategoryRepository(db.orm);
    await categories.importSnapshots(defaultCategories(), new Date());
    const categoryIds = defaultCategories().map((c) => c.id);
    const results = new PgResultRepository(db.orm);

    // Realistic mix: mostly information/warning, a fifth errors; 1-2 categories per issue, some uncategorized.
    const perPatient = Math.ceil(TOTAL / PATIENTS);
    const batches: NewResult[][] = [];
    let links = 0;
    let made = 0;
    for (let p = 0; p < PATIENTS && made < TOTAL; p++) {
      const batch: NewResult[] = [];
      for (let i = 0; i < perPatient && made < TOTAL; i++, made++) {
        const severity = ISSUE_SEVERITIES[[0, 0, 1, 1, 2, 0, 1, 3, 0, 1][made % 10]!]!;
        const ids = made % 7 === 0 ? [] : made % 3 === 0 ? [categoryIds[made % categoryIds.length]!, categoryIds[(made + 5) % categoryIds.length]!] : [categoryIds[made % categoryIds.length]!];
        links += ids.length;
        batch.push({
          issue: {
            severity, code: 'structure',
            message: `Encounter.class: minimum required = 1, but only found 0 (from http://www.cdc.gov/nhsn/fhirportal/dqm/ig/StructureDefinition/ach-encounter|1.0.0) #${made % 400}`,
            expression: `Bundle.entry[${i}].resource.ofType(Encounter).where(id = 'enc-${p}-${i}').class`,
            location: `${i + 1}:3`, messageId: 'CARDINALITY_MIN',
          },
          categoryIds: ids,
        });
      }
      batches.push(batch);
    }

    const started = process.hrtime.bigint();
    for (let p = 0; p < batches.length; p++) {
      await results.replacePatientResults({ facilityId: 'bench-facility', reportId: 'bench-report', patientId: `patient-${p}` }, batches[p]!);
    }
    const insertSeconds = Number(process.hrtime.bigint() - started) / 1e9;
    // What autovacuum does on its own shortly after such a write; without it the planner still thinks the tables are empty.
    if (!values['no-analyze']) await db.orm.em.fork().execute('analyze validation_outcome');
    const size = await db.orm.em.fork().execute<{ bytes: string }[]>("select pg_total_relation_size('validation_outcome')::text as bytes");

    const pageCount = Math.ceil((await results.findResults({ facilityId: 'bench-facility', reportId: 'bench-report' }, 'error', { offset: 0, limit: 1 })).totalCount / 100);
    const pageTimes: number[] = [];
    for (let q = 0; q < QUERIES; q++) {
      const page = Math.floor(Math.random() * Math.max(1, pageCount));
      const t = process.hrtime.bigint();
      const found = await results.findResults({ facilityId: 'bench-facility', reportId: 'bench-report' }, 'error', { offset: page * 100, limit: 100 });
      pageTimes.push(Number(process.hrtime.bigint() - t) / 1e6);
      if (found.records.length === 0) throw new Error('empty page');
    }
    // Pages of one category: the most frequent real category, and the uncategorized issues.
    const counted = await results.countByCategory('bench-facility', 'bench-report');
    const categoryReads: { categoryId: string; pages: number; times: number[] }[] = [];
    for (const categoryId of [counted.find((c) => c.categoryId !== 'uncategorized')!.categoryId, 'uncategorized']) {
      const pages = Math.ceil((await results.findByCategory('bench-facility', 'bench-report', categoryId, { offset: 0, limit: 1 })).totalCount / 100);
      const times: number[] = [];
      for (let q = 0; q < QUERIES; q++) {
        const page = Math.floor(Math.random() * Math.max(1, pages));
        const t = process.hrtime.bigint();
        const found = await results.findByCategory('bench-facility', 'bench-report', categoryId, { offset: page * 100, limit: 100 });
        times.push(Number(process.hrtime.bigint() - t) / 1e6);
        if (found.records.length === 0) throw new Error(`empty page of ${categoryId}`);
      }
      categoryReads.push({ categoryId, pages, times: times.sort((a, b) => a - b) });
    }
    const countTimes: number[] = [];
    for (let q = 0; q < Math.min(QUERIES, 50); q++) {
      const t = process.hrtime.bigint();
      await results.countByCategory('bench-facility', 'bench-report');
      countTimes.push(Number(process.hrtime.bigint() - t) / 1e6);
    }
    pageTimes.sort((a, b) => a - b);
    countTimes.sort((a, b) => a - b);

    console.log(`results written: ${made} in ${batches.length} patient submissions, ${links} category assignments`);
    console.log(`write (one transaction per submission, one at a time): ${insertSeconds.toFixed(2)} s, ${Math.round(made / insertSeconds)} results/s, ${Math.round(batches.length / insertSeconds)} submissions/s; stored ${(Number(size[0]!.bytes) / 1024 / 1024).toFixed(1)} MiB (${Math.round(Number(size[0]!.bytes) / made)} bytes per result)`);
    console.log(`read ?severity=error, page of 100 (${QUERIES} random pages of ${pageCount}, with total count and categories): p50 ${percentile(pageTimes, 50).toFixed(1)} ms, p99 ${percentile(pageTimes, 99).toFixed(1)} ms`);
    for (const read of categoryReads) {
      console.log(`read issues of category ${read.categoryId}, page of 100 (${QUERIES} random pages of ${read.pages}): p50 ${percentile(read.times, 50).toFixed(1)} ms, p99 ${percentile(read.times, 99).toFixed(1)} ms`);
    }
    console.log(`category counts of the report (${countTimes.length} runs): p50 ${percentile(countTimes, 50).toFixed(1)} ms, p99 ${percentile(countTimes, 99).toFixed(1)} ms`);
  } finally {
    await db.close();
    const maintenance = await MikroORM.init({ ...PG, dbName: 'postgres', entities: validationApiEntities, ensureDatabase: false, allowGlobalContext: true, pool: { min: 0, max: 1 } });
    await maintenance.em.fork().execute(`drop database if exists "${dbName}" with (force)`);
    await maintenance.close(true);
  }
}

await main();
