/**
 * What the main thread and the workers share without messages (a worker stuck in synchronous code
 * cannot send any):
 *
 * - TaskProgress, one per task: which worker took it (its threadId), the index of the resource the
 *   worker is validating and when it started. The pool's watchdog reads it to know WHICH resource
 *   passed its budget, so that only that one is blamed, and WHICH worker to terminate. A worker
 *   holds its next task while it runs one (validation-pool.ts): a task no worker has taken yet was
 *   never started, so when the worker holding it is stopped it can be given to another.
 * - SharedBudget, one per submission, shared by all its tasks in all workers: the worker time its
 *   resources have used and the limit. Each worker adds the busy time of every resource it
 *   finishes (event-loop active time: waiting for the terminology server or the cache does not
 *   count, those waits have their own timeouts) and starts no further resource once it is used up.
 *
 * Ordering: the worker writes the start time, then publishes the index with Atomics.store; the
 * main thread reads the index with Atomics.load, then the start time, so it never pairs an index
 * with an older resource's start. (It may pair it with a newer one's: that only shortens the
 * elapsed time it sees, never blames a resource that did not pass its budget.)
 */

/** The index slot before the worker took the task. */
export const NOT_STARTED = -1;
/** The index slot once every resource of the task is done. */
export const FINISHED = -2;

/** Milliseconds since the epoch with sub-millisecond precision, comparable between threads. */
export function clockMs(): number {
  return performance.timeOrigin + performance.now();
}

/** The worker slot before a worker took the task (worker threads have ids from 1; the main thread is 0). */
export const NO_WORKER = 0;

export class TaskProgress {
  private readonly index: Int32Array;
  private readonly worker: Int32Array;
  private readonly startedAtMs: Float64Array;

  /** Without a buffer: a new one (main thread). With one: the view of a task's buffer (worker). */
  constructor(readonly buffer: SharedArrayBuffer = newProgressBuffer()) {
    this.index = new Int32Array(buffer, 0, 1);
    this.worker = new Int32Array(buffer, 4, 1);
    this.startedAtMs = new Float64Array(buffer, 8, 1);
  }

  /** Worker: this thread (`threadId`) starts the task now, before anything of it runs. */
  take(threadId: number): void {
    Atomics.store(this.worker, 0, threadId);
  }

  /** The threadId of the worker that took the task, or NO_WORKER. */
  get takenBy(): number {
    return Atomics.load(this.worker, 0);
  }

  /** Worker: resource `index` of the task starts now. */
  begin(index: number): void {
    this.startedAtMs[0] = clockMs();
    Atomics.store(this.index, 0, index);
  }

  /** Worker: every resource of the task is done (or the worker stopped early). */
  finish(): void {
    Atomics.store(this.index, 0, FINISHED);
  }

  /** The index of the resource in progress, NOT_STARTED or FINISHED. */
  get current(): number {
    return Atomics.load(this.index, 0);
  }

  /** When the resource in progress started (read after `current`). */
  get startedAt(): number {
    return this.startedAtMs[0] ?? 0;
  }
}

function newProgressBuffer(): SharedArrayBuffer {
  const buffer = new SharedArrayBuffer(16);
  Atomics.store(new Int32Array(buffer, 0, 1), 0, NOT_STARTED);
  return buffer;
}

const SPENT = 0;
const LIMIT = 1;

/** Worker time of one submission, in microseconds, added to atomically by every worker that validates part of it. */
export class SharedBudget {
  private readonly micros: BigInt64Array;

  /** Main thread: `SharedBudget.create(limitMs)`; worker: `new SharedBudget(task.budget)`. */
  constructor(readonly buffer: SharedArrayBuffer) {
    this.micros = new BigInt64Array(buffer, 0, 2);
  }

  static create(limitMs: number): SharedBudget {
    const budget = new SharedBudget(new SharedArrayBuffer(16));
    Atomics.store(budget.micros, LIMIT, BigInt(Math.round(limitMs * 1_000)));
    return budget;
  }

  /** Adds `ms` of worker time. */
  charge(ms: number): void {
    Atomics.add(this.micros, SPENT, BigInt(Math.max(0, Math.round(ms * 1_000))));
  }

  get exhausted(): boolean {
    return Atomics.load(this.micros, SPENT) >= Atomics.load(this.micros, LIMIT);
  }

  get limitMs(): number {
    return Number(Atomics.load(this.micros, LIMIT)) / 1_000;
  }

  get spentMs(): number {
    return Number(Atomics.load(this.micros, SPENT)) / 1_000;
  }
}
