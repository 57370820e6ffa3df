/**
 * What a worker is doing, readable by the main thread while the worker is busy: one small
 * SharedArrayBuffer per task holding the index of the resource being validated, when it started,
 * and the milliseconds the task's finished resources took. The pool's watchdog reads it to know
 * WHICH resource passed its budget (only that one is blamed when the worker is terminated) and how
 * much worker time a submission has used, without any message from a worker that may be stuck in
 * synchronous code. The other way, the main thread can ask the worker to stop before its next
 * resource (a submission out of budget): the worker then answers the outcomes it has.
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

const INDEX = 0;
const STOP = 1;
const STARTED_AT = 0;
const FINISHED_MS = 1;

/** Milliseconds since the epoch with sub-millisecond precision, comparable between threads. */
export function clockMs(): number {
  return performance.timeOrigin + performance.now();
}

export class TaskProgress {
  private readonly index: Int32Array;
  private readonly times: Float64Array;

  /** Without a buffer: a new one (main thread). With one: the view of a task's buffer (worker). */
  constructor(readonly buffer: SharedArrayBuffer = newBuffer()) {
    this.index = new Int32Array(buffer, 0, 2);
    this.times = new Float64Array(buffer, 8, 2);
  }

  // Worker side.

  /** Resource `index` of the task starts now. */
  begin(index: number): void {
    this.times[STARTED_AT] = clockMs();
    Atomics.store(this.index, INDEX, index);
  }

  /** The resource that began last took `ms`. */
  end(ms: number): void {
    this.times[FINISHED_MS] = this.times[FINISHED_MS]! + ms;
  }

  finish(): void {
    Atomics.store(this.index, INDEX, FINISHED);
  }

  /** Whether to validate no more resources of the task. */
  get stopRequested(): boolean {
    return Atomics.load(this.index, STOP) !== 0;
  }

  // Main-thread side.

  /** Asks the worker to validate no more resources of the task (the one in progress finishes). */
  requestStop(): void {
    Atomics.store(this.index, STOP, 1);
  }

  /** The index of the resource in progress, NOT_STARTED or FINISHED. */
  get current(): number {
    return Atomics.load(this.index, INDEX);
  }

  /** When the resource in progress started (read after `current`). */
  get startedAt(): number {
    return this.times[STARTED_AT]!;
  }

  /** Worker milliseconds of the task so far: its finished resources plus the one in progress. */
  spentMs(now: number): number {
    const index = this.current;
    const running = index >= 0 ? Math.max(0, now - this.startedAt) : 0;
    return this.times[FINISHED_MS]! + running;
  }
}

function newBuffer(): SharedArrayBuffer {
  const buffer = new SharedArrayBuffer(24);
  Atomics.store(new Int32Array(buffer, 0, 2), INDEX, NOT_STARTED);
  return buffer;
}
