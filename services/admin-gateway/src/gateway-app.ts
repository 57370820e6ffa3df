import type { Express, Request, RequestHandler, Response } from 'express';
import type { RequestListener } from 'node:http';
import { alreadyAuthenticated, authenticatedUser, type AuthMode, type TokenVerifier } from '#adapters/auth/index.js';
import { BEARER_SCHEME, createHttpApp, HttpProblem, requestRecorder, swaggerUiHandlers, writeProblem, type HttpApp } from '#adapters/http/index.js';
import type { Logger } from '#adapters/observability/logger.js';
import { createMetrics } from '#adapters/observability/metrics.js';
import { isTraceContext, traceContextFromHeader, type TraceContext } from '#adapters/observability/trace-context.js';
import { passThrough } from './pass-through.js';
import { createProxy, hasRequestBody } from './proxy/forward.js';
import { checkRequestTarget } from './proxy/gateway-path.js';

export interface GatewayOptions {
  upstreams: Record<string, string>;
  upstreamTimeoutMs: number;
  /** Largest request body passed on to a service (streamed, counted on the way); larger: 413. Default 50 MiB. */
  maxBodyBytes?: number;
  /** Service that publishes the platform's JWKS (the tenant service); served publicly at /.well-known/jwks.json. */
  jwksUpstream?: string;
  authMode: AuthMode;
  verifier?: TokenVerifier;
  logger: Logger;
  /** Serve the API documentation: /swagger, /docs, /api-docs and, through the Ingress, /api/docs (docs.enabled); default true. */
  docs?: boolean;
  /** The documents only to authenticated users, by the AuthenticatedUser policy of /api (docs.authenticated); default false. */
  docsAuthenticated?: boolean;
  /** Serve /metrics on this app (false when metrics.port has its own listener); default true. */
  serveMetrics?: boolean;
}

/** The gateway's HTTP app; `finish()` gives the server's request listener: the pass-through in front of the express app. */
export interface GatewayApp extends Omit<HttpApp, 'finish'> {
  /** Adds the express app's tail (404/405, Problem Details) and returns the listener; call once, after adding routes. */
  finish(): RequestListener;
}

/** The trace context traceIdMiddleware stored for an express request. */
function traceOf(res: Response): TraceContext {
  const trace: unknown = res.locals.traceContext;
  return isTraceContext(trace) ? trace : traceContextFromHeader(undefined);
}

/**
 * The admin gateway: `/api/<component>/...` → the component's service with `<component>` stripped,
 * guarded by AuthenticatedUser. Before anything else, the request path is checked (gateway-path.ts:
 * no dot segments, encoded slashes or backslashes, else 400) and that checked path decides both whether
 * to authenticate and where to route. The token is verified before any byte of the body is read; a
 * refused request's body is never read (the connection closes with the answer), and the gateway's
 * own routes take no body at all. A request of an already authenticated caller for a service is passed
 * on before express (pass-through.ts); express sees the rest. One Swagger UI (`/swagger`) shows every
 * service's document, each fetched from the service and rewritten to the gateway's external paths.
 */
export function createGatewayApp(options: GatewayOptions): GatewayApp {
  const { logger, upstreams } = options;
  const metrics = createMetrics('admin-gateway');
  const guard = authenticatedUser({ mode: options.authMode, verifier: options.verifier, logger, metrics });
  const proxy = createProxy({
    upstreams,
    timeoutMs: options.upstreamTimeoutMs,
    maxBodyBytes: options.maxBodyBytes,
    sendProblem: (res, status, _title, detail, traceId, instance) => writeProblem(res, status === 503 ? HttpProblem.serviceUnavailable(detail, 5)
      : status === 413 ? HttpProblem.payloadTooLarge(detail) : HttpProblem.badGateway(detail), traceId, instance),
    onUpstreamError: (component, error, traceId) => logger.warn({ component, err: error.message, traceId }, 'upstream call failed'),
  });

  const http = createHttpApp({
    serviceName: 'admin-gateway',
    logger,
    metrics,
    serveMetrics: options.serveMetrics,
    // The one Swagger UI over every service (serveDocs below) is what a visitor of the bare address wants.
    home: options.docs ?? true ? '/swagger' : undefined,
    streamingRoutes: (app: Express) => {
      // A refused request's body is not read: node closes the connection after an answer sent before
      // the body was read (with Connection: close), so nothing past the headers is taken in.
      app.use((req, res, next) => {
        const checked = checkRequestTarget(req.url);
        if (!checked.ok) return next(HttpProblem.badRequest(checked.detail));
        const target = proxy.route(checked);
        if (!target) {
          return hasRequestBody(req)
            ? next(HttpProblem.payloadTooLarge('The admin gateway\'s own routes take no request body; the services\' APIs are under /api/<service>/.'))
            : next();
        }
        guard(req, res, (error?: unknown) => (error ? next(error) : proxy.forward(req, res, target, traceOf(res))));
      });
    },
  });

  if (options.docs ?? true) serveDocs(http, upstreams, options.docsAuthenticated ? guard : undefined);
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
  let listener: RequestListener | undefined;
  return {
    app: http.app,
    metrics,
    addReadinessCheck: (check) => { http.addReadinessCheck(check); },
    addLivenessCheck: (check) => { http.addLivenessCheck(check); },
    finish: () => (listener ??= passThrough({
      proxy,
      authenticated: alreadyAuthenticated(options.authMode, options.verifier),
      record: requestRecorder(logger, metrics),
      fallback: http.finish(),
      failed: (error, req, res, traceId, path) => {
        logger.error({ err: error, traceId, method: req.method, path }, 'unhandled error');
        if (res.headersSent) res.destroy();
        else writeProblem(res, HttpProblem.internal(), traceId, path);
      },
    })),
  };
}

type ServiceDocument = { paths?: Record<string, unknown>; servers?: unknown; components?: Record<string, Record<string, unknown>> };

const isPlainObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** The parts of an OpenAPI document the merge reads: `paths` an object, `components` an object of objects. */
function isServiceDocument(value: unknown): value is ServiceDocument {
  if (!isPlainObject(value)) return false;
  const { paths, components } = value;
  return (paths === undefined || isPlainObject(paths))
    && (components === undefined || (isPlainObject(components) && Object.values(components).every(isPlainObject)));
}

/** A service's document; the caller's Authorization goes on (header propagation), for a service whose documents are guarded too. */
async function fetchServiceDocument(component: string, base: string, authorization: string | undefined): Promise<ServiceDocument> {
  try {
    const answer = await fetch(new URL('/api-docs', base), { signal: AbortSignal.timeout(5000), ...(authorization ? { headers: { authorization } } : {}) });
    if (!answer.ok) throw new Error(`status ${answer.status}`);
    const document: unknown = await answer.json();
    if (!isServiceDocument(document)) throw new Error('not an OpenAPI document');
    return document;
  } catch {
    throw HttpProblem.badGateway(`The ${component} service did not provide its API document.`);
  }
}

/**
 * One Swagger UI over every service's document (each rewritten to the gateway's paths), and all of
 * them merged into one document of the gateway's external API:
 * - `/api/docs/` (the UI), `/api/docs/<component>.json`, `/api/docs/openapi.json` (merged): under
 *   /api, so the production Ingress (which routes /api only) reaches them;
 * - `/swagger`, `/docs/<component>.json`, `/api-docs`: the same at the paths they had (inside the
 *   cluster, local runs).
 * With `guard` (docs.authenticated) every document answers only an authenticated user, by the
 * AuthenticatedUser policy of the API itself, and the UI asks for the token (swagger-ui.ts).
 */
function serveDocs(http: HttpApp, upstreams: Record<string, string>, guard: RequestHandler | undefined): void {
  const guarded: RequestHandler = guard ?? ((_req, _res, next) => next());
  const serviceDocument = async (req: Request, res: Response) => {
    const component = String(req.params.component).toLowerCase();
    // Own keys only: `constructor`, `toString` … are Object.prototype's, not services.
    const base = Object.hasOwn(upstreams, component) ? upstreams[component] : undefined;
    if (!base) throw HttpProblem.notFound(`No service named "${component}" behind this gateway.`);
    res.json(externalDocument(await fetchServiceDocument(component, base, req.headers.authorization), component));
  };
  const merged = async (req: Request, res: Response) => {
    const documents: Array<{ component: string; document: ServiceDocument }> = [];
    const unavailable: string[] = [];
    for (const [component, base] of Object.entries(upstreams)) {
      try {
        documents.push({ component, document: externalDocument(await fetchServiceDocument(component, base, req.headers.authorization), component) });
      } catch {
        unavailable.push(component);
      }
    }
    if (documents.length === 0) throw HttpProblem.badGateway('No service behind this gateway provided its API document.');
    res.json(mergedDocument(documents, unavailable));
  };
  const tokenRequired = Boolean(guard);
  http.app.get('/docs/:component.json', guarded, serviceDocument);
  http.app.get('/api-docs', guarded, merged);
  http.app.get('/api/docs/openapi.json', guarded, merged);
  http.app.get('/api/docs/:component.json', guarded, serviceDocument);
  // URLs relative to each UI's page (/swagger/, /api/docs/), so both work behind any prefix.
  const names = Object.keys(upstreams);
  http.app.use('/swagger', ...swaggerUiHandlers({ title: 'NHSN admin gateway', tokenRequired, documentUrls: names.map((name) => ({ name, url: `../docs/${name}.json` })) }));
  http.app.use('/api/docs', ...swaggerUiHandlers({ title: 'NHSN admin gateway', tokenRequired, documentUrls: names.map((name) => ({ name, url: `${name}.json` })) }));
}

/**
 * The services' documents (already on external paths) as one OpenAPI document. Components of the
 * same name and content are shared; a name two services use for different things is kept apart by
 * prefixing the later one with its component (`tenant.Facility`) and rewriting its `$ref`s.
 */
export function mergedDocument(documents: ReadonlyArray<{ component: string; document: ServiceDocument }>, unavailable: readonly string[] = []): Record<string, unknown> {
  const paths: Record<string, unknown> = {};
  const components: Record<string, Record<string, unknown>> = {};
  for (const { component, document } of documents) {
    const renames = new Map<string, string>();
    for (const [kind, entries] of Object.entries(document.components ?? {})) {
      const merged = (components[kind] ??= {});
      for (const [name, value] of Object.entries(entries)) {
        if (!Object.hasOwn(merged, name) || JSON.stringify(merged[name]) === JSON.stringify(value)) continue;
        renames.set(`#/components/${kind}/${name}`, `#/components/${kind}/${component}.${name}`);
      }
    }
    const rewrite = (value: unknown): unknown => (renames.size === 0 ? value : JSON.parse(JSON.stringify(value), (key, v: unknown) =>
      (key === '$ref' && typeof v === 'string' && renames.has(v) ? renames.get(v) : v)));
    for (const [kind, entries] of Object.entries(document.components ?? {})) {
      const merged = (components[kind] ??= {});
      for (const [name, value] of Object.entries(entries)) {
        const renamed = renames.get(`#/components/${kind}/${name}`);
        merged[renamed ? `${component}.${name}` : name] = rewrite(value);
      }
    }
    for (const [path, item] of Object.entries(document.paths ?? {})) paths[path] = rewrite(item);
  }
  // The documents of the services declare it; a document without it would leave `security` dangling.
  const schemes = (components.securitySchemes ??= {});
  schemes[BEARER_SCHEME] ??= { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' };
  const description = `The admin gateway's external API: every service under /api/<component>/ (${documents.map((d) => d.component).join(', ')}).`
    + (unavailable.length > 0 ? ` Not reachable when this document was made: ${unavailable.join(', ')}.` : '');
  return {
    openapi: '3.1.0',
    info: { title: 'NHSN admin gateway', version: '1.0.0', description },
    servers: [{ url: '/' }],
    security: [{ [BEARER_SCHEME]: [] }],
    paths,
    components,
  };
}

/** Rewrites a service's OpenAPI paths `/api/x` to the gateway's external `/api/<component>/x`. */
export function externalDocument<T extends { paths?: Record<string, unknown> }>(document: T, component: string): T {
  const paths: Record<string, unknown> = {};
  for (const [path, item] of Object.entries(document.paths ?? {})) {
    paths[path.replace(/^\/api(?=\/|$)/, `/api/${component}`)] = item;
  }
  return { ...document, paths, servers: [{ url: '/' }] };
}
