/**
 * Observability shared by all services:
 * - `createLogger(name)` / `silentLogger()`: pino JSON logs; a line written while serving a request
 *   carries that request's `traceId` automatically.
 * - `createMetrics(serviceName)`: a per-service prom-client registry (default process metrics,
 *   `service` label) with counter/histogram/gauge helpers; `metricsHandler(registry)` serves `/metrics`.
 * - W3C `traceparent` parsing/formatting/generation (`trace-context.ts`).
 * - `runWithContext({ traceId, authorization }, fn)` / `currentContext()`: the request context
 *   (AsyncLocalStorage) through which the outbound HTTP client forwards the caller's Authorization
 *   header and the trace id.
 * - `contextFromTraceparent` / `withTraceparent`: trace propagation through NATS messages, queries and
 *   the outbox (`propagation.ts`).
 */
export { createLogger, silentLogger, type Logger } from './logger.js';
export { createMetrics, metricsHandler, type CreateMetricsOptions, type ServiceMetrics } from './metrics.js';
export {
  childTraceContext, formatTraceparent, generateTraceContext, newSpanId, newTraceId, parseTraceparent,
  traceContextFromHeader, type TraceContext,
} from './trace-context.js';
export { currentContext, runWithContext, type RequestContext } from './request-context.js';
export { contextFromTraceparent, hasTraceparent, outgoingTraceparent, withTraceparent } from './propagation.js';
