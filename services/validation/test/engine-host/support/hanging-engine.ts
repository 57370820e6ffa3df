import { fileURLToPath } from 'node:url';

/** The worker module whose validator hangs on resources with id `hang` (see hanging-worker.ts). */
export const HANGING_WORKER = fileURLToPath(new URL('./hanging-worker.ts', import.meta.url));

/** A resource the hanging worker's validator never finishes. */
export const hangingResource = (): Record<string, unknown> => ({ resourceType: 'Basic', id: 'hang', code: { text: 'never finishes' } });

/** A resource that waits `ms` (its thread idle, as for a slow terminology server) before its normal validation. */
export const waitingResource = (ms: number): Record<string, unknown> => ({ resourceType: 'Basic', id: `wait-${ms}`, code: { text: 'waits' } });

/** A resource that takes `ms` of synchronous work before its normal validation. */
export const busyResource = (ms: number): Record<string, unknown> => ({ resourceType: 'Basic', id: `busy-${ms}`, code: { text: 'slow' } });

/** A resource whose validation allocates until its worker passes its heap limit. */
export const memoryHogResource = (): Record<string, unknown> => ({ resourceType: 'Basic', id: 'hog', code: { text: 'grows without bound' } });
