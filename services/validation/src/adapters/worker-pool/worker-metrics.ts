/**
 * Counters of the work done inside validation workers, carried to the main thread's Prometheus
 * registry. A worker has no registry (/metrics is served by the main thread), so it counts into
 * plain numbers — its validate-code cache's `stats()` and its terminology's `TerminologyMetrics`
 * — and each task result carries what changed since the previous report (a few numbers, only
 * when something did). The main thread adds them to the very counters the in-process path
 * increments, so the series are the same whatever `validation.workers` is.
 *
 * Every count a task causes is made before the task resolves (the terminology awaits its cache
 * writes), so the report on a task's result includes it. A task that throws reports nothing; its
 * counts go with that worker's next result.
 */
import type { Registry } from 'prom-client';
import { countCacheRequests, type CacheStats } from '#adapters/cache/index.js';
import { TerminologyMetrics, type TerminologyCounts } from '../terminology/terminology-metrics.js';

/** Changes since the worker's previous report; absent or missing keys are zero. */
export interface WorkerMetricsReport {
  /** By `cache_requests_total` cache label. */
  caches?: Record<string, Partial<CacheStats>>;
  terminology?: Partial<TerminologyCounts>;
}

interface Counted {
  stats(): CacheStats;
}

/** Worker side: the counters of this thread, and what was already reported of them. */
export class WorkerCounters {
  /** Shared by the terminologies of every scope this worker validates in. */
  readonly terminology = new TerminologyMetrics();
  private readonly caches = new Map<string, Counted>();
  private readonly reported = new Map<string, Record<string, number>>();

  addCache(label: string, cache: Counted): void {
    this.caches.set(label, cache);
  }

  /** What changed since the last call, or undefined when nothing did. */
  takeReport(): WorkerMetricsReport | undefined {
    let report: WorkerMetricsReport | undefined;
    const terminology = this.change('terminology', this.terminology.counts);
    if (terminology) report = { terminology };
    for (const [label, cache] of this.caches) {
      const stats = this.change(`cache:${label}`, cache.stats());
      if (!stats) continue;
      report ??= {};
      (report.caches ??= {})[label] = stats;
    }
    return report;
  }

  /** The numeric members of `now` that changed since the last report under `key`, by how much. */
  private change(key: string, now: object): Record<string, number> | undefined {
    const values: Record<string, number> = {};
    for (const name of Object.keys(now)) {
      const value: unknown = Reflect.get(now, name);
      if (typeof value === 'number') values[name] = value;
    }
    const before = this.reported.get(key) ?? {};
    let change: Record<string, number> | undefined;
    for (const [name, value] of Object.entries(values)) {
      const delta = value - (before[name] ?? 0);
      if (delta !== 0) (change ??= {})[name] = delta;
    }
    if (change) this.reported.set(key, values);
    return change;
  }
}

/** Main-thread side: adds workers' reports to the registry's counters. */
export class WorkerMetricsSink {
  private readonly terminology: TerminologyMetrics;

  constructor(private readonly registry: Registry) {
    this.terminology = new TerminologyMetrics(registry);
  }

  add(report: WorkerMetricsReport): void {
    if (report.terminology) this.terminology.add(report.terminology);
    for (const [label, counts] of Object.entries(report.caches ?? {})) countCacheRequests(this.registry, label, counts);
  }
}
