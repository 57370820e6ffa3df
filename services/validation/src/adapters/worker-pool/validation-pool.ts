/**
 * A pool of validation workers (piscina), sized to the cores by default. Each worker builds its
 * Validator once (see validation-worker.ts). Two kinds of task:
 * - a whole submission as the bytes the report service answered (validateSubmission, the flow):
 *   the bytes are shared with the worker, which reads, validates and encodes every entry
 *   (submission-task.ts); what crosses the thread boundary is a SharedArrayBuffer going in and
 *   one text of all the entries' issues (with a few numbers per entry) coming back;
 * - a batch of resources (validate, the API and tools): a structured clone of the resources and
 *   of the OperationOutcomes coming back.
 * Each task also has a fixed cost (queueing, wake-up of the worker, the answer's promise), hence
 * one task per submission, not one per resource.
 *
 * Order and hand-over: tasks start in the order they were given (piscina's stricterFIFO; without
 * it, every task that found no free worker went to the back of the queue, so under load a
 * submission could wait behind any number of later ones). A worker holds its next task while it
 * runs one (TASKS_HELD_PER_WORKER), so that it starts the next without waiting for the main
 * thread's turn between two tasks (the answer's trip to the main thread and the next task's trip
 * back: 0.4-1.2 ms per task on a virtual machine, 5-11 % of a submission's time). The worker
 * still runs one task at a time (validation-worker.ts). Tasks with a request's deadline (the API's)
 * are given only to a free worker and never held (piscina aborts them by signal, see below);
 * a held task that its worker never started is given to another worker when that worker is stopped.
 *
 * Definitions change by REPLACING the pool, never by changing a worker: build a new pool with the
 * new state, route new tasks to it, then `retire()` the old one — it lets the calls in flight
 * finish first, so no validation fails because of a rebuild.
 *
 * Deadlines (the engine's checks are synchronous, so only terminating its thread stops one):
 * - per resource (`resourceTimeoutMs`): a watchdog on the main thread reads each task's progress
 *   (task-progress.ts); when the resource in progress passes the budget, the worker that took the
 *   task is terminated (a task with a request's deadline is aborted, which makes piscina terminate
 *   it) and piscina starts a replacement. The resource gets one fatal
 *   timeout issue (domain/engine/outcome/deadline.ts) and the other resources of its batch are
 *   validated again in a new task, so only the guilty resource is reported.
 * - per submission (`SubmissionBudget`, given by the caller): the worker time all batches of one
 *   submission may use together, shared with the workers (task-progress.ts). Busy time, not wall
 *   time: a submission waiting behind others in a busy pool, or for a slow terminology server, is
 *   never blamed for the wait. When it is used up, the workers start no further resource of it
 *   (the one in progress ends, or meets its own deadline): what was validated is kept, and each
 *   resource not validated gets a fatal issue saying so. No worker is terminated for it.
 * Memory (`workerHeapMb`, the workers' resourceLimits): a worker whose heap passes its limit is
 * terminated by Node (ERR_WORKER_OUT_OF_MEMORY) and replaced by piscina; the resource it was
 * validating is blamed exactly as for the per-resource deadline (one fatal issue, the other
 * resources of its batch validated again in a new task). The pod survives the resource that would
 * otherwise have grown the whole process past its limit.
 * A worker that exits on its own otherwise (a crash) fails its task as before (the caller retries).
 * A synchronous request's deadline (`ValidateCallOptions.deadline`, an HTTP request's budget counted
 * from its arrival) stops its task where it is: still queued, it leaves the queue (no worker is
 * touched); running, its worker is terminated and replaced as at the per-resource deadline. Every
 * resource of the task then gets the timeout issue naming the request's budget (none is validated
 * again: the request has no time left for it).
 *
 * Capacity, in two lanes so that neither can starve the other: `refuse` admissions (the HTTP API)
 * and `queue` admissions (the flow). `queueLimit` bounds the tasks of EACH lane waiting for a
 * worker: an API call finding its lane full is refused (503), however many flow tasks wait, and
 * the flow's consumer waits for `whenRoom()` (its own lane) before fetching more messages, however
 * many API calls wait. `maxBytesInFlight` bounds the bytes of the tasks queued or running (a
 * submission's bytes, a resource given as text): past it an API call is refused and `whenRoom()`
 * waits, so admission follows memory, not the number of tasks (one always runs, whatever its size).
 * `stalledForMs()` tells how long work has been waiting or running without any resource finishing:
 * the health checks report a pool that cannot make progress.
 */
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import { Piscina } from 'piscina';
import type { Registry } from 'prom-client';
import { deadlineOutcome, type DeadlineKind } from '../../domain/engine/outcome/deadline.js';
import type { ValidationOutcome } from '../../domain/engine/outcome/issue.js';
import { encodeEntryIssues, joinEntryIssues, splitEntryIssues, type EncodedEntryIssues, type SubmissionBundle } from '../../domain/flow/index.js';
import { isFhirXmlText, type RequestDeadline } from '../../domain/ports/resource-validator.js';
import { readSharedSubmission, type SubmissionTask, type SubmissionTaskResult, type ValidatedEntries } from './submission-task.js';
import { clockMs, NO_WORKER, NOT_STARTED, SharedBudget, TaskProgress } from './task-progress.js';
import type { TaskControls } from './task-controls.js';
import type { ValidationTask, ValidationTaskResult, WorkerSetup } from './validation-worker.js';
import type { CategorizeTask, CategorizeTaskResult } from './categorize-task.js';
import type { CategorizationTask } from '../../domain/categorization/bounded-categorization.js';
import type { WorkerMetricsReport } from './worker-metrics.js';
import { WorkerMetricsSink } from './worker-metrics.js';

export type { ValidationTask, WorkerSetup, WorkerCacheSettings } from './validation-worker.js';
export type { SubmissionTask, SubmissionTaskResult, ValidatedEntries } from './submission-task.js';
export type { WorkerMetricsReport } from './worker-metrics.js';

/** Why a worker was replaced: a deadline, its heap limit (resourceLimits), or it exited on its own. */
export type TerminationReason = 'timeout' | 'memory' | 'crash';

/** What the pool tells its owner (metrics and logs). */
export type PoolEvent =
  /** A validation passed its deadline: one per blamed resource, one per submission whose budget ran out. */
  | { readonly kind: 'timeout'; readonly deadline: Exclude<DeadlineKind, 'memory'>; readonly resourceType: string | undefined; readonly budgetMs: number }
  /** A worker passed its heap limit (`budgetMb`) validating a resource of this type. */
  | { readonly kind: 'out-of-memory'; readonly resourceType: string | undefined; readonly budgetMb: number }
  /** A worker was terminated (its task passed a deadline or its heap limit) or exited on its own; piscina starts a replacement. */
  | { readonly kind: 'worker-terminated'; readonly reason: TerminationReason }
  /** A replacement worker is ready `afterMs` after its predecessor was terminated. */
  | { readonly kind: 'worker-replaced'; readonly afterMs: number }
  /** piscina reported an error that belongs to no task (e.g. a worker failing while idle). */
  | { readonly kind: 'error'; readonly error: unknown };

export interface ValidationPoolOptions extends Partial<WorkerSetup> {
  /** Worker count (default: available parallelism). */
  threads?: number;
  /**
   * Where the workers' validate-code cache and terminology counts go (cache_requests_total,
   * terminology_validate_code_*), as the same series the main thread's own lookups count into.
   */
  registry?: Registry;
  /** Longest one resource may take in a worker, in ms; absent = no per-resource deadline. */
  resourceTimeoutMs?: number;
  /**
   * Each worker's heap limit in MB (worker_threads resourceLimits.maxOldGenerationSizeMb); absent =
   * Node's default (the process's). A worker passing it is replaced and its resource gets a fatal issue.
   */
  workerHeapMb?: number;
  /** Tasks of each lane that may wait for a worker (`refuse` admissions are refused, `whenRoom()` waits); default unbounded. */
  queueLimit?: number;
  /** Bytes of the tasks queued or running beyond which `refuse` admissions are refused and `whenRoom()` waits; default unbounded. */
  maxBytesInFlight?: number;
  onEvent?: (event: PoolEvent) => void;
  /**
   * The worker module; default validation-worker next to this file. Tests give a module that
   * re-exports it with a validator that can be made to hang.
   */
  workerFile?: string;
}

/** A task the pool refused because `queueLimit` tasks already wait for a worker. */
export class PoolSaturatedError extends Error {
  override readonly name = 'PoolSaturatedError';
}

/** How a call is admitted: queued whatever the queue's length, or refused when it is at its limit. */
export type Admission = 'queue' | 'refuse';

export interface ValidateCallOptions {
  /** Default `queue`; also the lane of the task (refuse: the API's, queue: the flow's). */
  readonly admission?: Admission;
  /** The submission this batch belongs to (its worker-time budget); absent = per-resource deadline only. */
  readonly budget?: SubmissionBudget;
  /** A synchronous request's deadline (see the top of this file); absent = the per-resource deadline only. */
  readonly deadline?: RequestDeadline;
}

export interface TimedOutcomes {
  outcomes: ValidationOutcome[];
  /** Milliseconds each resource took in a worker (for a resource that timed out: until it was stopped). */
  durationsMs: number[];
}

/** The worker time all batches of one submission may use together (see the top of this file). */
export class SubmissionBudget {
  readonly shared: SharedBudget;
  /** Whether its running out was reported (once per submission). */
  reported = false;

  constructor(readonly limitMs: number) {
    this.shared = SharedBudget.create(limitMs);
  }

  get exhausted(): boolean {
    return this.shared.exhausted;
  }
}

interface TrackedTask {
  readonly progress: TaskProgress;
  readonly controller: AbortController;
  /** Given to piscina with the controller's signal (a request's deadline): stopped by aborting it, never held by a busy worker. */
  readonly abortable: boolean;
  /** The resource type of the task's item at `index` (for the timeout event), if it has one. */
  readonly typeAt: (index: number) => string | undefined;
  /** The index the watchdog saw last (a change is progress). */
  seen: number;
  /** The lane it was admitted in (queue limits are per lane). */
  readonly lane: Admission;
  /** Its bytes while queued or running (maxBytesInFlight). */
  readonly bytes: number;
  /** Set when its resource in progress passed the per-resource budget (the task was aborted) or the worker's heap limit. */
  expired?: Expired;
}

/**
 * The resource a task was stopped at, and why: its deadline (`resource`), its worker's heap limit
 * (`memory`), or its request's deadline (`request`; index NOT_STARTED when it was still queued).
 */
type Expired =
  | { readonly index: number; readonly elapsedMs: number; readonly kind: 'resource' | 'memory' }
  | { readonly index: number; readonly elapsedMs: number; readonly kind: 'request'; readonly budgetMs: number };

/**
 * The young generation of a worker with a heap limit of `heapMb` (its old generation). Given
 * explicitly: with V8's default beside a small old-generation limit, a worker allocating fast
 * sometimes aborted the WHOLE process ("Reached heap limit", measured 1 run in 3 on Node 24) instead
 * of being terminated with ERR_WORKER_OUT_OF_MEMORY; with 48 MB (3 x 16 MB semi-spaces) it never did
 * in our runs. 48 MB up to a heap of 512 MB, then 3/32 of the heap up to 192 MB (what V8 gives a
 * worker without limits: 3 x 64 MB), so the old generation stays more than ten times the young one.
 * The young generation's size is the validation's GC cost: with 48 MB a worker of a 4 GB heap
 * scavenged four times as often as with 192 MB (106 and 27 scavenges over the same 20,000 resources
 * of the NHSN samples) and used 3–11 % more CPU per resource (its parallel scavenges included; two
 * pools side by side in one process, 10 alternating rounds, the more the busier the machine).
 */
export function youngGenerationMb(heapMb: number): number {
  return Math.min(MAX_YOUNG_GENERATION_MB, Math.max(MIN_YOUNG_GENERATION_MB, Math.floor((heapMb * 3) / 32)));
}

const MIN_YOUNG_GENERATION_MB = 48;
const MAX_YOUNG_GENERATION_MB = 192;

/**
 * Tasks a worker has at once: the one it runs and the next, which it starts without waiting for the
 * main thread (see the top of this file).
 */
export const TASKS_HELD_PER_WORKER = 2;

/**
 * How many times a task is given again after the worker holding it was stopped before it started
 * (for another task's deadline, heap limit or crash). More would mean workers failing one after
 * another on other tasks; the caller then gets the error, as for a crash.
 */
const MAX_HANDOVERS = 3;

/** An entry without issues (yet). */
const NO_ENTRY_ISSUES: EncodedEntryIssues = { json: '', count: 0 };

/** Watchdog period bounds: checks often enough for a small budget, at most every 250 ms. */
const MIN_TICK_MS = 5;
const MAX_TICK_MS = 250;

export class ValidationPool {
  private readonly tracked = new Set<TrackedTask>();
  private watchdog: NodeJS.Timeout | undefined;
  private readonly tickMs: number;
  private lastProgressAt = clockMs();
  /** Termination times of workers whose replacement is not ready yet (oldest first). */
  private readonly replacing: number[] = [];
  private readonly roomWaiters: (() => void)[] = [];
  /** Top-level calls in flight (a rebuild retires the pool only after them: their re-runs need it). */
  private calls = 0;
  private callsDone: (() => void) | undefined;
  private retiring = false;
  private closed = false;

  private constructor(
    private readonly pool: Piscina,
    private readonly metrics: WorkerMetricsSink | undefined,
    private readonly options: Pick<ValidationPoolOptions, 'resourceTimeoutMs' | 'workerHeapMb' | 'queueLimit' | 'maxBytesInFlight' | 'onEvent'>,
  ) {
    const budget = options.resourceTimeoutMs ?? Number.POSITIVE_INFINITY;
    this.tickMs = Math.min(MAX_TICK_MS, Math.max(MIN_TICK_MS, Math.floor(budget / 20)));
    pool.on('error', (error: unknown) => this.options.onEvent?.({ kind: 'error', error }));
    pool.on('workerCreate', () => {
      const terminatedAt = this.replacing.shift();
      if (terminatedAt !== undefined) this.options.onEvent?.({ kind: 'worker-replaced', afterMs: clockMs() - terminatedAt });
    });
  }

  static create(options: ValidationPoolOptions = {}): ValidationPool {
    const threads = Math.max(1, options.threads ?? os.availableParallelism());
    // Under tsx (tests, scripts) the worker is the .ts source and the worker inherits tsx through
    // execArgv; compiled, it is the .js next to this file.
    const ext = import.meta.url.endsWith('.ts') ? '.ts' : '.js';
    const filename = options.workerFile ?? fileURLToPath(new URL(`./validation-worker${ext}`, import.meta.url));
    const { threads: _threads, registry, resourceTimeoutMs, workerHeapMb, queueLimit, maxBytesInFlight, onEvent, workerFile: _workerFile, ...setup } = options;
    const workerData: WorkerSetup = { ...setup, packages: options.packages ?? [], resources: options.resources ?? [] };
    const pool = new Piscina({
      // minThreads = maxThreads: idle workers are never stopped (their start-up is the expensive part),
      // and a terminated worker is replaced at once.
      filename, minThreads: threads, maxThreads: threads, workerData, execArgv: process.execArgv,
      concurrentTasksPerWorker: TASKS_HELD_PER_WORKER, stricterFIFO: true,
      ...(workerHeapMb === undefined ? {} : { resourceLimits: { maxOldGenerationSizeMb: workerHeapMb, maxYoungGenerationSizeMb: youngGenerationMb(workerHeapMb) } }),
    });
    return new ValidationPool(pool, registry ? new WorkerMetricsSink(registry) : undefined, { resourceTimeoutMs, workerHeapMb, queueLimit, maxBytesInFlight, onEvent });
  }

  get threads(): number {
    return this.pool.threads.length;
  }

  /** Tasks no worker has started yet: queued, or held by a busy worker as its next task. */
  get queueSize(): number {
    let waiting = 0;
    for (const task of this.tracked) if (isWaiting(task)) waiting += 1;
    return waiting;
  }

  get resourceTimeoutMs(): number | undefined {
    return this.options.resourceTimeoutMs;
  }

  /** True while `refuse` admissions are refused (their lane full, or the bytes in flight at the limit). */
  get saturated(): boolean {
    return this.laneFull('refuse') || this.bytesFull(0);
  }

  /** The bytes of the tasks queued or running. */
  get bytesInFlight(): number {
    let bytes = 0;
    for (const task of this.tracked) bytes += task.bytes;
    return bytes;
  }

  /** Resolves when the flow's lane has fewer than `queueLimit` tasks waiting and the bytes in flight are under their limit. */
  whenRoom(): Promise<void> {
    if (!this.flowFull()) return Promise.resolve();
    return new Promise((resolve) => this.roomWaiters.push(resolve));
  }

  private flowFull(): boolean {
    return this.laneFull('queue') || this.bytesFull(0);
  }

  /** Tasks of `lane` still waiting for a worker (taken by none yet) at the lane's limit. */
  private laneFull(lane: Admission): boolean {
    const limit = this.options.queueLimit;
    if (limit === undefined) return false;
    let waiting = 0;
    for (const task of this.tracked) if (task.lane === lane && isWaiting(task)) waiting += 1;
    return waiting >= limit;
  }

  /** Whether `bytes` more would pass maxBytesInFlight (never when nothing is in flight: one task always runs). */
  private bytesFull(bytes: number): boolean {
    const limit = this.options.maxBytesInFlight;
    if (limit === undefined || this.tracked.size === 0) return false;
    return this.bytesInFlight + bytes >= limit;
  }

  /** A new submission budget of `limitMs` worker milliseconds, for the batches of one submission. */
  budget(limitMs: number): SubmissionBudget {
    return new SubmissionBudget(limitMs);
  }

  /**
   * How long tasks have been waiting or running without any resource finishing, being stopped or
   * starting (0 when there is no work). With deadlines, a healthy pool never gets far past the
   * per-resource budget plus a worker's start-up.
   */
  stalledForMs(now = clockMs()): number {
    return this.tracked.size === 0 ? 0 : Math.max(0, now - this.lastProgressAt);
  }

  /** Validate a batch of resources (each on its own) in one worker. */
  async validate(task: ValidationTask, options?: ValidateCallOptions): Promise<ValidationOutcome[]> {
    return (await this.validateTimed(task, options)).outcomes;
  }

  /** As validate(), with the milliseconds each resource took in the worker. */
  async validateTimed(task: ValidationTask, options: ValidateCallOptions = {}): Promise<TimedOutcomes> {
    const lane = options.admission ?? 'queue';
    const bytes = taskBytes(task.resources);
    if (lane === 'refuse' && (this.laneFull('refuse') || this.bytesFull(bytes))) {
      throw new PoolSaturatedError('the validation workers have no room for this request now');
    }
    this.calls += 1;
    try {
      return await this.runBatch(task, options.budget, lane, bytes, options.deadline);
    } finally {
      this.calls -= 1;
      if (this.calls === 0) this.callsDone?.();
    }
  }

  /** Validate one resource in whichever worker is free. */
  async validateOne(resource: unknown, options: Omit<ValidationTask, 'resources'> = {}, call?: ValidateCallOptions): Promise<ValidationOutcome> {
    const [outcome] = await this.validate({ ...options, resources: [resource] }, call);
    if (!outcome) throw new Error('The validation worker answered no outcome');
    return outcome;
  }

  /**
   * Validate a whole submission, given as the bytes the report service answered, in one worker:
   * read, validated entry by entry and encoded there (submission-task.ts). Deadlines as for a
   * batch: an entry past `resourceTimeoutMs` gets the timeout issue and the others are validated
   * again in a new task; the budget's running out gives the entries not started its issue.
   */
  async validateSubmission(task: Omit<SubmissionTask, 'progress' | 'budget' | 'budgetFrom'>, options: Omit<ValidateCallOptions, 'admission'> = {}): Promise<SubmissionTaskResult> {
    this.calls += 1;
    try {
      return await this.runSubmission(task, options.budget, task.bytes.byteLength);
    } finally {
      this.calls -= 1;
      if (this.calls === 0) this.callsDone?.();
    }
  }

  /**
   * $categorize's matching in whichever worker is free (categorize-task.ts), refused like a `refuse`
   * validation when the queue is full. Past `resourceTimeoutMs` the worker is terminated and replaced,
   * and the answer is `deadline`.
   */
  async categorize(task: CategorizationTask, deadline?: RequestDeadline): Promise<CategorizeTaskResult | { readonly kind: 'deadline'; readonly budgetMs: number }> {
    // An HTTP request: the `$validate` lane, refused when full; its bytes are the issue texts it carries.
    const bytes = categorizationBytes(task);
    if (this.laneFull('refuse') || this.bytesFull(bytes)) throw new PoolSaturatedError('the validation workers have no room for this request now');
    this.calls += 1;
    try {
      const categorizeTask: CategorizeTask = { categorize: task };
      return await this.runWatched<CategorizeTaskResult, CategorizeTaskResult | { kind: 'deadline'; budgetMs: number }>(categorizeTask, () => undefined, undefined, { lane: 'refuse', bytes, deadline }, {
        expired: async (expired) => ({ kind: 'deadline', budgetMs: expired.kind === 'request' ? expired.budgetMs : this.options.resourceTimeoutMs ?? 0 }),
        done: (result) => result,
      });
    } finally {
      this.calls -= 1;
      if (this.calls === 0) this.callsDone?.();
    }
  }

  /** Lets the calls in flight finish (re-runs after a deadline included), then stops the workers (after a rebuild). */
  async retire(): Promise<void> {
    this.retiring = true;
    if (this.calls > 0) await new Promise<void>((resolve) => { this.callsDone = resolve; });
    this.stopWatchdog();
    await this.pool.close({ force: false });
  }

  /** Stops now; tasks still queued or running are rejected (shutdown). */
  async close(): Promise<void> {
    this.closed = true;
    this.stopWatchdog();
    await this.pool.destroy();
  }

  private async runBatch(task: ValidationTask, budget: SubmissionBudget | undefined, lane: Admission, bytes: number, deadline?: RequestDeadline): Promise<TimedOutcomes> {
    const { resources } = task;
    if (budget?.exhausted && !task.budgetFrom) return this.notValidated(resources, budget);
    return this.runWatched<ValidationTaskResult, TimedOutcomes>(task, (index) => resourceTypeOf(resources[index]), budget, { lane, bytes, deadline }, {
      expired: async (expired) => expired.kind === 'request' ? requestDeadlinePassed(resources, expired) : this.afterDeadline(task, expired, budget, lane),
      done: (result) => {
        if (result.outcomes.length < resources.length) {
          // The worker stopped early: the submission used up its budget (a worker stops early only with one).
          if (!budget) throw new Error(`The validation worker answered ${String(result.outcomes.length)} outcomes for ${String(resources.length)} resources`);
          const rest = this.notValidated(resources.slice(result.outcomes.length), budget);
          return { outcomes: [...result.outcomes, ...rest.outcomes], durationsMs: [...result.durationsMs, ...rest.durationsMs] };
        }
        return { outcomes: result.outcomes, durationsMs: result.durationsMs };
      },
    });
  }

  private async runSubmission(task: SubmissionTask, budget: SubmissionBudget | undefined, bytes: number): Promise<SubmissionTaskResult> {
    // Only a deadline needs the entries on this thread: the bytes are read here then, and only then.
    let bundle: SubmissionBundle | string | undefined;
    const entryAt = (position: number) => {
      bundle ??= readSharedSubmission(task.bytes);
      return typeof bundle === 'string' ? undefined : bundle.entry[task.entries?.[position] ?? position]?.resource;
    };
    return this.runWatched<SubmissionTaskResult, SubmissionTaskResult>(task, (position) => resourceTypeOf(entryAt(position)), budget, { lane: 'queue', bytes }, {
      expired: (expired) => this.afterSubmissionDeadline(task, expired, budget, bytes),
      done: (result) => {
        if (result.kind === 'validated' && result.budgetStopped && budget) this.budgetRanOut(budget);
        return result;
      },
    });
  }

  /**
   * Runs one task in a worker under the watchdog (its progress shared, the submission's budget
   * attached). A task the watchdog aborted for passing the per-resource deadline, or whose worker
   * passed its heap limit during a resource, goes to `expired`; a worker that crashed mid-task
   * otherwise is counted as a replacement; else the worker's metrics are added and its result goes
   * to `done`.
   */
  private async runWatched<R extends { metrics?: WorkerMetricsReport }, T>(
    task: TaskControls, typeAt: (position: number) => string | undefined, budget: SubmissionBudget | undefined,
    { deadline, ...admitted }: { lane: Admission; bytes: number; deadline?: RequestDeadline | undefined },
    handlers: { expired(expired: Expired): Promise<T>; done(result: R): T },
  ): Promise<T> {
    const progress = new TaskProgress();
    const abortable = deadline !== undefined;
    const tracked: TrackedTask = { progress, controller: new AbortController(), abortable, typeAt, seen: NOT_STARTED, ...admitted };
    this.track(tracked);
    // A timer of its own, not the watchdog's tick (up to 250 ms late): the request's answer is due then.
    const requestTimer = deadline && setTimeout(() => { this.requestDeadline(tracked, deadline); }, Math.max(0, deadline.atMs - clockMs()));
    let result: R;
    try {
      const shared = { progress: progress.buffer, ...(budget ? { budget: budget.shared.buffer } : {}) };
      for (let handovers = 0; ; handovers += 1) {
        try {
          result = await this.pool.run({ ...task, ...shared }, abortable ? { signal: tracked.controller.signal } : {}) as R;
          break;
        } catch (error) {
          // Held by a worker that was stopped (for another task) before it took this one: nothing of it ran.
          if (!tracked.expired && !this.closed && progress.takenBy === NO_WORKER && handovers < MAX_HANDOVERS && (isWorkerExit(error) || isOutOfMemory(error))) continue;
          throw error;
        }
      }
    } catch (error) {
      if (!tracked.expired && !this.closed && isOutOfMemory(error) && progress.current >= 0) this.outOfMemory(tracked);
      if (!tracked.expired) {
        if (!this.closed && progress.current !== NOT_STARTED && isWorkerExit(error)) this.terminated('crash');
        throw error;
      }
      return handlers.expired(tracked.expired);
    } finally {
      clearTimeout(requestTimer);
      this.untrack(tracked);
    }
    if (result.metrics) this.metrics?.add(result.metrics);
    return handlers.done(result);
  }

  /** As afterDeadline, for a submission task: the blamed entry's timeout issue, the other entries validated again. */
  private async afterSubmissionDeadline(task: SubmissionTask, expired: Expired, budget: SubmissionBudget | undefined, bytes: number): Promise<ValidatedEntries> {
    // The worker was validating an entry, so the bytes hold a readable Bundle with that entry.
    const bundle = readSharedSubmission(task.bytes);
    if (typeof bundle === 'string') throw new Error(`A submission stopped at an entry is unreadable: ${bundle}`);
    const entries = task.entries ?? bundle.entry.map((_, index) => index);
    const blamed = entries[expired.index];
    const resource = blamed === undefined ? undefined : bundle.entry[blamed]?.resource;
    if (blamed === undefined || !resource) throw new Error(`A submission stopped at entry ${String(expired.index)}, which it does not have`);
    budget?.shared.charge(expired.elapsedMs);
    const encoded: EncodedEntryIssues[] = entries.map(() => NO_ENTRY_ISSUES);
    encoded[expired.index] = encodeEntryIssues(blamed, resource, this.blamedOutcome(expired, resource));
    const merged = { resourceTypes: entries.map((index) => bundle.entry[index]?.resource.resourceType ?? ''), durationsMs: entries.map(() => 0) };
    merged.durationsMs[expired.index] = expired.elapsedMs;
    let budgetStopped = false;
    const others = entries.filter((_, position) => position !== expired.index);
    if (others.length > 0) {
      const validated = Math.max(expired.index, (task.budgetFrom ?? 0) - 1);
      const again = await this.runSubmission({ ...task, entries: others, budgetFrom: validated }, budget, bytes);
      // The same bytes, read once already: they cannot be unreadable now.
      if (again.kind !== 'validated') throw new Error(`A submission read once is unreadable now: ${again.message}`);
      budgetStopped = again.budgetStopped;
      const validatedAgain = splitEntryIssues(again.issues);
      let j = 0;
      entries.forEach((_, position) => {
        if (position === expired.index) return;
        encoded[position] = validatedAgain[j] ?? NO_ENTRY_ISSUES;
        merged.durationsMs[position] = again.durationsMs[j] ?? 0;
        j += 1;
      });
    }
    return { kind: 'validated', entryCount: bundle.entry.length, issues: joinEntryIssues(encoded), ...merged, budgetStopped };
  }

  /**
   * A request's deadline passed before its task ended: a queued task leaves the queue (piscina drops
   * an aborted task that no worker has taken), a running one has its worker terminated and replaced.
   */
  private requestDeadline(task: TrackedTask, deadline: RequestDeadline): void {
    if (task.expired) return;
    const index = task.progress.current;
    const running = index !== NOT_STARTED;
    task.expired = { index, elapsedMs: running ? clockMs() - task.progress.startedAt : 0, kind: 'request', budgetMs: deadline.budgetMs };
    this.lastProgressAt = clockMs();
    task.controller.abort(new Error('request deadline passed'));
    if (running) this.terminated('timeout');
    this.options.onEvent?.({ kind: 'timeout', deadline: 'resource', resourceType: running ? task.typeAt(index) : undefined, budgetMs: deadline.budgetMs });
  }

  /** The outcomes of a task aborted at the per-resource deadline: the blamed resource's, and the others' validated again. */
  private async afterDeadline(task: ValidationTask, expired: Expired, budget: SubmissionBudget | undefined, lane: Admission): Promise<TimedOutcomes> {
    const { resources } = task;
    const outcomes: ValidationOutcome[] = new Array(resources.length);
    const durationsMs: number[] = new Array(resources.length).fill(0);
    outcomes[expired.index] = this.blamedOutcome(expired, resources[expired.index]);
    durationsMs[expired.index] = expired.elapsedMs;
    // The stuck resource held its worker all along: it counts against its submission in full.
    budget?.shared.charge(expired.elapsedMs);
    const others = resources.map((_, i) => i).filter((i) => i !== expired.index);
    if (others.length > 0) {
      // The resources before the blamed one were validated: they are validated again whatever is left of the budget.
      const validated = Math.max(expired.index, (task.budgetFrom ?? 0) - 1);
      const rest = others.map((i) => resources[i]);
      const again = await this.runBatch({ ...task, resources: rest, budgetFrom: validated }, budget, lane, taskBytes(rest));
      others.forEach((i, j) => {
        const outcome = again.outcomes[j];
        if (!outcome) throw new Error(`The validation worker answered ${String(again.outcomes.length)} outcomes for ${String(others.length)} resources`);
        outcomes[i] = outcome;
        durationsMs[i] = again.durationsMs[j] ?? 0;
      });
    }
    return { outcomes, durationsMs };
  }

  /** The fatal issue of the resource a task was stopped at. */
  private blamedOutcome(expired: Expired, resource: unknown): ValidationOutcome {
    switch (expired.kind) {
      case 'memory': return deadlineOutcome('memory', resource, this.options.workerHeapMb ?? 0);
      case 'request': return deadlineOutcome('resource', resource, expired.budgetMs);
      case 'resource': return deadlineOutcome('resource', resource, this.options.resourceTimeoutMs ?? 0);
    }
  }

  private notValidated(resources: readonly unknown[], budget: SubmissionBudget): TimedOutcomes {
    this.budgetRanOut(budget);
    return { outcomes: resources.map((resource) => deadlineOutcome('submission', resource, budget.limitMs)), durationsMs: resources.map(() => 0) };
  }

  /** The submission's budget ran out: said once per submission. */
  private budgetRanOut(budget: SubmissionBudget): void {
    if (budget.reported) return;
    budget.reported = true;
    this.options.onEvent?.({ kind: 'timeout', deadline: 'submission', resourceType: undefined, budgetMs: budget.limitMs });
  }

  private track(task: TrackedTask): void {
    if (this.tracked.size === 0) this.lastProgressAt = clockMs();
    this.tracked.add(task);
    this.watchdog ??= setInterval(() => this.tick(), this.tickMs).unref();
  }

  private untrack(task: TrackedTask): void {
    const now = clockMs();
    this.tracked.delete(task);
    this.lastProgressAt = now;
    if (this.tracked.size === 0) this.stopWatchdog();
    while (this.roomWaiters.length > 0 && !this.flowFull()) this.roomWaiters.shift()?.();
  }

  private stopWatchdog(): void {
    clearInterval(this.watchdog);
    this.watchdog = undefined;
  }

  /** The watchdog: progress, and per-resource deadlines. */
  private tick(): void {
    const now = clockMs();
    for (const task of this.tracked) {
      if (task.expired) continue;
      const index = task.progress.current;
      if (index !== task.seen) {
        task.seen = index;
        this.lastProgressAt = now;
      }
      const limit = this.options.resourceTimeoutMs;
      if (index >= 0 && limit !== undefined) {
        const elapsedMs = now - task.progress.startedAt;
        if (elapsedMs > limit) {
          this.expire(task, { index, elapsedMs, kind: 'resource' });
          this.options.onEvent?.({ kind: 'timeout', deadline: 'resource', resourceType: task.typeAt(index), budgetMs: limit });
        }
      }
    }
    while (this.roomWaiters.length > 0 && !this.flowFull()) this.roomWaiters.shift()?.();
  }

  /**
   * Stops a running task: terminates the worker that took it (an abortable task is aborted, and
   * piscina terminates its worker); piscina starts another. The task's call then ends in
   * `handlers.expired`; a task the worker held and had not started is given to another worker.
   */
  private expire(task: TrackedTask, expired: Expired): void {
    task.expired = expired;
    this.lastProgressAt = clockMs();
    if (task.abortable) task.controller.abort(new Error('validation deadline passed'));
    else void this.workerById(task.progress.takenBy)?.terminate();
    this.terminated('timeout');
  }

  /** The pool's worker thread with this threadId, while it runs. */
  private workerById(threadId: number): { terminate(): Promise<number> } | undefined {
    if (threadId === NO_WORKER) return undefined;
    return this.pool.threads.find((worker) => worker.threadId === threadId);
  }

  /** The task's worker passed its heap limit: its resource in progress is blamed, as for a deadline (Node has already terminated the worker). */
  private outOfMemory(task: TrackedTask): void {
    const index = task.progress.current;
    task.expired = { index, elapsedMs: clockMs() - task.progress.startedAt, kind: 'memory' };
    this.lastProgressAt = clockMs();
    this.terminated('memory');
    this.options.onEvent?.({ kind: 'out-of-memory', resourceType: task.typeAt(index), budgetMb: this.options.workerHeapMb ?? 0 });
  }

  private terminated(reason: TerminationReason): void {
    if (!this.retiring) this.replacing.push(clockMs());
    this.options.onEvent?.({ kind: 'worker-terminated', reason });
  }
}

/** Every resource of a task stopped at its request's deadline: the timeout issue naming the request's budget, none validated again. */
function requestDeadlinePassed(resources: readonly unknown[], expired: Expired & { kind: 'request' }): TimedOutcomes {
  return {
    outcomes: resources.map((resource) => deadlineOutcome('resource', resource, expired.budgetMs)),
    durationsMs: resources.map((_, i) => (i === expired.index ? expired.elapsedMs : 0)),
  };
}

/** No worker has taken the task yet (queued, or held as a worker's next task); one stopped at a deadline waits no more. */
function isWaiting(task: TrackedTask): boolean {
  return !task.expired && task.progress.takenBy === NO_WORKER;
}

/** Node's error for a worker terminated at its resourceLimits. */
function isOutOfMemory(error: unknown): boolean {
  return error instanceof Error && Reflect.get(error, 'code') === 'ERR_WORKER_OUT_OF_MEMORY';
}

function isWorkerExit(error: unknown): boolean {
  return error instanceof Error && /^worker exited/i.test(error.message);
}

/** What a batch weighs in flight: its resources given as text (JSON or FHIR XML), two bytes a character; parsed ones are already the caller's memory. */
function taskBytes(resources: readonly unknown[]): number {
  let bytes = 0;
  for (const r of resources) {
    if (typeof r === 'string') bytes += r.length * 2;
    else if (isFhirXmlText(r)) bytes += r.xml.length * 2;
  }
  return bytes;
}

function resourceTypeOf(resource: unknown): string | undefined {
  const type: unknown = typeof resource === 'object' && resource !== null ? Reflect.get(resource, 'resourceType') : undefined;
  return typeof type === 'string' ? type : undefined;
}

/** Approximate UTF-16 bytes of what a categorization task carries (its issues' texts; the categories are small). */
function categorizationBytes(task: CategorizationTask): number {
  let chars = 0;
  for (const issue of task.issues) {
    chars += (issue.message?.length ?? 0) + (issue.expression?.length ?? 0) + (issue.severity?.length ?? 0) + (issue.code?.length ?? 0) + (issue.messageId?.length ?? 0);
  }
  return chars * 2;
}
