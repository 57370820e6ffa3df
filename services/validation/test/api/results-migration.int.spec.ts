/**
 * The move from one row per issue (validation_result + result_category) to one row per submission
 * (migration StoreResultsPerSubmission) on a database holding results of both kinds: stored by the
 * flow with their outcome, and stored through the API without one. Real PostgreSQL.
 */
import { expect } from 'chai';
import { openDatabase, type Database } from '#adapters/persistence/database.js';
import { silentLogger } from '#adapters/observability/logger.js';
import { validationApiEntities } from '#validation/adapters/persistence/entities.js';
import { validationApiMigrations } from '#validation/adapters/persistence/migrations.js';
import { PgResultRepository } from '#validation/adapters/persistence/result-repository.js';
import { PgFlowStore } from '#validation/adapters/persistence/pg-flow-store.js';
import { dropValidationTestDatabase, PG, uniqueDbName } from './support/database.js';

/** The migrations before the move (those after it assume its columns). */
const BEFORE = validationApiMigrations.filter((m) => m.name < 'Migration20261125100000_results_per_submission');
const open = (dbName: string, migrations = validationApiMigrations) =>
  openDatabase({ ...PG, dbName, poolMax: 4, entities: validationApiEntities, migrations, logger: silentLogger() });

/** What the flow stored for one submission before: its outcome, and one result row per issue in outcome order. */
const flowOutcome = {
  resourceType: 'OperationOutcome',
  issue: [
    { severity: 'error', code: 'required', details: { text: 'Encounter.status: minimum required = 1' }, expression: ['Bundle.entry[1].resource.ofType(Encounter).status'] },
    { severity: 'warning', code: 'invariant', details: { text: 'dom-6: narrative' }, expression: ['Bundle.entry[0].resource.ofType(Patient)'] },
    { severity: 'information', code: 'informational', details: { text: 'no terminology server' }, expression: ['Bundle.entry[2].resource.ofType(Observation).code'] },
  ],
};

describe('results migration: one row per issue → one row per submission (PostgreSQL)', function () {
  this.timeout(30_000);
  const dbName = uniqueDbName('resmig');
  let db: Database | undefined;

  after(async () => {
    await db?.close();
    await dropValidationTestDatabase(dbName);
  });

  it('carries every stored result over with its categories, builds outcomes for API-stored results, and drops the old tables', async () => {
    const old = await open(dbName, BEFORE);
    const em = old.orm.em.fork();
    await em.execute(`insert into category (id, title, severity, acceptable, guidance) values
      ('c_ok', 'OK', 'WARNING', true, 'g'), ('c_bad', 'Bad', 'ERROR', false, 'g')`);
    await em.execute(`insert into validation_outcome (facility_id, report_id, patient_id, outcome, outcome_hash, valid, run_id, issue_count, error_count,
        warning_count, information_count, uncategorized_count, unacceptable_count, resource_count)
      values ('f', 'r', 'p1', ?::jsonb, 'hash-p1', false, 'run-p1', 3, 1, 1, 1, 1, 1, 3),
             ('f', 'r', 'p404', '{"resourceType":"OperationOutcome","issue":[{"severity":"fatal","code":"not-found","details":{"text":"gone"}}]}', 'hash-404', false, 'run-404', 1, 1, 0, 0, 1, 0, 0)`,
    [JSON.stringify(flowOutcome)]);
    await em.execute(`insert into validation_result (id, facility_id, report_id, patient_id, severity, code, message, location, expression, message_id) values
      (11, 'f', 'r', 'p1', 'error', 'required', 'Encounter.status: minimum required = 1', null, 'Bundle.entry[1].resource.ofType(Encounter).status', null),
      (12, 'f', 'r', 'p1', 'warning', 'invariant', 'dom-6: narrative', null, 'Bundle.entry[0].resource.ofType(Patient)', null),
      (13, 'f', 'r', 'p1', 'information', 'informational', 'no terminology server', null, 'Bundle.entry[2].resource.ofType(Observation).code', null),
      (14, 'f', 'r', 'p404', 'fatal', 'not-found', 'gone', null, null, null),
      (21, 'f', 'r', 'api-1', 'error', 'structure', 'seeded one', '3:14', 'Patient.name', 'MSG_1'),
      (22, 'f', 'r', 'api-1', 'warning', 'structure', 'seeded two', null, null, null)`);
    await em.execute(`insert into result_category (result_id, category_id, facility_id, report_id) values
      (11, 'c_bad', 'f', 'r'), (12, 'c_ok', 'f', 'r'), (21, 'c_ok', 'f', 'r'), (21, 'c_gone', 'f', 'r')`);
    await old.close();

    db = await open(dbName);
    const results = new PgResultRepository(db.orm);
    const page = await results.findResults({ facilityId: 'f', reportId: 'r' }, undefined, { offset: 0, limit: 100 });
    expect(page.totalCount).to.equal(6);
    expect(page.records.map((r) => [r.patientId, r.severity, r.message, r.categoryIds])).to.deep.equal([
      ['api-1', 'error', 'seeded one', ['c_ok']],
      ['api-1', 'warning', 'seeded two', []],
      ['p1', 'error', 'Encounter.status: minimum required = 1', ['c_bad']],
      ['p1', 'warning', 'dom-6: narrative', ['c_ok']],
      ['p1', 'information', 'no terminology server', []],
      ['p404', 'fatal', 'gone', []],
    ]);
    expect(page.records[0]).to.include({ location: '3:14', expression: 'Patient.name', messageId: 'MSG_1', code: 'structure' });
    expect(page.records[2]).to.include({ expression: 'Bundle.entry[1].resource.ofType(Encounter).status', code: 'required' });

    expect(await results.countByCategory('f', 'r')).to.deep.equal([
      { categoryId: 'uncategorized', count: 3, blockingCount: 1 }, { categoryId: 'c_ok', count: 2, blockingCount: 1 }, { categoryId: 'c_bad', count: 1, blockingCount: 1 },
    ]);
    expect(await results.validityCounts({ facilityId: 'f', reportId: 'r', patientId: 'api-1' }))
      .to.deep.equal({ unacceptableIssueCount: 0, uncategorizedErrorCount: 0, uncategorizedIssueCount: 1, issueCount: 2 });
    expect((await results.findResults({ facilityId: 'f', reportId: 'r' }, 'fatal', { offset: 0, limit: 10 })).records.map((r) => r.patientId)).to.deep.equal(['p404']);

    const store = new PgFlowStore(db.orm);
    const flowRow = await store.find({ facilityId: 'f', reportId: 'r', patientId: 'p1' });
    expect(flowRow).to.deep.include({ outcome: flowOutcome, outcomeHash: 'hash-p1', runId: 'run-p1', valid: false });
    // The API-stored submission got an outcome and the verdict by the rule (its error is in an acceptable category).
    expect((await store.find({ facilityId: 'f', reportId: 'r', patientId: 'api-1' }))?.valid).to.equal(true);

    const rows = await db.orm.em.fork().execute<{ patient_id: string; unobtainable: boolean; fatal_count: number }[]>(
      'select patient_id, unobtainable, fatal_count from validation_outcome order by patient_id');
    expect(rows.map((r) => [r.patient_id, r.unobtainable, r.fatal_count])).to.deep.equal([['api-1', false, 0], ['p1', false, 0], ['p404', true, 1]]);
    const tables = await db.orm.em.fork().execute<{ n: string }[]>(
      "select count(*)::text as n from information_schema.tables where table_name in ('validation_result', 'result_category')");
    expect(tables[0]!.n).to.equal('0');
  });

  it('down() gives the rows per issue back, with their links to existing categories', async () => {
    await db!.orm.migrator.down({ to: BEFORE.at(-1)!.name });
    const results = await db!.orm.em.fork().execute<{ patient_id: string; message: string; location: string | null; message_id: string | null; categories: string | null }[]>(
      `select r.patient_id, r.message, r.location, r.message_id, string_agg(rc.category_id, ',' order by rc.category_id) as categories
       from validation_result r left join result_category rc on rc.result_id = r.id group by r.id order by r.patient_id, r.id`);
    expect(results.map((r) => [r.patient_id, r.message, r.categories])).to.deep.equal([
      ['api-1', 'seeded one', 'c_ok'], ['api-1', 'seeded two', null],
      ['p1', 'Encounter.status: minimum required = 1', 'c_bad'], ['p1', 'dom-6: narrative', 'c_ok'], ['p1', 'no terminology server', null],
      ['p404', 'gone', null],
    ]);
    expect(results[0]).to.include({ location: '3:14', message_id: 'MSG_1' });
  });
});
