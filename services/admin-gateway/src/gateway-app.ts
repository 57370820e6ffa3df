import type { Express, Request, Response } from 'express';
import swaggerUi from 'swagger-ui-express';
import { authenticatedUser, type AuthMode, type TokenVerifier } from '../../../adapters/auth/index.js';
import { createHttpApp, HttpProblem, sendProblem, type HttpApp } from '../../../adapters/http/index.js';
import type { Logger } from '../../../adapters/observability/logger.js';
import { createMetrics } from '../../../adapters/observability/metrics.js';
import { createProxyHandler } from './proxy/forward.js';

export interface GatewayOptions {
  upstreams: Record<string, string>;
  upstreamTimeoutMs: number;
  /** Service that publishes the platform's JWKS (the tenant service); served publicly at /.well-known/jwks.json. */
  jwksUpstream?: string;
  authMode: AuthMode;
  verifier?: TokenVerifier;
  logger: Logger;
  /** Serve /swagger and /docs (docs.enabled); default true. */
  docs?: boolean;
  /** Serve /metrics on this app (false when metrics.port has its own listener); default true. */
  serveMetrics?: boolean;
}

/**
 * The admin gateway: `/api/<component>/...` → the component's service with `<component>` stripped,
 * guarded by AuthenticatedUser. One Swagger UI (`/swagger`) shows every service's document, each
 * fetched from the service and rewritten to the gateway's external paths.
 */
export function createGatewayApp(options: GatewayOptions): HttpApp {
  const { logger, upstreams } = options;
  const metrics = createMetrics('admin-gateway');
  const guard = authenticatedUser({ mode: options.authMode, verifier: options.verifier, logger, metrics });
  const proxy = createProxyHandler({
    upstreams,
    timeoutMs: options.upstreamTimeoutMs,
    sendProblem: (res, status, _title, detail) =>
      sendProblem(res as Response, status === 503 ? HttpProblem.serviceUnavailable(detail, 5) : HttpProblem.badGateway(detail)),
    onUpstreamError: (component, error) => logger.warn({ component, err: error.message }, 'upstream call failed'),
  });

  const http = createHttpApp({
    serviceName: 'admin-gateway',
    logger,
    metrics,
    serveMetrics: options.serveMetrics,
    streamingRoutes: (app: Express) => {
      const components = Object.keys(upstreams).join('|');
      const external = new RegExp(`^/api/(${components})(/|$)`, 'i');
      app.use((req, res, next) => {
        if (!external.test(req.path)) return next();
        guard(req, res, (error?: unknown) => (error ? next(error) : proxy(req, res, next)));
      });
    },
  });

  if (options.docs ?? true) serveDocs(http, upstreams);
  // EHRs verify the platform's client assertions with this document: public, no token, short cache.
  if (options.jwksUpstream) {
    const jwksUrl = new URL('/.well-known/jwks.json', options.jwksUpstream);
    http.app.get('/.well-known/jwks.json', async (_req: Request, res: Response) => {
      let answer: globalThis.Response;
      try {
        answer = await fetch(jwksUrl, { signal: AbortSignal.timeout(options.upstreamTimeoutMs) });
      } catch {
        throw HttpProblem.serviceUnavailable('The key set is not reachable right now.', 5);
      }
      if (!answer.ok) throw HttpProblem.badGateway('The key set could not be read.');
      res.setHeader('Cache-Control', answer.headers.get('cache-control') ?? 'public, max-age=300');
      res.type('application/json').send(await answer.text());
    });
  }
  return http;
}

/** One Swagger UI (`/swagger`) over every service's document (`/docs/<component>.json`, rewritten to the gateway's paths). */
function serveDocs(http: HttpApp, upstreams: Record<string, string>): void {
  http.app.get('/docs/:component.json', async (req: Request, res: Response) => {
    const component = String(req.params.component).toLowerCase();
    const base = upstreams[component];
    if (!base) throw HttpProblem.notFound(`No service named "${component}" behind this gateway.`);
    let document: { paths?: Record<string, unknown>; servers?: unknown };
    try {
      const answer = await fetch(new URL('/api-docs', base), { signal: AbortSignal.timeout(5000) });
      if (!answer.ok) throw new Error(`status ${answer.status}`);
      document = (await answer.json()) as typeof document;
    } catch {
      throw HttpProblem.badGateway(`The ${component} service did not provide its API document.`);
    }
    res.json(externalDocument(document, component));
  });
  const urls = Object.keys(upstreams).map((name) => ({ name, url: `/docs/${name}.json` }));
  http.app.use('/swagger', swaggerUi.serve, swaggerUi.setup(undefined, { explorer: true, swaggerOptions: { urls }, customSiteTitle: 'NHSN admin gateway' }));
}

/** Rewrites a service's OpenAPI paths `/api/x` to the gateway's external `/api/<component>/x`. */
export function externalDocument<T extends { paths?: Record<string, unknown> }>(document: T, component: string): T {
  const paths: Record<string, unknown> = {};
  for (const [path, item] of Object.entries(document.paths ?? {})) {
    paths[path.replace(/^\/api(?=\/|$)/, `/api/${component}`)] = item;
  }
  return { ...document, paths, servers: [{ url: '/' }] };
}
