/**
 * The CLI's files spread over worker threads (validate-worker.ts). Each worker builds the validator
 * the CLI builds in its own thread (buildCliValidator: same packages through the start-up cache,
 * same --load resources and options), so the outcomes do not depend on the thread. Files are handed
 * out one at a time to whichever worker is free (a large file does not hold up the others'
 * share); the outcomes come back as JSON text (encoded once) and are returned in the order of the
 * files.
 */
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { ValidationOutcome } from '../domain/engine/outcome/issue.js';
import type { ValidatorSetup } from './validate.js';

/** From the main thread to a worker: validate the file at `index`. */
export interface FileRequest {
  readonly index: number;
  readonly file: string;
}

/** From a worker: ready (with the warnings of building its validator), a file's outcome, or a failure to start. */
export type WorkerMessage =
  | { readonly kind: 'ready'; readonly warnings: string[] }
  | { readonly kind: 'outcome'; readonly index: number; readonly outcomeJson: string }
  | { readonly kind: 'failed'; readonly message: string };

export interface WorkerSetupData {
  readonly setup: ValidatorSetup;
  readonly profiles: readonly string[];
}

export async function validateInWorkers(
  setup: ValidatorSetup, files: readonly string[], profiles: readonly string[], threads: number,
): Promise<{ outcomes: ValidationOutcome[]; warnings: string[] }> {
  // Under tsx (tests) the worker is the .ts source and inherits tsx through execArgv; compiled, the .js.
  const ext = import.meta.url.endsWith('.ts') ? '.ts' : '.js';
  const filename = fileURLToPath(new URL(`./validate-worker${ext}`, import.meta.url));
  const workerData: WorkerSetupData = {
    setup: { igs: setup.igs, loads: setup.loads, cache: setup.cache, securityChecks: setup.securityChecks, allowExampleUrls: setup.allowExampleUrls }, profiles,
  };
  const outcomes: ValidationOutcome[] = new Array(files.length);
  let warnings: string[] | undefined;
  let next = 0;
  const workers: Worker[] = [];
  try {
    await Promise.all(Array.from({ length: threads }, () => new Promise<void>((resolve, reject) => {
      const worker = new Worker(filename, { workerData, execArgv: process.execArgv });
      workers.push(worker);
      const give = () => {
        if (next >= files.length) return resolve();
        const index = next++;
        worker.postMessage({ index, file: files[index]! } satisfies FileRequest);
      };
      worker.on('message', (message: WorkerMessage) => {
        if (message.kind === 'failed') return reject(new Error(message.message));
        if (message.kind === 'ready') warnings ??= message.warnings;
        else outcomes[message.index] = JSON.parse(message.outcomeJson) as ValidationOutcome;
        give();
      });
      worker.once('error', reject);
      worker.once('exit', (code) => reject(new Error(`a validation worker exited (${code})`)));
    })));
  } finally {
    await Promise.all(workers.map((worker) => worker.terminate()));
  }
  return { outcomes, warnings: warnings ?? [] };
}
