import express, { type Express, type RequestHandler } from 'express';
import type { Logger } from '../observability/logger.js';
import { createMetrics, metricsHandler, type ServiceMetrics } from '../observability/metrics.js';
import { notFoundHandler, problemErrorHandler } from './errors.js';
import {
  bodyParsers, guardBeforeBodies, nulCharacterGuard, requestContextMiddleware, requestLogging, traceIdMiddleware, unsupportedBodyGuard, type AnyMediaTypeRoute, type RouteBodyLimit,
} from './front.js';
import { healthRouter, type ReadinessCheck } from './health.js';
import type { OpenApiBuilder } from './openapi.js';
import { swaggerUiHandlers } from './swagger-ui.js';

export interface HttpAppOptions {
  readonly serviceName: string;
  readonly logger: Logger;
  /** The service's registry; a new one is made when omitted. */
  readonly metrics?: ServiceMetrics;
  /** Largest JSON body (bytes or `1mb`); default 1mb. */
  readonly jsonLimit?: number | string;
  /** Largest binary upload (gzip/tar/octet-stream); default 50mb. */
  readonly rawLimit?: number | string;
  /** When given (and `docs` is not false), `GET /api-docs` serves its document and `/swagger` the Swagger UI. */
  readonly openApi?: OpenApiBuilder;
  /** Serve `/api-docs` and `/swagger` (docs.enabled); default true. Routes still register with `openApi`. */
  readonly docs?: boolean;
  /**
   * Guards the API document (`/api-docs`): the AuthenticatedUser policy when docs.authenticated
   * (as in production); the Swagger UI then asks for the token (swagger-ui.ts).
   */
  readonly docsGuard?: RequestHandler;
  /**
   * Where `GET /` sends a visitor (302), so that the bare address is not a 404: the Swagger UI
   * (`/swagger`) when this app serves it; an app that mounts its own UI (the gateway) names it here.
   */
  readonly home?: string;
  /**
   * Serve `/metrics` on this app; default true. False when metrics.port gives the scraper a listener of
   * its own (`listenMetrics`), so the API port, which an Ingress may expose, does not show them.
   */
  readonly serveMetrics?: boolean;
  /** Dependency checks behind `GET /health/ready`. */
  readonly readiness?: readonly ReadinessCheck[];
  /**
   * Handlers every request under `path` passes BEFORE its body is read (the AuthenticatedUser policy
   * on `/api`): an unauthenticated caller cannot make the service read, buffer or parse a body.
   */
  readonly guard?: { readonly path: string; readonly handlers: readonly RequestHandler[] };
  /** Routes that read their bodies themselves, with their own limits (see bodyParsers): the app's parsers skip them. */
  readonly ownBodyRoutes?: readonly AnyMediaTypeRoute[];
  /** Routes whose JSON bodies have their own limit instead of `jsonLimit` (see bodyParsers). */
  readonly routeBodyLimits?: readonly RouteBodyLimit[];
  /** Routes that read bodies of any media type themselves; every other body must be JSON or package bytes (else 415). */
  readonly anyMediaTypeRoutes?: readonly AnyMediaTypeRoute[];
  /**
   * Routes that must see the raw request stream (the gateway's proxy): mounted after the trace id and
   * request logging but before the body parsers, so uploads are streamed rather than buffered.
   */
  readonly streamingRoutes?: (app: Express) => void;
}

export interface HttpApp {
  readonly app: Express;
  readonly metrics: ServiceMetrics;
  /** Adds a check to `/health/ready` (for parts that start after the app, e.g. the validation workers). */
  addReadinessCheck(check: ReadinessCheck): void;
  /** Adds a check to `/health` (liveness): only for a state a restart cures. */
  addLivenessCheck(check: ReadinessCheck): void;
  /**
   * Adds the standard tail (404/405 and the Problem Details error handler). Call once, after the
   * service's routes; routes added afterwards are never reached.
   */
  finish(): Express;
}

/**
 * The standard express 5 app: front middleware, health/metrics/docs routes, then (after the
 * service adds its routers) `finish()` for the tail. See index.ts for the order and conventions.
 */
export function createHttpApp(options: HttpAppOptions): HttpApp {
  const { logger, openApi } = options;
  const metrics = options.metrics ?? createMetrics(options.serviceName);
  const app = express();
  app.disable('x-powered-by');
  // No ETag on every response: express hashed each JSON body (SHA-1) for conditional GETs that no
  // client of these APIs sends; a page of 20 facilities spent ~20 µs on it.
  app.set('etag', false);

  app.use(traceIdMiddleware());
  app.use(requestLogging(app, logger, metrics));
  options.streamingRoutes?.(app);
  if (options.guard) app.use(options.guard.path, ...guardBeforeBodies(options.guard.handlers));
  app.use(...bodyParsers(options.jsonLimit ?? '1mb', options.rawLimit ?? '50mb', options.routeBodyLimits, options.ownBodyRoutes));
  app.use(unsupportedBodyGuard(options.anyMediaTypeRoutes));
  app.use(nulCharacterGuard());
  app.use(requestContextMiddleware());

  const readiness = [...(options.readiness ?? [])];
  const liveness: ReadinessCheck[] = [];
  app.use(healthRouter(readiness, logger, liveness));
  if (options.serveMetrics ?? true) app.get('/metrics', metricsHandler(metrics.registry));
  if (openApi && (options.docs ?? true)) {
    const guard: RequestHandler = options.docsGuard ?? ((_req, _res, next) => next());
    app.get('/api-docs', guard, (_req, res) => {
      res.json(openApi.document());
    });
    // Relative URL so the UI also works behind the gateway's path prefix.
    app.use('/swagger', ...swaggerUiHandlers({ title: `${options.serviceName} API`, documentUrl: '../api-docs', tokenRequired: Boolean(options.docsGuard) }));
  }

  const home = options.home ?? (openApi && (options.docs ?? true) ? '/swagger' : undefined);
  if (home) app.get('/', (_req, res) => res.redirect(302, home));

  let finished = false;
  return {
    app,
    metrics,
    addReadinessCheck: (check) => { readiness.push(check); },
    addLivenessCheck: (check) => { liveness.push(check); },
    finish() {
      if (!finished) {
        finished = true;
        app.use(notFoundHandler(app));
        app.use(problemErrorHandler(logger));
      }
      return app;
    },
  };
}
