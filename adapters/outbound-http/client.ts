import http from 'node:http';
import https from 'node:https';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from '../observability/logger.js';
import { currentContext } from '../observability/request-context.js';
import { childTraceContext, formatTraceparent, generateTraceContext } from '../observability/trace-context.js';
import type { AuthorizationSource } from './credential-types.js';
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
  /** Largest answer body accepted; a larger one fails the call without retry. Default 64 MiB. */
  readonly maxResponseBytes?: number;
  /**
   * Pass the incoming request's Authorization header on (specification: header propagation). Only for
   * platform services (the report service, the platform terminology service): a caller's token must
   * never reach a system that is not ours. Default false.
   */
  readonly propagateCallerAuthorization?: boolean;
  /** This service's own credentials, sent when no caller's header is passed on (jobs, consumers, external systems). */
  readonly credentials?: AuthorizationSource;
  readonly logger: Logger;
}

export interface RequestOptions {
  readonly headers?: Readonly<Record<string, string>>;
  readonly query?: Readonly<Record<string, string | number | boolean | undefined>>;
  /** Cancels the call (all attempts), e.g. on shutdown. */
  readonly signal?: AbortSignal;
  /**
   * The answer's body as received (a Buffer, empty when there is none), whatever its media type:
   * for a caller that reads it elsewhere (the validation flow hands a submission's bytes to a worker).
   */
  readonly rawBody?: boolean;
}

export interface HttpResponse<T = unknown> {
  readonly status: number;
  readonly headers: Headers;
  /** Parsed JSON for JSON media types, text for text/*, a Buffer otherwise; undefined when empty (with `rawBody`: always the Buffer). */
  readonly body: T;
}

export interface HttpClient {
  get<T = unknown>(path: string, options?: RequestOptions): Promise<HttpResponse<T>>;
  delete<T = unknown>(path: string, options?: RequestOptions): Promise<HttpResponse<T>>;
  post<T = unknown>(path: string, body?: unknown, options?: RequestOptions): Promise<HttpResponse<T>>;
  put<T = unknown>(path: string, body?: unknown, options?: RequestOptions): Promise<HttpResponse<T>>;
  request<T = unknown>(method: string, path: string, body?: unknown, options?: RequestOptions): Promise<HttpResponse<T>>;
}

const DEFAULT_MAX_RESPONSE_BYTES = 64 * 1024 * 1024;

const IDEMPOTENT = new Set(['GET', 'HEAD', 'PUT', 'DELETE', 'OPTIONS']);

function buildUrl(baseUrl: string, path: string, query: RequestOptions['query']): URL {
  const url = /^https?:\/\//i.test(path) ? new URL(path) : new URL(`${baseUrl.replace(/\/+$/, '')}/${path.replace(/^\/+/, '')}`);
  for (const [name, value] of Object.entries(query ?? {})) {
    if (value !== undefined) url.searchParams.append(name, String(value));
  }
  return url;
}

type RequestBody = string | Uint8Array | undefined;

function encodeBody(body: unknown, headers: Headers): RequestBody {
  if (body === undefined) return undefined;
  if (typeof body === 'string' || body instanceof Uint8Array) return body;
  if (!headers.has('content-type')) headers.set('content-type', 'application/json');
  return JSON.stringify(body);
}

function decodeBody(bytes: Buffer, contentType: string | null): unknown {
  if (bytes.length === 0) return undefined;
  const type = contentType?.toLowerCase() ?? '';
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

/** The answer was larger than `maxResponseBytes`: not retried (the next answer would be as large). */
class ResponseTooLargeError extends Error {
  override readonly name = 'ResponseTooLargeError';
}

interface RawResponse {
  readonly status: number;
  readonly headers: Headers;
  /** Reads the whole body (refused beyond the size limit). */
  readonly read: () => Promise<Buffer>;
  /** Discards the body (the connection goes back to the pool). */
  readonly discard: () => void;
}

/**
 * One HTTP exchange on node:http(s) with a keep-alive agent. Not global fetch: undici's fetch costs
 * about 1 ms of CPU per 80 KB answer in web streams and header objects (bench:flow profile), twice
 * what the whole exchange costs here. The signal aborts the request and the body; its reason (e.g. the
 * TimeoutError of AbortSignal.timeout) is what the call rejects with.
 */
function exchange(url: URL, method: string, headers: Headers, body: RequestBody, signal: AbortSignal, agents: Agents, maxResponseBytes: number): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const outgoing: Record<string, string> = {};
    headers.forEach((value, name) => { outgoing[name] = value; });
    if (body !== undefined) outgoing['content-length'] = String(Buffer.byteLength(body));
    const secure = url.protocol === 'https:';
    const failed = (error: Error) => reject(signal.aborted ? signal.reason : error);
    const req = (secure ? https : http).request(url, { method, headers: outgoing, agent: secure ? agents.https : agents.http, signal }, (res) => {
      const answerHeaders = new Headers();
      for (const [name, value] of Object.entries(res.headers)) {
        if (Array.isArray(value)) for (const v of value) answerHeaders.append(name, v);
        else if (value !== undefined) answerHeaders.set(name, value);
      }
      resolve({
        status: res.statusCode ?? 0,
        headers: answerHeaders,
        discard: () => { res.resume(); },
        read: () => new Promise<Buffer>((done, fail) => {
          const declared = Number(res.headers['content-length']);
          if (declared > maxResponseBytes) {
            res.destroy();
            return fail(new ResponseTooLargeError(`answer of ${declared} bytes exceeds the limit of ${maxResponseBytes} bytes`));
          }
          const chunks: Buffer[] = [];
          let size = 0;
          res.on('data', (chunk: Buffer) => {
            size += chunk.length;
            if (size > maxResponseBytes) {
              res.destroy();
              fail(new ResponseTooLargeError(`answer exceeds the limit of ${maxResponseBytes} bytes`));
              return;
            }
            chunks.push(chunk);
          });
          res.once('end', () => {
            const [only] = chunks;
            done(chunks.length === 1 && only ? only : Buffer.concat(chunks, size));
          });
          res.once('error', (error) => fail(signal.aborted ? signal.reason : error));
          res.once('close', () => { if (!res.complete) fail(signal.aborted ? signal.reason : new Error('the connection closed before the answer was complete')); });
        }),
      });
    });
    req.once('error', failed);
    req.end(body);
  });
}

interface Agents {
  readonly http: http.Agent;
  readonly https: https.Agent;
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
 * An HTTP client for calls to other services, on node:http(s) with kept-alive connections. Per call it:
 * - sends, in this order of precedence: an explicit `Authorization` in `options.headers`; the incoming
 *   request's Authorization header, only with `propagateCallerAuthorization` (platform services);
 *   else `credentials` (this service's own). A 401 to a renewable credential (an OAuth2 token) drops it
 *   and the call is made once more with a new one;
 * - sends `traceparent` with the current trace id and a new span id (a new trace outside requests);
 * - aborts each attempt after `timeoutMs`, and refuses an answer larger than `maxResponseBytes`;
 * - retries network errors, timeouts, 429 (honouring Retry-After, capped) and 5xx with exponential
 *   backoff and jitter — for idempotent methods only unless `retryNonIdempotent`; never other 4xx.
 * Any non-retryable status (2xx-4xx) resolves; a retryable failure after the last attempt throws UpstreamError.
 */
export function createHttpClient(options: HttpClientOptions): HttpClient {
  const timeoutMs = options.timeoutMs ?? 10_000;
  const retries = options.retries ?? 2;
  const baseDelay = options.retryBaseDelayMs ?? 200;
  const maxDelay = options.maxRetryDelayMs ?? 10_000;
  const maxResponseBytes = options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES;
  const logger = options.logger;
  // One pool of kept-alive connections per client (per upstream): no TCP handshake per call.
  const agents: Agents = { http: new http.Agent({ keepAlive: true }), https: new https.Agent({ keepAlive: true }) };

  /** The headers of a call, and the Authorization value when it came from `credentials` (may be renewed on 401). */
  async function headersFor(extra: RequestOptions['headers']): Promise<{ headers: Headers; ownCredential?: string }> {
    const headers = new Headers(extra);
    const context = currentContext();
    let ownCredential: string | undefined;
    if (!headers.has('authorization')) {
      const caller = options.propagateCallerAuthorization ? context?.authorization : undefined;
      if (caller) headers.set('authorization', caller);
      else {
        ownCredential = await options.credentials?.header();
        if (ownCredential) headers.set('authorization', ownCredential);
      }
    }
    if (!headers.has('traceparent')) {
      const trace = context ? childTraceContext({ traceId: context.traceId, flags: context.traceFlags }) : generateTraceContext();
      headers.set('traceparent', formatTraceparent(trace));
    }
    if (!headers.has('accept')) headers.set('accept', 'application/json, application/fhir+json;q=0.9, */*;q=0.1');
    return { headers, ownCredential };
  }

  async function request<T>(method: string, path: string, body?: unknown, requestOptions: RequestOptions = {}): Promise<HttpResponse<T>> {
    const verb = method.toUpperCase();
    const url = buildUrl(options.baseUrl, path, requestOptions.query);
    const target = `${url.origin}${url.pathname}`;
    const { headers, ownCredential: first } = await headersFor(requestOptions.headers);
    let ownCredential = first;
    const payload = encodeBody(body, headers);
    const maxAttempts = 1 + (IDEMPOTENT.has(verb) || options.retryNonIdempotent ? Math.max(0, retries) : 0);
    let renewed = false;

    for (let attempt = 1; ; attempt++) {
      let failure: { status?: number; cause?: unknown; retryAfter?: number };
      try {
        const signal = requestOptions.signal
          ? AbortSignal.any([requestOptions.signal, AbortSignal.timeout(timeoutMs)])
          : AbortSignal.timeout(timeoutMs);
        const response = await exchange(url, verb, headers, payload, signal, agents, maxResponseBytes);
        if (response.status === 401 && ownCredential && !renewed && options.credentials?.rejected?.(ownCredential)) {
          // Our token expired or was revoked early: one more try with a new one (not an attempt of the retry budget).
          response.discard();
          renewed = true;
          attempt--;
          ownCredential = await options.credentials.header();
          if (ownCredential) headers.set('authorization', ownCredential);
          else headers.delete('authorization');
          continue;
        }
        if (!isRetryableStatus(response.status)) {
          const bytes = await response.read();
          return { status: response.status, headers: response.headers, body: (requestOptions.rawBody ? bytes : decodeBody(bytes, response.headers.get('content-type'))) as T };
        }
        response.discard();
        failure = { status: response.status, retryAfter: response.status === 429 || response.status === 503 ? retryAfterMs(response.headers.get('retry-after')) : undefined };
      } catch (error) {
        if (requestOptions.signal?.aborted) throw error;
        if (error instanceof ResponseTooLargeError) {
          throw new UpstreamError(`${verb} ${target} answered too much: ${error.message}`, verb, target, undefined, attempt, { cause: error });
        }
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

function describe(cause: unknown): string {
  if (cause instanceof Error) {
    if (cause.name === 'TimeoutError') return 'timed out';
    // node:http reports socket errors with their code (ECONNREFUSED, ENOTFOUND, ECONNRESET...).
    const code = 'code' in cause && typeof cause.code === 'string' ? cause.code : undefined;
    return code && !cause.message.includes(code) ? `${cause.message} (${code})` : cause.message;
  }
  return String(cause);
}
