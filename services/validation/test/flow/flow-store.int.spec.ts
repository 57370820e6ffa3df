/**
 * PgFlowStore.commit against the real PostgreSQL (a unique database, dropped after): the outcome and
 * its ValidationComplete outbox row are written by one statement (with the other commits waiting
 * for it: group commit), and concurrent writers of one
 * submission (one event handled by several instances at once, re-categorization) serialize on
 * the submission's row lock, so an event is announced exactly once (and every event is announced:
 * specification lines 9, 19, flow step 6).
 */
import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { buildCatalog } from '#contracts/catalog.js';
import { VALID } from '#contracts/test/fixtures.js';
import { ContractViolationError } from '#adapters/messaging/errors.js';
import type { Database } from '#adapters/persistence/index.js';
import { readSubmissionIssues, REMEMBERED_EVENTS } from '#validation/adapters/persistence/result-repository.js';
import { type FlowRecord } from '#validation/application/validation-flow/index.js';
import { groupLimitFor, PgFlowStore } from '#validation/adapters/persistence/pg-flow-store.js';
import { categorizeSubmission } from '#validation/domain/results/submission-categorization.js';
import { dropDatabase, openFlowDatabase, uniqueSuffix } from './support/flow-harness.js';

const KEY = { facilityId: 'fac-store', reportId: 'rep-store', patientId: 'patient-1' };
const COMPLETION = buildCatalog({ subjectRoot: 'flowstoretest' }).byName('ValidationComplete').subject;
const completionKey = (key: typeof KEY) => ({ facilityId: key.facilityId, reportTrackingId: key.reportId, patientId: key.patientId });

function record(hash: string, overrides: Partial<FlowRecord> = {}): FlowRecord {
  const runId = randomUUID();
  const outcome = { resourceType: 'OperationOutcome', issue: [{ severity: 'error', code: 'invalid', details: { text: `outcome ${hash}` } }] };
  return {
    key: KEY, outcomeJson: JSON.stringify(outcome), outcomeHash: hash, valid: false,
    counts: { total: 1, errors: 1, warnings: 0, information: 0, categorized: 0, uncategorized: 1, unacceptable: 0 },
    resourceCount: 3, unobtainable: false,
    categorization: categorizeSubmission([{ severity: 'error', categoryIds: [] }]),
    runId,
    announcement: { subject: COMPLETION, payload: { ...VALID.ValidationComplete, ...completionKey(overrides.key ?? KEY), validationRunId: runId, outcomeReference: hash } },
    ...overrides,
  };
}

describe('validation flow store: one statement per group of commits, announced once per event (PostgreSQL)', function () {
  this.timeout(30_000);
  const dbName = `test_flow_store_${uniqueSuffix()}`;
  let db: Database;
  let store: PgFlowStore;

  /** The announced ValidationComplete rows: the message id, and the submission, run and outcome hash (carried as outcomeReference) of each. */
  const announcements = async () => (await db.orm.em.fork().execute<{ msg_id: string; payload: typeof VALID.ValidationComplete }[]>(
    'select msg_id, payload from outbox_message order by created_at, id')).map(({ msg_id, payload }) => ({
    msg_id,
    payload: { facilityId: payload.facilityId, reportId: payload.reportTrackingId, patientId: payload.patientId, runId: payload.validationRunId, hash: payload.outcomeReference! },
  }));

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

  it('spec lines 9, 19, flow step 6: a second event with the same outcome is stored and announced under a run of its own', async () => {
    const first = await store.commit(record('hash-a', { eventId: 'event-1' }));
    const second = await store.commit(record('hash-a', { eventId: 'event-2', resourceCount: 4 }));
    expect([first.announced, second.announced]).to.deep.equal([true, true]);
    expect(second.runId).to.not.equal(first.runId);
    const rows = await announcements();
    expect(rows.map((r) => r.msg_id)).to.deep.equal([first.runId, second.runId].map((run) => `${KEY.facilityId}:${KEY.reportId}:${KEY.patientId}:${run}`));
    expect(rows.map((r) => r.payload)).to.deep.equal([{ ...KEY, runId: first.runId, hash: 'hash-a' }, { ...KEY, runId: second.runId, hash: 'hash-a' }]);
    expect((await store.find(KEY))?.runId).to.equal(second.runId);
  });

  it('a redelivered event rewrites the results but announces nothing, and answers the run that announced it', async () => {
    const first = await store.commit(record('hash-a', { eventId: 'event-1' }));
    const again = await store.commit(record('hash-a', { eventId: 'event-1', resourceCount: 4 }));
    expect(again).to.deep.equal({ announced: false, runId: first.runId, msgId: first.msgId });
    expect(await announcements()).to.have.length(1);
    const count = await db.orm.em.fork().execute<{ resource_count: number }[]>('select resource_count from validation_outcome');
    expect(count).to.deep.equal([{ resource_count: 4 }]);
  });

  it('a row remembers its latest events only: the oldest falls out after REMEMBERED_EVENTS others', async () => {
    for (let n = 0; n <= REMEMBERED_EVENTS; n++) await store.commit(record('hash-a', { eventId: `event-${n}` }));
    const stored = await db.orm.em.fork().execute<{ handled_events: string[] }[]>('select handled_events from validation_outcome');
    expect(stored[0]!.handled_events).to.have.length(REMEMBERED_EVENTS);
    expect(stored[0]!.handled_events[0]).to.equal(`event-${REMEMBERED_EVENTS}`);
    expect((await store.commit(record('hash-a', { eventId: `event-${REMEMBERED_EVENTS}` }))).announced).to.equal(false);
    expect((await store.commit(record('hash-a', { eventId: 'event-0' }))).announced, 'forgotten: announced again').to.equal(true);
  });

  it('without an event (re-validation job): the same outcome again rewrites it but announces nothing', async () => {
    const first = await store.commit(record('hash-a'));
    expect(first.announced).to.equal(true);
    const again = await store.commit(record('hash-a', { resourceCount: 4 }));
    expect(again).to.deep.equal({ announced: false, runId: first.runId, msgId: first.msgId });
    expect((await store.find(KEY))?.runId).to.equal(first.runId);
    const rows = await announcements();
    expect(rows.map((r) => r.msg_id)).to.deep.equal([`${KEY.facilityId}:${KEY.reportId}:${KEY.patientId}:${first.runId}`]);
    expect(rows[0]!.payload).to.deep.equal({ ...KEY, runId: first.runId, hash: 'hash-a' });
  });

  it('without an event: a changed outcome gets a new run id and its own announcement', async () => {
    const first = await store.commit(record('hash-a'));
    const second = await store.commit(record('hash-b'));
    expect(second.announced).to.equal(true);
    expect(second.runId).to.not.equal(first.runId);
    expect((await announcements()).map((r) => r.payload)).to.deep.equal([
      { ...KEY, runId: first.runId, hash: 'hash-a' }, { ...KEY, runId: second.runId, hash: 'hash-b' },
    ]);
    expect(await store.find(KEY)).to.include({ outcomeHash: 'hash-b', runId: second.runId });
  });

  it('a redelivery leaves the outcome last announced in place: a re-validation job with that outcome announces nothing', async () => {
    await store.commit(record('hash-a', { eventId: 'event-1' }));
    await store.commit(record('hash-b', { eventId: 'event-1' }));
    expect((await store.find(KEY))?.outcomeHash).to.equal('hash-a');
    expect((await store.commit(record('hash-a'))).announced).to.equal(false);
  });

  it('one event committed ten times at once (delivered to several instances): one row, one announcement', async () => {
    // Five stores (instances) racing on the row lock, each also holding a duplicate in its own queue.
    const stores = Array.from({ length: 5 }, () => new PgFlowStore(db.orm));
    const results = await Promise.all(Array.from({ length: 10 }, (_, i) => stores[i % 5]!.commit(record('hash-dup', { eventId: 'event-dup' }))));
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

  /** Holds KEY's row (as re-categorization does) so that a commit of KEY is in flight and waits; returns the release. */
  async function holdRow(): Promise<{ release: () => void; done: Promise<void> }> {
    await store.commit(record('hash-held'));
    let release!: () => void;
    let locked!: () => void;
    const isLocked = new Promise<void>((resolve) => { locked = resolve; });
    const done = db.orm.em.fork().transactional(async (tx) => {
      await readSubmissionIssues(tx, KEY, { lock: true });
      locked();
      await new Promise<void>((resolve) => { release = resolve; });
    });
    await isLocked;
    return { release, done };
  }
  const patient = (n: number) => ({ ...KEY, patientId: `patient-group-${n}` });
  const updatedAt = async () => new Map((await db.orm.em.fork().execute<{ patient_id: string; at: string }[]>(
    'select patient_id, updated_at::text as at from validation_outcome')).map((row) => [row.patient_id, row.at]));

  it('commits that arrive while a statement is in flight are written together by the next one', async () => {
    const held = await holdRow();
    const first = store.commit(record('hash-after-hold'));
    await new Promise((resolve) => setTimeout(resolve, 100)); // the first statement waits for the row
    const others = Promise.all([1, 2, 3, 4, 5].map((n) => store.commit(record(`hash-${n}`, { key: patient(n) }))));
    await new Promise((resolve) => setTimeout(resolve, 100));
    const stored = await updatedAt();
    expect([1, 2, 3, 4, 5].some((n) => stored.has(patient(n).patientId)), 'nothing else is written while the statement waits').to.equal(false);
    held.release();
    await held.done;
    expect((await first).announced).to.equal(true);
    expect((await others).every((r) => r.announced)).to.equal(true);

    const after = await updatedAt();
    const times = new Set([1, 2, 3, 4, 5].map((n) => after.get(patient(n).patientId)));
    expect([...times], 'one transaction (one now()) for the five').to.have.length(1);
    expect(times.has(after.get(KEY.patientId)), 'the held commit was its own statement').to.equal(false);
    const payloads = (await announcements()).map((r) => r.payload.hash);
    expect(payloads).to.deep.equal(['hash-held', 'hash-after-hold', 'hash-1', 'hash-2', 'hash-3', 'hash-4', 'hash-5']);
  });

  it('two waiting commits of one submission go in successive statements, in order', async () => {
    const held = await holdRow();
    const blocked = store.commit(record('hash-blocked'));
    await new Promise((resolve) => setTimeout(resolve, 100));
    const a = store.commit(record('hash-p-a', { key: patient(1) }));
    const b = store.commit(record('hash-p-b', { key: patient(1) }));
    const c = store.commit(record('hash-p-c', { key: patient(2) }));
    held.release();
    await held.done;
    await blocked;
    const [ra, rb, rc] = await Promise.all([a, b, c]);
    expect([ra.announced, rb.announced, rc.announced]).to.deep.equal([true, true, true]);
    expect(rb.runId).to.not.equal(ra.runId);
    expect((await store.find(patient(1)))?.outcomeHash).to.equal('hash-p-b');
    const after = await updatedAt();
    expect(after.get(patient(2).patientId), 'the other submission went with the first of the two').to.not.equal(undefined);
    expect((await announcements()).map((r) => r.payload.hash)).to.deep.equal(['hash-held', 'hash-blocked', 'hash-p-a', 'hash-p-c', 'hash-p-b']);
  });

  it('one record the database refuses fails alone: the others of its group are stored', async () => {
    const held = await holdRow();
    const blocked = store.commit(record('hash-blocked'));
    await new Promise((resolve) => setTimeout(resolve, 100));
    // A NUL character cannot be stored in a PostgreSQL text column: the shared statement fails.
    const bad = store.commit(record('hash-bad', { key: patient(2), outcomeJson: '{"resourceType":"OperationOutcome","issue":[]}\u0000' }));
    const good = [1, 3].map((n) => store.commit(record(`hash-${n}`, { key: patient(n) })));
    held.release();
    await held.done;
    await blocked;
    const error = await bad.then(() => undefined, (e: unknown) => e);
    expect(error, 'the bad record is refused').to.be.instanceOf(Error);
    expect((await Promise.all(good)).every((r) => r.announced)).to.equal(true);
    expect(await store.find(patient(1))).to.include({ outcomeHash: 'hash-1' });
    expect(await store.find(patient(3))).to.include({ outcomeHash: 'hash-3' });
    expect(await store.find(patient(2))).to.equal(undefined);
    expect((await announcements()).map((r) => r.payload.hash)).to.deep.equal(['hash-held', 'hash-blocked', 'hash-1', 'hash-3']);
  });

  it('an idle store writes a commit at once; commits soon after a statement wait for the gathering interval or a full group', async () => {
    // An interval far longer than the test's timeout: whatever is written before it ended was not waited for.
    const gathering = new PgFlowStore(db.orm, { gatherMs: 600_000, maxGroup: 3 });
    const lone = await gathering.commit(record('hash-lone'));
    expect(lone.announced, 'a lone commit on an idle store is not held').to.equal(true);

    const waiting = [1, 2].map((n) => gathering.commit(record(`hash-${n}`, { key: patient(n) })));
    let settled = false;
    void Promise.all(waiting).then(() => { settled = true; });
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(settled, 'two commits right after a statement wait (the group is not full)').to.equal(false);
    expect([...(await updatedAt()).keys()]).to.deep.equal([KEY.patientId]);

    const third = gathering.commit(record('hash-3', { key: patient(3) }));
    const results = await Promise.all([...waiting, third]);
    expect(results.every((r) => r.announced)).to.equal(true);
    const after = await updatedAt();
    expect(new Set([1, 2, 3].map((n) => after.get(patient(n).patientId))).size, 'the full group went as one statement').to.equal(1);
    expect((await announcements()).map((r) => r.payload.hash)).to.deep.equal(['hash-lone', 'hash-1', 'hash-2', 'hash-3']);
  });

  it('a commit the flow marks lastInFlight goes at once, with the commits waiting for the interval', async () => {
    const gathering = new PgFlowStore(db.orm, { gatherMs: 600_000 });
    await gathering.commit(record('hash-lone'));
    const waiting = gathering.commit(record('hash-1', { key: patient(1) }));
    const last = gathering.commit(record('hash-2', { key: patient(2) }), { lastInFlight: true });
    const results = await Promise.all([waiting, last]);
    expect(results.every((r) => r.announced)).to.equal(true);
    const after = await updatedAt();
    expect(after.get(patient(1).patientId), 'one statement for both').to.equal(after.get(patient(2).patientId));
  });

  it('a commit arriving within the interval waits out the rest of it, then goes with whatever else arrived', async () => {
    const gatherMs = 400;
    const gathering = new PgFlowStore(db.orm, { gatherMs });
    await gathering.commit(record('hash-first'));
    const started = performance.now();
    const results = await Promise.all([1, 2].map((n) => gathering.commit(record(`hash-${n}`, { key: patient(n) }))));
    // Timers never fire early by more than a millisecond; the bound only says the wait happened.
    expect(performance.now() - started).to.be.greaterThan(gatherMs / 2);
    expect(results.every((r) => r.announced)).to.equal(true);
    const after = await updatedAt();
    expect(after.get(patient(1).patientId)).to.equal(after.get(patient(2).patientId));
  });

  it('refuses a negative gathering interval or an empty group', () => {
    expect(() => new PgFlowStore(db.orm, { gatherMs: -1 })).to.throw(/gatherMs/);
    expect(() => new PgFlowStore(db.orm, { maxGroup: 0 })).to.throw(/maxGroup/);
    expect(groupLimitFor(24)).to.equal(8);
    expect(groupLimitFor(1)).to.equal(1);
    expect(groupLimitFor(256)).to.equal(16);
  });

  it('an announcement that fails the ValidationComplete contract is refused before anything is stored', async () => {
    const broken = record('hash-broken');
    const brokenRecord: FlowRecord = { ...broken, announcement: { subject: COMPLETION, payload: { ...VALID.ValidationComplete, validationRunId: broken.runId, validatedAt: 'yesterday' } } };
    const error = await store.commit(brokenRecord).catch((e: unknown) => e);
    expect(error).to.be.instanceOf(ContractViolationError);
    expect((error as Error).message).to.match(/^ValidationComplete payload violates its contract \(flowstoretest\.compliance\.event\.validation-complete\.v1\): .*\/validatedAt must match format "date-time"/);
    expect(await store.find(KEY)).to.equal(undefined);
    expect(await announcements()).to.have.length(0);
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
  const dbName = `test_flow_lz4_${uniqueSuffix()}`;
  let db: Database;

  before(async () => { db = await openFlowDatabase(dbName); });
  after(async () => {
    await db?.close();
    await dropDatabase(dbName);
  });

  it('a large outcome is stored lz4-compressed where the server has lz4 (pglz otherwise), and reads back whole', async () => {
    const [{ lz4 }] = await db.orm.em.fork().execute<[{ lz4: boolean }]>(
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
