/**
 * Each validation worker's heap limit (validation.worker-heap-mb; 0 = derived from the pod's
 * memory). Without a limit a worker may grow to the whole process's heap, so one hostile resource
 * could take the pod down with every submission in flight; with one, that worker alone is replaced
 * and the resource gets a fatal issue (worker-pool/validation-pool.ts).
 */
import os from 'node:os';

/** The share of the pod's memory the workers' heaps may use together; the rest is the main thread's (definitions, bodies, buffers). */
export const WORKERS_MEMORY_SHARE = 0.6;
/** Never less (a worker holds the definitions it decoded and a large Bundle entry's tree) nor more, whatever the pod. */
export const MIN_DERIVED_HEAP_MB = 512;
export const MAX_DERIVED_HEAP_MB = 4_096;

/** The memory this process may use: its cgroup's limit (a container) when there is one, else the machine's. */
export function podMemoryMb(): number {
  const constrained = process.constrainedMemory();
  const bytes = constrained > 0 && constrained < os.totalmem() ? constrained : os.totalmem();
  return Math.floor(bytes / 1024 / 1024);
}

/** The configured limit, or (0) the workers' share of the pod's memory split between `threads` workers, within the bounds above. */
export function workerHeapMb(configuredMb: number, threads: number, memoryMb = podMemoryMb()): number {
  if (configuredMb > 0) return configuredMb;
  const share = Math.floor((memoryMb * WORKERS_MEMORY_SHARE) / Math.max(1, threads));
  return Math.min(MAX_DERIVED_HEAP_MB, Math.max(MIN_DERIVED_HEAP_MB, share));
}
