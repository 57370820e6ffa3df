/**
 * A worker holds the task after the one it runs (validation-pool.ts), so that it goes on without
 * waiting for the main thread between two tasks. Such a held task is still queued for the
 * deadlines: its request's deadline answers it without terminating the worker that holds it, and a
 * worker terminated for the task it runs hands the held one to its replacement, which validates it.
 */
import { expect } from 'chai';
import { ValidationPool, type PoolEvent } from '#validation/adapters/worker-pool/validation-pool.js';
import { requestClockMs } from '#validation/domain/ports/resource-validator.js';
import { eventually } from '../flow/support/flow-harness.js';
import { hangingResource, HANGING_WORKER } from './support/hanging-engine.js';

const badPatient = () => ({ resourceType: 'Patient', id: 'p1', gender: 'not-a-gender' });
const timeoutTexts = (budgetMs: number) => [`Validation of this resource did not finish within ${budgetMs} ms`];

describe('validation pool: the task a worker holds behind the one it runs', function () {
  this.timeout(60_000);
  const pools: ValidationPool[] = [];
  function startPool(resourceTimeoutMs: number) {
    const events: PoolEvent[] = [];
    const pool = ValidationPool.create({ threads: 1, resourceTimeoutMs, workerFile: HANGING_WORKER, onEvent: (event) => events.push(event) });
    pools.push(pool);
    const terminations = () => events.filter((event) => event.kind === 'worker-terminated').length;
    return { pool, terminations };
  }
  after(async () => {
    await Promise.all(pools.map((pool) => pool.close()));
  });

  it('its request\'s deadline answers it at that deadline, and the worker holding it is not terminated for it', async () => {
    const { pool, terminations } = startPool(4_000);
    // the worker up, so that the hanging resource starts at once
    await pool.validate({ resources: [badPatient()] });
    const hanging = pool.validate({ resources: [hangingResource()] });
    await eventually(() => pool.stalledForMs() > 0 && pool.queueSize === 0, 'the hanging resource to run');

    const started = performance.now();
    const [held] = await pool.validate({ resources: [badPatient()] }, { deadline: { atMs: requestClockMs() + 300, budgetMs: 300 } });
    const ms = performance.now() - started;
    expect(held?.issue.map((issue) => issue.details.text)).to.deep.equal(timeoutTexts(300));
    expect(ms, 'answered at its own deadline, not at the hanging resource\'s').to.be.lessThan(2_000);
    expect(terminations(), 'the worker runs on').to.equal(0);
    expect(pool.queueSize).to.equal(0);

    // The hanging resource meets its own deadline; the replacement worker never validates the left task.
    const [stopped] = await hanging;
    expect(stopped?.issue.map((issue) => issue.details.text)).to.deep.equal(timeoutTexts(4_000));
    expect(terminations()).to.equal(1);
    const [again] = await pool.validate({ resources: [badPatient()] });
    expect(again?.issue.map((issue) => issue.details.text).join('\n')).to.contain('not-a-gender');
  });

  it('a worker terminated for the task it runs hands the task it held to its replacement, which validates it', async () => {
    const { pool, terminations } = startPool(800);
    const [expected] = await pool.validate({ resources: [badPatient()] });
    const hanging = pool.validate({ resources: [hangingResource()] });
    await eventually(() => pool.stalledForMs() > 0 && pool.queueSize === 0, 'the hanging resource to run');
    const held = pool.validate({ resources: [badPatient()] });
    expect(pool.queueSize, 'held, not started').to.equal(1);

    const [[stopped], [validated]] = await Promise.all([hanging, held]);
    expect(stopped?.issue.map((issue) => issue.details.text)).to.deep.equal(timeoutTexts(800));
    expect(validated).to.deep.equal(expected);
    expect(terminations(), 'only the worker of the hanging resource').to.equal(1);
    expect(pool.threads).to.equal(1);
  });
});
