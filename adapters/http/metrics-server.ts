import express from 'express';
import type { Registry } from 'prom-client';
import { metricsHandler } from '../observability/metrics.js';
import { listen, type HttpServerHandle } from './server.js';

/**
 * The scraper's own listener (metrics.port): `GET /metrics` and nothing else (404 without a body for
 * any other path). On a port of its own, the metrics stay off the API port that an Ingress routes to,
 * and a NetworkPolicy or the Service can open this port to the monitoring system alone.
 */
export function listenMetrics(registry: Registry, port: number, host: string): Promise<HttpServerHandle> {
  const app = express();
  app.disable('x-powered-by');
  app.get('/metrics', metricsHandler(registry));
  app.use((_req, res) => { res.status(404).end(); });
  return listen(app, port, host);
}
