/** CPU used by the machine's PostgreSQL, NATS and Redis (and this script) during a scale-out phase. */
import { processCpuSeconds } from '../bench/process-cpu.js';

export type InfrastructureGroup = 'postgres' | 'nats' | 'redis';
const GROUP_OF: Record<string, InfrastructureGroup> = { postgres: 'postgres', 'nats-server': 'nats', 'redis-server': 'redis' };

/** utime + stime in seconds of every PostgreSQL, NATS and Redis process now running (/proc). */
function infrastructureProcesses(): Map<number, { group: InfrastructureGroup; seconds: number }> {
  const found = new Map<number, { group: InfrastructureGroup; seconds: number }>();
  for (const [pid, { command, seconds }] of processCpuSeconds()) {
    const group = GROUP_OF[command];
    if (group) found.set(pid, { group, seconds });
  }
  return found;
}

/**
 * CPU of PostgreSQL, NATS and Redis (and of this script) over a phase. Sampled every 250 ms, so a
 * PostgreSQL backend that exits during the phase (a pool connection closed, an ANALYZE run) keeps
 * the seconds it was last seen with; a process first seen during the phase counts from zero.
 */
export function infrastructureSampler(): { stop(): Record<InfrastructureGroup | 'script', number> } {
  const baseline = infrastructureProcesses();
  const last = new Map(baseline);
  const scriptStart = process.cpuUsage();
  const sample = () => { for (const [pid, value] of infrastructureProcesses()) last.set(pid, value); };
  const timer = setInterval(sample, 250);
  timer.unref();
  return {
    stop() {
      clearInterval(timer);
      sample();
      const totals = { postgres: 0, nats: 0, redis: 0, script: 0 };
      for (const [pid, value] of last) totals[value.group] += value.seconds - (baseline.get(pid)?.seconds ?? 0);
      const script = process.cpuUsage(scriptStart);
      totals.script = (script.user + script.system) / 1e6;
      return totals;
    },
  };
}
