/**
 * CPU accounting from /proc for the benchmarks and the scale-out proof: where a run's CPU went
 * (service instances, PostgreSQL, NATS, Redis, the driver itself). Linux only; elsewhere the
 * functions return 0 / nothing and the scripts print no breakdown.
 */
import { readdirSync, readFileSync } from 'node:fs';

/** Clock ticks per second of /proc/<pid>/stat (USER_HZ, 100 on Linux). */
const TICKS_PER_SECOND = 100;

/** Busy CPU seconds of the whole machine so far (/proc/stat; 0 where there is none). */
export function machineCpuSeconds(): number {
  try {
    const fields = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1).map(Number);
    const idle = (fields[3] ?? 0) + (fields[4] ?? 0);
    return (fields.reduce((a, b) => a + b, 0) - idle) / TICKS_PER_SECOND;
  } catch {
    return 0;
  }
}

export interface ProcessCpu {
  /** The command name (`postgres`, `nats-server`, `node`, ...). */
  readonly command: string;
  /** utime + stime so far, in seconds. */
  readonly seconds: number;
}

/** The command (or thread) name and utime + stime in seconds of a /proc `stat` file. */
function readStat(file: string): ProcessCpu {
  const stat = readFileSync(file, 'utf8');
  const close = stat.lastIndexOf(')');
  const fields = stat.slice(close + 2).split(' ');
  return { command: stat.slice(stat.indexOf('(') + 1, close), seconds: (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND };
}

/** CPU seconds used so far by every process now running, by pid. */
export function processCpuSeconds(): Map<number, ProcessCpu> {
  const found = new Map<number, ProcessCpu>();
  let pids: string[];
  try { pids = readdirSync('/proc').filter((d) => /^\d+$/.test(d)); } catch { return found; }
  for (const pid of pids) {
    try {
      found.set(Number(pid), readStat(`/proc/${pid}/stat`));
    } catch { /* the process exited */ }
  }
  return found;
}

/**
 * CPU seconds used so far by the threads of the given processes (default: this one), grouped by
 * thread name (/proc/<pid>/task): `MainThread`, `WorkerThread` (worker_threads), `V8Worker` (V8's
 * helpers: concurrent GC and optimizing compiles), `libuv-worker` and the rest. Empty where there is no /proc.
 */
export function threadCpuSeconds(pids: readonly (number | 'self')[] = ['self']): Map<string, number> {
  const found = new Map<string, number>();
  for (const pid of pids) {
    let tids: string[];
    try { tids = readdirSync(`/proc/${pid}/task`); } catch { continue; }
    for (const tid of tids) {
      try {
        const { command, seconds } = readStat(`/proc/${pid}/task/${tid}/stat`);
        found.set(command, (found.get(command) ?? 0) + seconds);
      } catch { /* the thread ended */ }
    }
  }
  return found;
}

/**
 * CPU milliseconds per item (`count` of them) between two readings, per group (process group or
 * thread name), largest first, without groups under 0.05 ms; as `name 1.23, name 0.45`.
 */
export function cpuMsPer(before: Map<string, number>, after: Map<string, number>, count: number, digits = 2): string {
  return [...after].map(([name, s]) => [name, ((s - (before.get(name) ?? 0)) * 1000) / Math.max(1, count)] as const)
    .filter(([, ms]) => ms >= 0.05).sort((a, b) => b[1] - a[1]).map(([name, ms]) => `${name} ${ms.toFixed(digits)}`).join(', ');
}

/** One thread's scheduler times so far, in seconds: on a CPU, and runnable but waiting for one. */
export interface ThreadSched {
  readonly name: string;
  readonly running: number;
  readonly waiting: number;
}

/**
 * Every thread of this process by tid, from /proc/self/task/<tid>/schedstat (nanoseconds on a CPU,
 * nanoseconds runnable on a run queue): what is left of a span of wall time is the thread's own
 * sleep, e.g. a worker waiting for its next task, whatever the machine's load (empty where there is none).
 */
export function threadSched(): Map<string, ThreadSched> {
  const found = new Map<string, ThreadSched>();
  let tids: string[];
  try { tids = readdirSync('/proc/self/task'); } catch { return found; }
  for (const tid of tids) {
    try {
      const [running, waiting] = readFileSync(`/proc/self/task/${tid}/schedstat`, 'utf8').trim().split(/\s+/).map(Number);
      found.set(tid, { name: readStat(`/proc/self/task/${tid}/stat`).command, running: (running ?? 0) / 1e9, waiting: (waiting ?? 0) / 1e9 });
    } catch { /* the thread ended */ }
  }
  return found;
}
