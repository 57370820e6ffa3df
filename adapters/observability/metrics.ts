import type { Request, RequestHandler, Response } from 'express';
import {
  Counter, Gauge, Histogram, Registry, collectDefaultMetrics,
  type CounterConfiguration, type GaugeConfiguration, type HistogramConfiguration,
} from 'prom-client';

/**
 * One Prometheus registry per service (not prom-client's global one), so tests and several
 * services in one process never collide. Every series carries a `service` label.
 */
export interface ServiceMetrics {
  readonly serviceName: string;
  readonly registry: Registry;
  counter<L extends string>(config: Omit<CounterConfiguration<L>, 'registers'>): Counter<L>;
  histogram<L extends string>(config: Omit<HistogramConfiguration<L>, 'registers'>): Histogram<L>;
  gauge<L extends string>(config: Omit<GaugeConfiguration<L>, 'registers'>): Gauge<L>;
}

export interface CreateMetricsOptions {
  /** Process metrics (CPU, memory, event loop lag, GC); on by default. */
  readonly defaultMetrics?: boolean;
}

export function createMetrics(serviceName: string, options: CreateMetricsOptions = {}): ServiceMetrics {
  const registry = new Registry();
  registry.setDefaultLabels({ service: serviceName });
  if (options.defaultMetrics ?? true) collectDefaultMetrics({ register: registry });
  // An existing metric of the same name is returned, so two modules asking for one counter share it.
  const existing = (name: string) => registry.getSingleMetric(name);
  return {
    serviceName,
    registry,
    counter: <L extends string>(config: Omit<CounterConfiguration<L>, 'registers'>) =>
      (existing(config.name) as Counter<L> | undefined) ?? new Counter<L>({ ...config, registers: [registry] }),
    histogram: <L extends string>(config: Omit<HistogramConfiguration<L>, 'registers'>) =>
      (existing(config.name) as Histogram<L> | undefined) ?? new Histogram<L>({ ...config, registers: [registry] }),
    gauge: <L extends string>(config: Omit<GaugeConfiguration<L>, 'registers'>) =>
      (existing(config.name) as Gauge<L> | undefined) ?? new Gauge<L>({ ...config, registers: [registry] }),
  };
}

/** `GET /metrics` handler: Prometheus text exposition of the registry. */
export function metricsHandler(registry: Registry): RequestHandler {
  return async (_req: Request, res: Response) => {
    const body = await registry.metrics();
    res.setHeader('Content-Type', registry.contentType);
    res.send(body);
  };
}
