import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from '../observability/logger.js';
import { currentContext } from '../observability/request-context.js';
import { childTraceContext, formatTraceparent, generateTraceContext } from '../observability/trace-context.js';
import { UpstreamError } from './upstream-error.js';

export interface HttpClientOptions {
  /** Base URL of the other service; request paths are appended to it. */
  readonly baseUrl: string;
  /** Per-attempt timeout; default 10 000 ms. */
  readonly timeoutMs?: number;
  /** Additional attempts after the first; default 2. */
  readonly retries?: number;
  /** First backoff delay; doubled per attempt, with jitter; default 200 ms. */
  readonly retryBaseDelayMs?: number;
  /** Upper bound of any single wait, including a server's Retry-After; default 10 000 ms. */
  readonly maxRetryDelayMs?: number;
  /** Also retry POST/PATCH (only when the receiver deduplicates). Default false. */
  readonly retryNonIdempotent?: boolean;
  /** Token used when no incoming request's Authorization header is there to pass on (jobs, consumers). */
  readonly serviceToken?: () => Promise<string | undefined>;
  readonly logger: Logger;
}

export interface RequestOptions {
  readonly headers?: Readonly<Record<string, string>>;
  readonly query?: Readonly<Record<string, string | number | boolean | undefined>>;
  /** Cancels the call (all attempts), e.g. on shutdown. */
  readonly signal?: AbortSignal;
}

export interface HttpResponse<T = unknown> {
  readonly status: number;
  readonly headers: Headers;
  /** Parsed JSON for JSON media types, text for text/*, a Buffer otherwise; undefined when empty. */
  readonly body: T;
}

export interface HttpClient {
  get<T = unknown>(path: string, options?: RequestOptions): Promise<HttpResponse<T>>;
  delete<T = unknown>(path: string, options?: RequestOptions): Promise<HttpResponse<T>>;
  post<T = unknown>(path: string, body?: unknown, options?: RequestOptions): Promise<HttpResponse<T>>;
  put<T = unknown>(path: string, body?: unknown, options?: RequestOptions): Promise<HttpResponse<T>>;
  request<T = unknown>(method: string, path: string, body?: unknown, options?: RequestOptions): Promise<HttpResponse<T>>;
}

const IDEMPOTENT = new Set(['GET', 'HEAD', 'PUT', 'DELETE', 'OPTIONS']);

function buildUrl(baseUrl: string, path: string, query: RequestOptions['query']): URL {
  const url = /^https?:\/\//i.test(path) ? new URL(path) : new URL(`${baseUrl.replace(/\/+$/, '')}/${path.replace(/^\/+/, '')}`);
  for (const [name, value] of Object.entries(query ?? {})) {
    if (value !== undefined) url.searchParams.append(name, String(value));
  }
  return url;
}

function encodeBody(body: unknown, headers: Headers): RequestInit['body'] {
  if (body === undefined) return undefined;
  if (typeof body === 'string' || body instanceof Uint8Array) return body as RequestInit['body'];
  if (!headers.has('content-type')) headers.set('content-type', 'application/json');
  return JSON.stringify(body);
}

async function decodeBody(response: Response): Promise<unknown> {
  const bytes = Buffer.from(await response.arrayBuffer());
  if (bytes.length === 0) return undefined;
  const type = response.headers.get('content-type')?.toLowerCase() ?? '';
  if (/[/+]json\b/.test(type)) {
    try {
      return JSON.parse(bytes.toString('utf8'));
    } catch {
      return bytes.toString('utf8');
    }
  }
  if (type.startsWith('text/')) return bytes.toString('utf8');
  return bytes;
}

/** Seconds form of Retry-After (or an HTTP date) in ms; undefined when absent or unusable. */
function retryAfterMs(header: string | null): number | undefined {
  if (!header) return undefined;
  if (/^\d+$/.test(header.trim())) return Number(header.trim()) * 1000;
  const date = Date.parse(header);
  return Number.isNaN(date) ? undefined : Math.max(0, date - Date.now());
}

const isRetryableStatus = (status: number): boolean => status === 429 || status >= 500;

/**
 * An HTTP client for calls to other services, on global fetch. Per call it:
 * - passes on the incoming request's Authorization header (specification: header propagation),
 *   else uses `serviceToken()`; an explicit `Authorization` in `options.headers` wins over both;
 * - sends `traceparent` with the current trace id and a new span id (a new trace outside requests);
 * - aborts each attempt after `timeoutMs`;
 * - retries network errors, timeouts, 429 (honouring Retry-After, capped) and 5xx with exponential
 *   backoff and jitter — for idempotent methods only unless `retryNonIdempotent`; never other 4xx.
 * Any non-retryable status (2xx-4xx) resolves; a retryable failure after the last attempt throws UpstreamError.
 */
export function createHttpClient(options: HttpClientOptions): HttpClient {
  const timeoutMs = options.timeoutMs ?? 10_000;
  const retries = options.retries ?? 2;
  const baseDelay = options.retryBaseDelayMs ?? 200;
  const maxDelay = options.maxRetryDelayMs ?? 10_000;
  const logger = options.logger;

  async function headersFor(extra: RequestOptions['headers']): Promise<Headers> {
    const headers = new Headers(extra);
    const context = currentContext();
    if (!headers.has('authorization')) {
      const authorization = context?.authorization ?? await bearer(options.serviceToken);
      if (authorization) headers.set('authorization', authorization);
    }
    if (!headers.has('traceparent')) {
      const trace = context ? childTraceContext({ traceId: context.traceId, flags: context.traceFlags }) : generateTraceContext();
      headers.set('traceparent', formatTraceparent(trace));
    }
    if (!headers.has('accept')) headers.set('accept', 'application/json, application/fhir+json;q=0.9, */*;q=0.1');
    return headers;
  }

  async function request<T>(method: string, path: string, body?: unknown, requestOptions: RequestOptions = {}): Promise<HttpResponse<T>> {
    const verb = method.toUpperCase();
    const url = buildUrl(options.baseUrl, path, requestOptions.query);
    const target = `${url.origin}${url.pathname}`;
    const headers = await headersFor(requestOptions.headers);
    const payload = encodeBody(body, headers);
    const maxAttempts = 1 + (IDEMPOTENT.has(verb) || options.retryNonIdempotent ? Math.max(0, retries) : 0);

    for (let attempt = 1; ; attempt++) {
      let failure: { status?: number; cause?: unknown; retryAfter?: number };
      try {
        const signal = requestOptions.signal
          ? AbortSignal.any([requestOptions.signal, AbortSignal.timeout(timeoutMs)])
          : AbortSignal.timeout(timeoutMs);
        const response = await fetch(url, { method: verb, headers, body: payload, signal });
        if (!isRetryableStatus(response.status)) {
          return { status: response.status, headers: response.headers, body: (await decodeBody(response)) as T };
        }
        await response.body?.cancel();
        failure = { status: response.status, retryAfter: response.status === 429 || response.status === 503 ? retryAfterMs(response.headers.get('retry-after')) : undefined };
      } catch (error) {
        if (requestOptions.signal?.aborted) throw error;
        failure = { cause: error };
      }

      const what = failure.status ? `answered ${failure.status}` : `failed: ${describe(failure.cause)}`;
      if (attempt >= maxAttempts) {
        throw new UpstreamError(`${verb} ${target} ${what} (attempt ${attempt} of ${maxAttempts})`, verb, target, failure.status, attempt, { cause: failure.cause });
      }
      const backoff = baseDelay * 2 ** (attempt - 1) * (0.5 + Math.random() / 2);
      const delay = Math.min(maxDelay, failure.retryAfter ?? backoff);
      logger.warn({ method: verb, url: target, status: failure.status, attempt, delayMs: Math.round(delay) }, `upstream call ${what}; retrying`);
      await sleep(delay, undefined, { signal: requestOptions.signal });
    }
  }

  return {
    request,
    get: (path, requestOptions) => request('GET', path, undefined, requestOptions),
    delete: (path, requestOptions) => request('DELETE', path, undefined, requestOptions),
    post: (path, body, requestOptions) => request('POST', path, body, requestOptions),
    put: (path, body, requestOptions) => request('PUT', path, body, requestOptions),
  };
}

async function bearer(serviceToken: HttpClientOptions['serviceToken']): Promise<string | undefined> {
  const token = await serviceToken?.();
  if (!token) return undefined;
  return /^bearer /i.test(token) ? token : `Bearer ${token}`;
}

function describe(cause: unknown): string {
  if (cause instanceof Error) {
    if (cause.name === 'TimeoutError') return 'timed out';
    // fetch wraps the socket error: "fetch failed" with cause ECONNREFUSED / ENOTFOUND / ...
    const inner = cause.cause as NodeJS.ErrnoException | undefined;
    const reason = inner?.code ?? inner?.message;
    return reason ? `${cause.message} (${reason})` : cause.message;
  }
  return String(cause);
}
