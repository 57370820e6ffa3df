/**
 * A worker thread of the CLI (parallel-validation.ts): builds the CLI's validator once, says it is
 * ready, then validates the files it is given one at a time and answers each outcome as JSON text.
 */
import { parentPort, workerData } from 'node:worker_threads';
import type { FileRequest, WorkerMessage, WorkerSetupData } from './parallel-validation.js';
import { buildCliValidator, validateFile } from './cli-validator.js';

const { setup, profiles } = workerData as WorkerSetupData;
if (!parentPort) throw new Error('validate-worker.ts runs as a worker thread of parallel-validation.ts');
const port = parentPort;
const send = (message: WorkerMessage) => port.postMessage(message);

try {
  const { validator, warnings } = await buildCliValidator(setup);
  port.on('message', (request: FileRequest) => {
    void validateFile(validator, request.file, profiles).then((outcome) => send({ kind: 'outcome', index: request.index, outcomeJson: JSON.stringify(outcome) }));
  });
  send({ kind: 'ready', warnings });
} catch (error) {
  send({ kind: 'failed', message: error instanceof Error ? error.message : String(error) });
}
