/**
 * What the validation flow relies on from its store, checked against every implementation: the
 * PostgreSQL store of the service and the in-memory one of the flow's unit tests. Every event is
 * announced once, under a run id of its own, whatever its outcome (specification lines 9, 19 and the
 * flow's step 6: one ValidationComplete per ReadyForValidation); a redelivery of an event is not
 * announced again; without an event (a re-validation job) only a changed outcome is announced; the
 * message id names the submission and the run.
 */
import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { VALID } from '#contracts/test/fixtures.js';
import type { Database } from '#adapters/persistence/index.js';
import { PgFlowStore } from '#validation/adapters/persistence/pg-flow-store.js';
import type { FlowRecord, FlowStore } from '#validation/domain/ports/flow-store.js';
import { categorizeSubmission } from '#validation/domain/results/submission-categorization.js';
import { InMemoryFlowStore } from './support/in-memory-flow-store.js';
import { dropDatabase, openFlowDatabase, uniqueSuffix } from './support/flow-harness.js';

interface StoreUnderTest { open(): Promise<FlowStore>; close(): Promise<void> }

function flowStoreContract(name: string, setUp: () => StoreUnderTest): void {
  describe(`flow store contract: ${name}`, function () {
    this.timeout(30_000);
    let subject: StoreUnderTest;
    let store: FlowStore;
    let patients = 0;
    const nextKey = () => ({ facilityId: 'fac-contract', reportId: 'rep-contract', patientId: `patient-${++patients}` });
    function record(key: FlowRecord['key'], hash: string, eventId?: string): FlowRecord {
      const runId = randomUUID();
      return {
        key, eventId, runId, outcomeJson: JSON.stringify({ resourceType: 'OperationOutcome', issue: [] }), outcomeHash: hash, valid: true,
        counts: { total: 0, errors: 0, warnings: 0, information: 0, categorized: 0, uncategorized: 0, unacceptable: 0 },
        resourceCount: 1, unobtainable: false, categorization: categorizeSubmission([]),
        announcement: {
          subject: 'flowcontract.compliance.event.validation-complete.v1',
          payload: { ...VALID.ValidationComplete, facilityId: key.facilityId, reportTrackingId: key.reportId, patientId: key.patientId, validationRunId: runId },
        },
      };
    }

    before(async () => {
      subject = setUp();
      store = await subject.open();
    });
    after(async () => subject.close());

    it('announces a first outcome under the record\'s run id; the message id names the submission and the run', async () => {
      const key = nextKey();
      const given = record(key, 'hash-a');
      const result = await store.commit(given);
      expect(result.announced).to.equal(true);
      expect(result.runId).to.equal(given.runId);
      expect(result.msgId).to.equal(`${key.facilityId}:${key.reportId}:${key.patientId}:${result.runId}`);
    });

    it('spec lines 9, 19, flow step 6: two events with the same outcome are announced twice, each under a run of its own', async () => {
      const key = nextKey();
      const first = await store.commit(record(key, 'hash-a', 'event-1'));
      const second = await store.commit(record(key, 'hash-a', 'event-2'));
      expect([first.announced, second.announced]).to.deep.equal([true, true]);
      expect(second.runId).to.not.equal(first.runId);
    });

    it('one event delivered three times is announced once; its redeliveries answer the run that announced it', async () => {
      const key = nextKey();
      const results = [];
      for (let delivery = 0; delivery < 3; delivery++) results.push(await store.commit(record(key, 'hash-a', 'event-once')));
      expect(results.map((r) => r.announced)).to.deep.equal([true, false, false]);
      expect(results[1]).to.deep.equal({ announced: false, runId: results[0]!.runId, msgId: results[0]!.msgId });
    });

    it('a redelivery of an earlier event after a later one is not announced again', async () => {
      const key = nextKey();
      const e1 = await store.commit(record(key, 'hash-a', 'event-1'));
      const e2 = await store.commit(record(key, 'hash-b', 'event-2'));
      const e1Again = await store.commit(record(key, 'hash-a', 'event-1'));
      expect([e1.announced, e2.announced, e1Again.announced]).to.deep.equal([true, true, false]);
    });

    it('without an event (re-validation job): the same outcome again is not announced, and answers the run that announced it', async () => {
      const key = nextKey();
      const first = await store.commit(record(key, 'hash-a'));
      const again = await store.commit(record(key, 'hash-a'));
      expect(again).to.deep.equal({ announced: false, runId: first.runId, msgId: first.msgId });
    });

    it('without an event: a changed outcome, and a return to an earlier one, are announced, each under a run of its own', async () => {
      const key = nextKey();
      const a = await store.commit(record(key, 'hash-a'));
      const b = await store.commit(record(key, 'hash-b'));
      const backToA = await store.commit(record(key, 'hash-a'));
      expect([a.announced, b.announced, backToA.announced]).to.deep.equal([true, true, true]);
      expect(new Set([a.runId, b.runId, backToA.runId]).size).to.equal(3);
    });

    it('keeps submissions apart: the same outcome and event id of another patient is announced', async () => {
      const first = await store.commit(record(nextKey(), 'hash-shared', 'event-shared'));
      const other = await store.commit(record(nextKey(), 'hash-shared', 'event-shared'));
      expect(other.announced).to.equal(true);
      expect(other.runId).to.not.equal(first.runId);
    });
  });
}

flowStoreContract('in memory (the flow unit tests\' store)', () => ({
  open: async () => new InMemoryFlowStore(),
  close: async () => undefined,
}));

flowStoreContract('PostgreSQL', () => {
  const dbName = `test_flow_store_contract_${uniqueSuffix()}`;
  let db: Database | undefined;
  return {
    async open() {
      db = await openFlowDatabase(dbName);
      return new PgFlowStore(db.orm);
    },
    async close() {
      await db?.close();
      await dropDatabase(dbName);
    },
  };
});
