/**
 * A pool of validation workers (piscina), sized to the cores by default. Each worker builds its
 * Validator once (see validation-worker.ts); a task carries only resources, so the message-passing
 * cost is a structured clone of the resources and of the OperationOutcomes coming back, plus a
 * fixed cost per task (queueing, wake-up of the worker, the answer's promise): callers that have
 * many resources send them as a few batches (EngineHost.validateEach), not one task each.
 *
 * Definitions change by REPLACING the pool, never by changing a worker: build a new pool with the
 * new state, route new tasks to it, then `retire()` the old one — piscina's close() lets the
 * queued and running tasks finish first, so no in-flight validation fails because of a rebuild.
 */
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import { Piscina } from 'piscina';
import type { Registry } from 'prom-client';
import type { ValidationOutcome } from '../../domain/engine/outcome/issue.js';
import type { ValidationTask, ValidationTaskResult, WorkerSetup } from './validation-worker.js';
import { WorkerMetricsSink } from './worker-metrics.js';

export type { ValidationTask, WorkerSetup, WorkerCacheSettings } from './validation-worker.js';
export type { WorkerMetricsReport } from './worker-metrics.js';

export interface ValidationPoolOptions extends Partial<WorkerSetup> {
  /** Worker count (default: available parallelism). */
  threads?: number;
  /**
   * Where the workers' validate-code cache and terminology counts go (cache_requests_total,
   * terminology_validate_code_*), as the same series the main thread's own lookups count into.
   */
  registry?: Registry;
}

export class ValidationPool {
  private constructor(private readonly pool: Piscina, private readonly metrics: WorkerMetricsSink | undefined) {}

  static create(options: ValidationPoolOptions = {}): ValidationPool {
    const threads = Math.max(1, options.threads ?? os.availableParallelism());
    // Under tsx (tests, scripts) the worker is the .ts source and the worker inherits tsx through
    // execArgv; compiled, it is the .js next to this file.
    const ext = import.meta.url.endsWith('.ts') ? '.ts' : '.js';
    const filename = fileURLToPath(new URL(`./validation-worker${ext}`, import.meta.url));
    const { threads: _threads, registry, ...setup } = options;
    const workerData: WorkerSetup = { ...setup, packages: options.packages ?? [], resources: options.resources ?? [] };
    const pool = new Piscina({
      // minThreads = maxThreads: idle workers are never stopped (their start-up is the expensive part).
      filename, minThreads: threads, maxThreads: threads, workerData, execArgv: process.execArgv,
    });
    return new ValidationPool(pool, registry ? new WorkerMetricsSink(registry) : undefined);
  }

  get threads(): number {
    return this.pool.threads.length;
  }

  /** Tasks waiting for a free worker. */
  get queueSize(): number {
    return this.pool.queueSize;
  }

  /** Validate a batch of resources (each on its own) in one worker. */
  async validate(task: ValidationTask): Promise<ValidationOutcome[]> {
    return (await this.validateTimed(task)).outcomes;
  }

  /** As validate(), with the milliseconds each resource took in the worker. */
  async validateTimed(task: ValidationTask): Promise<{ outcomes: ValidationOutcome[]; durationsMs: number[] }> {
    const { outcomes, durationsMs, metrics } = await this.pool.run(task) as ValidationTaskResult;
    if (metrics) this.metrics?.add(metrics);
    return { outcomes, durationsMs };
  }

  /** Validate one resource in whichever worker is free. */
  async validateOne(resource: unknown, options: Omit<ValidationTask, 'resources'> = {}): Promise<ValidationOutcome> {
    const [outcome] = await this.validate({ ...options, resources: [resource] });
    return outcome!;
  }

  /** Finishes the queued and running tasks, then stops the workers (used after a rebuild). */
  async retire(): Promise<void> {
    await this.pool.close({ force: false });
  }

  /** Stops now; tasks still queued or running are rejected (shutdown). */
  async close(): Promise<void> {
    await this.pool.destroy();
  }
}
