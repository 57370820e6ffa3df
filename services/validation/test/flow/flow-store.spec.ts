/**
 * PgFlowStore.commit against the real PostgreSQL (a unique database, dropped after): the outcome and
 * its ValidationComplete outbox row are written by one statement, and concurrent writers of one
 * submission (duplicate events handled by two instances at once, re-categorization) serialize on
 * the submission's row lock, so an outcome is announced exactly once.
 */
import { expect } from 'chai';
import type { Database } from '../../../../adapters/persistence/index.js';
import { readSubmissionIssues } from '../../src/adapters/persistence/result-repository.js';
import { PgFlowStore, type FlowRecord } from '../../src/application/validation-flow/index.js';
import { categorizeSubmission } from '../../src/domain/results/submission-categorization.js';
import { dropDatabase, openFlowDatabase, uniqueSuffix } from './support/flow-harness.js';

const KEY = { facilityId: 'fac-store', reportId: 'rep-store', patientId: 'patient-1' };

function record(hash: string, overrides: Partial<FlowRecord> = {}): FlowRecord {
  const outcome = { resourceType: 'OperationOutcome', issue: [{ severity: 'error', code: 'invalid', details: { text: `outcome ${hash}` } }] };
  return {
    key: KEY, outcomeJson: JSON.stringify(outcome), outcomeHash: hash, valid: false,
    counts: { total: 1, errors: 1, warnings: 0, information: 0, categorized: 0, uncategorized: 1, unacceptable: 0 },
    resourceCount: 3, unobtainable: false,
    categorization: categorizeSubmission([{ severity: 'error', categoryIds: [] }]),
    completion: (runId) => ({ subject: 'test.validation-complete', payload: { ...KEY, runId, hash } }),
    ...overrides,
  };
}

describe('validation flow store: one statement per commit, announced once per distinct outcome (PostgreSQL)', function () {
  this.timeout(30_000);
  const dbName = `test_h7flow_store_${uniqueSuffix()}`;
  let db: Database;
  let store: PgFlowStore;

  const announcements = async () => db.orm.em.fork().execute<{ msg_id: string; payload: { runId: string; hash: string } }[]>(
    'select msg_id, payload from outbox_message order by created_at, id');

  before(async () => {
    db = await openFlowDatabase(dbName);
    store = new PgFlowStore(db.orm);
  });
  after(async () => {
    await db?.close();
    await dropDatabase(dbName);
  });
  beforeEach(async () => {
    await db.orm.em.fork().execute('delete from outbox_message');
    await db.orm.em.fork().execute('delete from validation_outcome');
  });

  it('stores the outcome with its announcement; the same outcome again rewrites it but announces nothing', async () => {
    const first = await store.commit(record('hash-a'));
    expect(first.announced).to.equal(true);
    const again = await store.commit(record('hash-a', { resourceCount: 4 }));
    expect(again).to.deep.equal({ announced: false, runId: first.runId, msgId: first.msgId });
    expect((await store.find(KEY))?.runId).to.equal(first.runId);
    const rows = await announcements();
    expect(rows.map((r) => r.msg_id)).to.deep.equal([`${KEY.facilityId}:${KEY.reportId}:${KEY.patientId}:hash-a`]);
    expect(rows[0]!.payload).to.deep.equal({ ...KEY, runId: first.runId, hash: 'hash-a' });
    const count = await db.orm.em.fork().execute<{ resource_count: number }[]>('select resource_count from validation_outcome');
    expect(count).to.deep.equal([{ resource_count: 4 }]);
  });

  it('a changed outcome gets a new run id and its own announcement', async () => {
    const first = await store.commit(record('hash-a'));
    const second = await store.commit(record('hash-b'));
    expect(second.announced).to.equal(true);
    expect(second.runId).to.not.equal(first.runId);
    expect((await announcements()).map((r) => r.payload)).to.deep.equal([
      { ...KEY, runId: first.runId, hash: 'hash-a' }, { ...KEY, runId: second.runId, hash: 'hash-b' },
    ]);
    expect(await store.find(KEY)).to.include({ outcomeHash: 'hash-b', runId: second.runId });
  });

  it('ten commits of one new outcome at once (duplicate deliveries on several instances): one row, one announcement', async () => {
    const results = await Promise.all(Array.from({ length: 10 }, () => store.commit(record('hash-dup'))));
    expect(results.filter((r) => r.announced)).to.have.length(1);
    const runIds = new Set(results.map((r) => r.runId));
    expect([...runIds]).to.have.length(1);
    expect(await announcements()).to.have.length(1);
    expect((await announcements())[0]!.payload.runId).to.equal([...runIds][0]);
  });

  it('a commit waits for a re-categorization that holds the row, and then sees what it stored', async () => {
    await store.commit(record('hash-a'));
    const em = db.orm.em.fork();
    let commitFinished = false;
    let pending: Promise<unknown> | undefined;
    await em.transactional(async (tx) => {
      expect(await readSubmissionIssues(tx, KEY, { lock: true })).to.not.equal(undefined);
      pending = store.commit(record('hash-b')).then((r) => { commitFinished = true; return r; });
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(commitFinished, 'the commit waits for the row lock').to.equal(false);
    });
    const result = await pending as { announced: boolean };
    expect(result.announced).to.equal(true);
    expect((await store.find(KEY))?.outcomeHash).to.equal('hash-b');
  });

  it('when the announcement cannot be stored, the outcome is not stored either (one transaction)', async () => {
    await db.orm.em.fork().execute(`create function refuse_outbox() returns trigger language plpgsql as $$ begin raise exception 'outbox refused'; end $$`);
    await db.orm.em.fork().execute('create trigger refuse_outbox before insert on outbox_message for each row execute function refuse_outbox()');
    try {
      const error = await store.commit(record('hash-refused')).catch((e: unknown) => e);
      expect((error as Error).message).to.contain('outbox refused');
      expect(await store.find(KEY)).to.equal(undefined);
    } finally {
      await db.orm.em.fork().execute('drop trigger refuse_outbox on outbox_message');
      await db.orm.em.fork().execute('drop function refuse_outbox()');
    }
    expect(await announcements()).to.have.length(0);
  });
});

describe('validation flow store: compression of the stored outcome (PostgreSQL)', function () {
  this.timeout(30_000);
  const dbName = `test_h7flow_lz4_${uniqueSuffix()}`;
  let db: Database;

  before(async () => { db = await openFlowDatabase(dbName); });
  after(async () => {
    await db?.close();
    await dropDatabase(dbName);
  });

  it('a large outcome is stored lz4-compressed where the server has lz4 (pglz otherwise), and reads back whole', async () => {
    const [{ lz4 }] = await db.orm.em.fork().execute<{ lz4: boolean }[]>(
      `select 'lz4' = any(enumvals) as lz4 from pg_settings where name = 'default_toast_compression'`);
    const issues = Array.from({ length: 200 }, (_, i) => ({ severity: 'warning', code: 'invariant', details: { text: `Rule dom-6 failed for entry ${i}` } }));
    const outcomeJson = JSON.stringify({ resourceType: 'OperationOutcome', issue: issues });
    const categorization = categorizeSubmission(issues.map(() => ({ severity: 'warning' as const, categoryIds: [] })));
    await new PgFlowStore(db.orm).commit(record('hash-big', { outcomeJson, categorization }));

    const [row] = await db.orm.em.fork().execute<{ method: string | null; stored: number }[]>(
      'select pg_column_compression(outcome) as method, pg_column_size(outcome) as stored from validation_outcome');
    expect(row!.method).to.equal(lz4 ? 'lz4' : 'pglz');
    expect(row!.stored).to.be.lessThan(outcomeJson.length / 4);
    const read = await readSubmissionIssues(db.orm.em.fork(), KEY);
    expect(read!.issues).to.have.length(200);
    expect(read!.issues[199]!.message).to.equal('Rule dom-6 failed for entry 199');
  });
});
