/**
 * A pool of validation workers (piscina), sized to the cores by default. Definitions are
 * loaded once per worker from the start-up cache; tasks are batches of resources so the
 * message-passing cost is paid per batch, not per resource.
 */
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import { Piscina } from 'piscina';
import type { ValidationOutcome } from '../../domain/engine/outcome/issue.js';
import type { ValidationTask, WorkerSetup } from './validation-worker.js';

export interface ValidationPoolOptions extends Partial<WorkerSetup> {
  /** Worker count (default: available parallelism). */
  threads?: number;
}

export class ValidationPool {
  private constructor(private readonly pool: Piscina) {}

  static create(options: ValidationPoolOptions = {}): ValidationPool {
    const threads = options.threads ?? os.availableParallelism();
    // under tsx (tests, scripts) the worker is the .ts source; compiled, the .js next to this file
    const ext = import.meta.url.endsWith('.ts') ? '.ts' : '.js';
    const filename = fileURLToPath(new URL(`./validation-worker${ext}`, import.meta.url));
    const workerData: WorkerSetup = { packages: options.packages ?? [], resources: options.resources ?? [], cacheDir: options.cacheDir };
    const pool = new Piscina({ filename, minThreads: threads, maxThreads: threads, workerData, execArgv: process.execArgv });
    return new ValidationPool(pool);
  }

  get threads(): number {
    return this.pool.threads.length;
  }

  /** Validate a batch of resources (each on its own) in one worker. */
  validate(task: ValidationTask): Promise<ValidationOutcome[]> {
    return this.pool.run(task) as Promise<ValidationOutcome[]>;
  }

  async close(): Promise<void> {
    await this.pool.destroy();
  }
}
