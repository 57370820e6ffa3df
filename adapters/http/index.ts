/**
 * The standard HTTP adapter shared by the validation, tenant and admin-gateway services (express 5).
 *
 * Usage:
 * ```ts
 * const openApi = new OpenApiBuilder({ title: 'Tenant API', version: '1.0.0' });
 * const http = createHttpApp({ serviceName: 'tenant', logger, metrics, openApi, readiness: [{ name: 'database', check: () => orm.isConnected() }] });
 * http.app.use(facilitiesRouter(openApi, service));   // the service's routers
 * const server = await listen(http.finish(), config.httpPort, config.httpHost);
 * process.on('SIGTERM', () => server.close(config.shutdownGraceMs));
 * ```
 *
 * Order of the chain: trace id (`traceparent` or new; `X-Trace-Id` response header) → request log +
 * `http_request_duration_seconds` → `guard` (the AuthenticatedUser policy on `/api`: a refused request is
 * answered before its body is read, and its connection closed) → body parsers (none on `ownBodyRoutes`,
 * which read their bodies themselves) (JSON for application/json, application/fhir+json and
 * *+json up to `jsonLimit`; Buffer for gzip/x-tar/octet-stream up to `rawLimit`; any other body: 415,
 * except on `anyMediaTypeRoutes`) → request context
 * (trace id + incoming Authorization for outbound calls and log lines) → `/health`, `/health/ready`
 * (which dependency is down; why goes to the log), `/metrics` (unless `serveMetrics: false`: metrics.port
 * then serves it through `listenMetrics`), `/api-docs`, `/swagger` (unless `docs: false`) → the service's routes → `finish()`: 405 (with `Allow`) when the
 * path exists for other methods, else 404 → Problem Details error handler.
 *
 * Errors: throw `HttpProblem.badRequest(...)` etc. from handlers (express 5 forwards rejected promises).
 * Every error answers `application/problem+json` `{ type, title, status, detail, traceId, instance, errors? }`
 * with `type` = `https://nhsn-link.example/problems/<slug>`. The shared failure vocabulary
 * (services/shared-kernel: NotFoundError, InvalidInputError, ...) is mapped once, in domain-problems.ts,
 * so use cases just throw it. Unknown errors → 500 with a generic detail (logged with the trace id);
 * `UpstreamError` from the outbound client → 502.
 *
 * Helpers for the specification's REST rules: `parsePaging`/`pagedResult`/`sendPaged` (204 when empty),
 * `parseSort` (whitelist), `assertPutBody` (`Invalid Id format`) + `sendAccepted` (202), `sendCreated`
 * (201 + Location), `parseBody`/`parseQuery`/`parseParams` (zod → 400 with field errors),
 * `requireContentType` (415). 405 detection walks mounted `express.Router()`s, not mounted sub-apps.
 */
export { createHttpApp, type HttpApp, type HttpAppOptions } from './app.js';
export { problemOf } from './domain-problems.js';
export { HttpProblem, PROBLEM_CONTENT_TYPE, PROBLEM_TYPE_BASE, problemType, sendProblem, traceIdOf, writeProblem, type FieldError, type ProblemDetails } from './problem.js';
export { JSON_MEDIA_TYPES, RAW_MEDIA_TYPES, requestRecorder, type AnyMediaTypeRoute, type RequestRecord, type RouteBodyLimit } from './front.js';
export { runReadiness, type CheckResult, type ReadinessCheck } from './health.js';
export {
  DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE, PagingQueryFields, pagedResult, pageOfList, parsePaging, parseSort, sendPaged,
  type PageMetadata, type PagedResult, type Paging, type PagingOptions, type Sort, type SortOptions, type SortOrder,
} from './paging.js';
export { limitParamLengths, requireUuidParams } from './params.js';
export { integerQueryValue, singleQueryValue, type Query } from './query.js';
export { assertPutBody, isUuid, requireContentType, sendAccepted, sendCreated, type PutBodyOptions } from './rest.js';
export { DEPRECATION_HEADER, renamedRoutes, ROUTES_DEPRECATED_AT, type RenamedRoute } from './renamed-routes.js';
export { fieldPath, parseBody, parseParams, parseQuery, zodFieldErrors } from './validation.js';
export { BEARER_SCHEME, FieldErrorSchema, OpenApiBuilder, ProblemDetailsSchema, toOpenApiPath, type OpenApiInfo } from './openapi.js';
export { listen, type HttpServerHandle } from './server.js';
export { DOCS_TOKEN_STORAGE_KEY, swaggerUiHandlers, type SwaggerUiOptions } from './swagger-ui.js';
export { listenMetrics } from './metrics-server.js';
