/**
 * How the pool hands tasks to its workers (validation-pool.ts, validation-worker.ts): in the order
 * they were given, each worker holding its next task while it runs one, one task at a time in a
 * worker, and a held task that its worker never started given to the replacement when that worker
 * is stopped for another task. The worker is the production one; its validator misbehaves on the
 * resources that ask for it (engine-host/support/hanging-worker.ts).
 */
import { expect } from 'chai';
import { deadlineIssueOf } from '#validation/domain/engine/outcome/deadline.js';
import { ValidationPool, type PoolEvent } from '#validation/adapters/worker-pool/validation-pool.js';
import { hangingResource, HANGING_WORKER, waitingResource } from '../engine-host/support/hanging-engine.js';

const patient = (id: string, gender = 'female') => ({ resourceType: 'Patient', id, gender });

describe('engine: how the validation pool hands tasks to its workers', function () {
  this.timeout(120_000);
  const pools: ValidationPool[] = [];
  function pool(options: { threads?: number; resourceTimeoutMs?: number } = {}): { pool: ValidationPool; events: PoolEvent[] } {
    const events: PoolEvent[] = [];
    const created = ValidationPool.create({ threads: options.threads ?? 1, resourceTimeoutMs: options.resourceTimeoutMs, workerFile: HANGING_WORKER, onEvent: (event) => events.push(event) });
    pools.push(created);
    return { pool: created, events };
  }
  after(async () => {
    await Promise.all(pools.map((p) => p.close()));
  });

  it('starts tasks in the order they were given, however many wait (no task sent to the back of the queue)', async () => {
    const { pool: one } = pool();
    await one.validate({ resources: [patient('warm')] });
    const finished: number[] = [];
    const tasks = Array.from({ length: 24 }, (_, n) => one.validate({ resources: [patient(`p${String(n)}`)] }).then(() => { finished.push(n); }));
    await Promise.all(tasks);
    expect(finished).to.deep.equal(Array.from({ length: 24 }, (_, n) => n));
  });

  it('runs one task at a time in a worker: the task it holds waits while the running one waits (for a terminology server, say)', async () => {
    const { pool: one } = pool();
    await one.validate({ resources: [patient('warm')] });
    const finished: string[] = [];
    const waiting = one.validate({ resources: [waitingResource(600)] }).then(() => { finished.push('waiting'); });
    const next = one.validate({ resources: [patient('next')] }).then(() => { finished.push('next'); });
    await Promise.all([waiting, next]);
    expect(finished).to.deep.equal(['waiting', 'next']);
  });

  it('a task held by a worker stopped at another task\'s deadline is validated once by the replacement, as it would have been', async () => {
    const { pool: one, events } = pool({ resourceTimeoutMs: 1_000 });
    const expected = await one.validate({ resources: [patient('held', 'not-a-gender')] });
    const hanging = one.validate({ resources: [hangingResource()] });
    const held = one.validate({ resources: [patient('held', 'not-a-gender')] });
    const [hangingOutcome] = await hanging;
    expect(deadlineIssueOf(hangingOutcome!)?.kind).to.equal('resource');
    expect(await held).to.deep.equal(expected);
    expect(events.filter((e) => e.kind === 'worker-terminated')).to.deep.equal([{ kind: 'worker-terminated', reason: 'timeout' }]);
    expect(events.filter((e) => e.kind === 'timeout')).to.have.length(1);
    expect(one.threads).to.equal(1);
    expect(one.queueSize).to.equal(0);
  });
});
