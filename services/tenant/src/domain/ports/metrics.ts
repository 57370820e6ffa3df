/**
 * Counters the tenant's use cases keep (the report scheduler's firings and polls). The shared
 * Prometheus registry of the service has this shape; the composition root passes it.
 */
export interface Metrics {
  /** The counter of that name: a new one, or the existing one when another module asked first. */
  counter(config: CounterConfig): Counter;
}

export interface CounterConfig {
  readonly name: string;
  readonly help: string;
  readonly labelNames?: readonly string[];
}

export interface Counter {
  /** Adds `value` (default 1) to the series without labels. */
  inc(value?: number): void;
  /** Adds `value` (default 1) to the series of these label values (0 makes the series exist). */
  inc(labels: Readonly<Record<string, string>>, value?: number): void;
}
