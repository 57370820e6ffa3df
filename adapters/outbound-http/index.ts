/**
 * Outbound HTTP to other services and external systems (report service, terminology server...).
 *
 * `createHttpClient({ baseUrl, timeoutMs, retries, retryBaseDelayMs, propagateCallerAuthorization, credentials, logger })`
 * gives `get/post/put/delete` resolving `{ status, headers, body }` on node:http(s) with kept-alive
 * connections. Inside a request served by the standard HTTP app it forwards the caller's Authorization
 * header only when told to (`propagateCallerAuthorization`: platform services on the explicit list),
 * else sends the client's own `credentials` (none, Basic, a bearer token, an OAuth2 client-credentials
 * token: `authorizationSource`); always the trace id in `traceparent`. It times out each attempt and
 * retries transient failures of idempotent calls. Non-retryable statuses (including 4xx) resolve so
 * callers can branch on 404; transient failures that outlast the retries reject with `UpstreamError`
 * (the HTTP app answers 502).
 */
export { createHttpClient, type HttpClient, type HttpClientOptions, type HttpResponse, type RequestOptions } from './client.js';
export { authorizationSource, describeCredentials, staticBearer, type AuthorizationSourceOptions } from './credentials.js';
export type { AuthorizationSource, OutboundCredentials } from './credential-types.js';
export { UpstreamError } from './upstream-error.js';
