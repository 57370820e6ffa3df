/**
 * The CLI's files spread over this thread and `threads - 1` worker threads (validate-worker.ts).
 * Every thread builds the validator the CLI builds (buildCliValidator: same packages through the
 * start-up cache, same --load resources and options), so the outcomes do not depend on the thread.
 * Files are taken one at a time from one queue by whichever thread is free, this one included: it
 * starts validating while the workers are still starting (most of a short run is the first
 * validations' warm-up, which each thread pays), so a few files never wait for a worker, and many
 * files are shared by all. Workers answer each outcome as JSON text (encoded once); the outcomes
 * are returned in the order of the files.
 */
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { ValidationOutcome } from '../domain/engine/outcome/issue.js';
import { buildCliValidator, validateFile, type ValidatorSetup } from './cli-validator.js';

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

export async function validateInParallel(
  setup: ValidatorSetup, files: readonly string[], profiles: readonly string[], threads: number,
): Promise<{ outcomes: ValidationOutcome[]; warnings: string[] }> {
  // Under tsx (tests) the worker is the .ts source and inherits tsx through execArgv; compiled, the .js.
  const ext = import.meta.url.endsWith('.ts') ? '.ts' : '.js';
  const filename = fileURLToPath(new URL(`./validate-worker${ext}`, import.meta.url));
  const workerData: WorkerSetupData = {
    setup: { igs: setup.igs, loads: setup.loads, cache: setup.cache, settings: setup.settings, extensionPack: setup.extensionPack, messageWording: setup.messageWording }, profiles,
  };
  const outcomes: ValidationOutcome[] = new Array(files.length);
  let next = 0;
  let done = 0;
  const workers: Worker[] = [];
  let allDone!: () => void;
  let failed!: (error: Error) => void;
  const finished = new Promise<void>((resolve, reject) => {
    allDone = resolve;
    failed = reject;
  });
  const settle = () => {
    done += 1;
    if (done === files.length) allDone();
  };
  try {
    for (let t = 1; t < threads; t++) {
      const worker = new Worker(filename, { workerData, execArgv: process.execArgv });
      workers.push(worker);
      const give = () => {
        const file = files[next];
        if (file === undefined) return;
        const index = next++;
        worker.postMessage({ index, file } satisfies FileRequest);
      };
      worker.on('message', (message: WorkerMessage) => {
        if (message.kind === 'failed') return failed(new Error(message.message));
        if (message.kind === 'outcome') {
          outcomes[message.index] = JSON.parse(message.outcomeJson) as ValidationOutcome;
          settle();
        }
        give();
      });
      worker.once('error', failed);
      // A worker that exits is an error only while it may still hold a file.
      worker.once('exit', (code) => { if (done < files.length) failed(new Error(`a validation worker exited (${code})`)); });
    }
    // This thread is one of the threads.
    const { validator, warnings } = await buildCliValidator(setup);
    const own = (async () => {
      for (let file = files[next]; file !== undefined; file = files[next]) {
        const index = next++;
        outcomes[index] = await validateFile(validator, file, profiles);
        settle();
      }
    })();
    await Promise.all([own, finished]);
    return { outcomes, warnings };
  } finally {
    await Promise.all(workers.map((worker) => worker.terminate()));
  }
}
