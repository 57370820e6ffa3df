import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import { TLSSocket } from 'node:tls';
import { Transform, type Readable, type TransformCallback } from 'node:stream';
import { Pool, type Dispatcher } from 'undici';
import { formatTraceparent, type TraceContext } from '#adapters/observability/trace-context.js';
import type { CheckedPath } from './gateway-path.js';
import { applyGatewayPaging, pagingMetadataOfJson } from './pagination.js';

/**
 * Streaming reverse proxy of the admin gateway.
 *
 * External route `/api/<component>/<rest>` goes to `<upstream of component>/api/<rest>`: the
 * component name is stripped (shared API conventions, Routes 1). Only a path that passed
 * gateway-path.ts is routed, as it was checked. Request and response bodies are streamed, so package
 * uploads are never buffered whole; the request body is counted on its way (`maxBodyBytes`: a larger
 * declared length is refused before the service is called, a chunked body that grows past it is cut
 * off), and the 413 goes out without reading the rest (the connection closes with it). Two kinds of
 * answers are read (up to a bound): a successful JSON answer to a GET, to copy its paging metadata
 * into `X-Pagination`, and a Problem Details answer, whose `instance` (and a `detail` naming the
 * service's path) becomes the path the client asked the gateway for.
 * The Authorization header is passed on unchanged (header propagation), and the request's trace
 * context as `traceparent` (the caller's, or the one the gateway started). A `Location` the service
 * answers with its own path is rewritten to the external one (`gatewayLocation`).
 *
 * Every request passes through here, so the work per request is kept to what it must do: the upstream
 * of each component is worked out once (no URL parsed per request), and both header sections are
 * handed on as one list of name/value pairs (no header-by-header setHeader, each with its own checks
 * and maps). The upstream side is an undici connection pool per component (undici: the Node.js
 * project's own HTTP client, the one behind fetch), dispatched with a handler rather than node's
 * http.request: no ClientRequest, IncomingMessage or Agent bookkeeping per request (a tenth of the
 * gateway's CPU per proxied request, a quarter of a bare proxy's: docs/performance.md).
 */
export interface ProxyOptions {
  /** Component name (as it appears in the external route) → base URL of the service. */
  upstreams: Record<string, string>;
  /** Time allowed for the upstream to start answering. */
  timeoutMs: number;
  /** Largest request body passed on (bytes); larger: 413. Default 50 MiB (the services' own largest, validate.body-limit and http.raw-limit). */
  maxBodyBytes?: number;
  /** Largest JSON body read to derive X-Pagination; larger bodies are streamed without the header. */
  maxInspectedBodyBytes?: number;
  /** Writes a Problem Details answer for the request (its trace id, and `instance`: the path the client asked for). */
  sendProblem: (res: ServerResponse, status: number, title: string, detail: string, traceId: string, instance: string) => void;
  onUpstreamError?: (component: string, error: Error, traceId: string) => void;
}

const HOP_BY_HOP = new Set([
  'connection', 'keep-alive', 'proxy-authenticate', 'proxy-authorization', 'te', 'trailer', 'transfer-encoding', 'upgrade', 'host',
]);

/**
 * Request headers not copied: hop-by-hop ones, `expect` (node's server has answered a 100-continue
 * already; the body follows as any other), and those the gateway writes itself (a caller's own would
 * be believed upstream). A chunked body is sent chunked again by the pool (no transfer-encoding to copy).
 */
const NOT_COPIED = new Set([...HOP_BY_HOP, 'expect', 'x-forwarded-host', 'x-forwarded-proto', 'x-forwarded-for', 'x-forwarded-prefix', 'traceparent']);

/** A component's service, as the requests to it need it (worked out once, from its base URL). */
export interface Upstream {
  readonly component: string;
  /** The base URL as configured (upstreams[component]). */
  readonly base: string;
  /** Scheme, host and port: what the component's connection pool connects to. */
  readonly origin: string;
  /** The Host header: host and a port other than the scheme's. */
  readonly host: string;
  /** The base URL's path without a trailing slash ('' at the root). */
  readonly basePath: string;
}

export interface ProxyTarget {
  readonly component: string;
  /** The path the client asked the gateway for (checked: gateway-path.ts), without the query. */
  readonly externalPath: string;
  readonly upstream: Upstream;
  /** The service's path: `<base path>/api<rest>`. */
  readonly pathname: string;
  /** The query as sent (`?…`), or ''. */
  readonly search: string;
}

export interface Proxy {
  /** The target of a checked request path, or undefined when no component of that name is behind the gateway. */
  route(checked: Extract<CheckedPath, { ok: true }>): ProxyTarget | undefined;
  /** Passes the request on to its target and the answer back; `trace` is the request's trace context. */
  forward(req: IncomingMessage, res: ServerResponse, target: ProxyTarget, trace: TraceContext): void;
}

/** `/api/<component>` and the rest (from its "/"); linear: the two parts are split by the first "/" after the component. */
const API_ROUTE = /^\/api\/([^/]+)(\/.*)?$/i;

/**
 * Characters the URL setters leave as they are in a path and a query (unreserved, sub-delimiters
 * except `'`, `:@/%?`). A target made of them is passed on as text; any other goes through URL as it
 * always did, so the service gets the same bytes either way.
 */
const PLAIN_TARGET = /^[\w\-.~!$&()*+,;=:@/%?]*$/;

function upstreamOf(component: string, base: string): Upstream {
  const url = new URL(base);
  return { component, base, origin: url.origin, host: url.host, basePath: url.pathname.replace(/\/$/, '') };
}

/** The target of a checked path among `upstreams` (a map: no prototype name is a component), or undefined. */
function targetIn(upstreams: ReadonlyMap<string, Upstream>, checked: { readonly path: string; readonly search: string }): ProxyTarget | undefined {
  const match = API_ROUTE.exec(checked.path);
  const component = match?.[1]?.toLowerCase();
  const upstream = component === undefined ? undefined : upstreams.get(component);
  if (!match || component === undefined || !upstream) return undefined;
  const rest = match[2] ?? '';
  if (PLAIN_TARGET.test(rest) && PLAIN_TARGET.test(checked.search)) {
    // What URL would make of it: an empty query ('?') is no query.
    return { component, externalPath: checked.path, upstream, pathname: `${upstream.basePath}/api${rest}`, search: checked.search === '?' ? '' : checked.search };
  }
  const url = new URL(upstream.base);
  // No dot segment or encoded separator is left (checked), so the URL keeps the path as it is.
  url.pathname = `${upstream.basePath}/api${rest}`;
  url.search = checked.search;
  return { component, externalPath: checked.path, upstream, pathname: url.pathname, search: url.search };
}

/**
 * The upstream's `Location` as the client must follow it through the gateway. A service answers with
 * its own path (`/api/job/{id}`), which the gateway does not route; it becomes
 * `/api/<component>/job/{id}`. An absolute URL on the upstream's own origin (an internal address the
 * client cannot reach) becomes that gateway path too, and so does a path under the upstream base's
 * own path prefix (`/prefix/api/job/{id}` when the upstream is `http://host/prefix`). Left alone: paths outside `/api/`, paths already under
 * `/api/<component>/`, relative references (they resolve against the external URL already) and URLs
 * of other hosts.
 */
export function gatewayLocation(location: string, component: string, upstreamBase: string): string {
  let path = location;
  if (/^[a-z][a-z0-9+.-]*:/i.test(location) || location.startsWith('//')) {
    let url: URL;
    try {
      url = new URL(location, upstreamBase);
    } catch {
      return location;
    }
    if (url.origin !== new URL(upstreamBase).origin) return location;
    path = `${url.pathname}${url.search}${url.hash}`;
  }
  // An upstream reached under a path prefix (upstream base http://host/prefix) may answer with the
  // prefix in its paths: `/prefix/api/job/1` is the same resource as `/api/job/1`.
  const basePath = new URL(upstreamBase).pathname.replace(/\/+$/, '');
  if (basePath && path.startsWith(`${basePath}/api/`)) path = path.slice(basePath.length);
  if (!path.startsWith('/api/') || path.toLowerCase().startsWith(`/api/${component}/`)) return location;
  return `/api/${component}${path.slice('/api'.length)}`;
}

/**
 * A Problem Details body with `instance` set to the path the client requested from the gateway; a
 * `detail` that names the service's own path (`No resource at GET /api/nothing`) names the gateway's
 * path too, so the two never disagree.
 */
export function withGatewayInstance(body: unknown, externalPath: string, upstreamPath?: string): unknown {
  if (!body || typeof body !== 'object' || Array.isArray(body)) return body;
  const given = 'detail' in body ? body.detail : undefined;
  const detail = typeof given === 'string' && upstreamPath && upstreamPath !== externalPath
    ? replaceWholePath(given, upstreamPath, externalPath)
    : given;
  return { ...body, ...(detail === undefined ? {} : { detail }), instance: externalPath };
}

/** `text` with each whole occurrence of `path` (not followed by more path characters) replaced; one pass. */
function replaceWholePath(text: string, path: string, replacement: string): string {
  let out = '';
  let from = 0;
  for (let at = text.indexOf(path); at !== -1; at = text.indexOf(path, at + path.length)) {
    const following = text[at + path.length];
    if (following !== undefined && /[\w/.~%$-]/.test(following)) continue; // a longer path that starts alike
    out += text.slice(from, at) + replacement;
    from = at + path.length;
  }
  return out + text.slice(from);
}

/** Whether the request carries a body (a length above 0, or chunks). */
export function hasRequestBody(req: IncomingMessage): boolean {
  const length = req.headers['content-length'];
  return req.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
}

/**
 * Counts the request body on its way to the service and fails past `limit` bytes, so a chunked
 * upload is bounded without being held.
 */
class BodyLimit extends Transform {
  private seen = 0;

  constructor(private readonly limit: number) {
    super();
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
    this.seen += chunk.length;
    if (this.seen > this.limit) callback(Object.assign(new Error('request body too large'), { code: 'EBODYLIMIT' }));
    else callback(null, chunk);
  }
}

/** The client's address list for `X-Forwarded-For`: what it was given, and the address the request came from. */
function forwardedFor(given: string | string[] | undefined, remote: string | undefined): string {
  const before = Array.isArray(given) ? given.join(',') : given;
  return before && remote ? `${before}, ${remote}` : before || remote || '';
}

/** The headers the service gets: the client's (hop-by-hop ones stripped), Host, X-Forwarded-*, traceparent. */
function upstreamHeaders(req: IncomingMessage, target: ProxyTarget, trace: TraceContext): string[] {
  const given = req.headers;
  const headers = ['host', target.upstream.host];
  for (const name of Object.keys(given)) {
    const value = given[name];
    if (NOT_COPIED.has(name) || value === undefined) continue;
    if (typeof value === 'string') headers.push(name, value);
    else for (const each of value) headers.push(name, each);
  }
  headers.push(
    'x-forwarded-host', given.host ?? '',
    'x-forwarded-proto', req.socket instanceof TLSSocket ? 'https' : 'http',
    'x-forwarded-for', forwardedFor(given['x-forwarded-for'], req.socket.remoteAddress),
    'x-forwarded-prefix', `/api/${target.component}`,
    'traceparent', formatTraceparent(trace),
  );
  return headers;
}

/** The upstream's answer headers as the client gets them, and what the proxy needs to know of them. */
interface AnswerHeads {
  /** Name/value pairs without hop-by-hop headers and without Content-Length (the caller adds the one that holds). */
  readonly headers: string[];
  readonly contentType: string;
  /** The upstream's Content-Length, or undefined. */
  readonly length: string | undefined;
  /** Index of the upstream's X-Pagination value in `headers`, or -1. */
  readonly pagination: number;
}

function answerHeads(given: IncomingHttpHeaders, target: ProxyTarget, traceId: string): AnswerHeads {
  const headers: string[] = [];
  let contentType = '';
  let length: string | undefined;
  let pagination = -1;
  let traced = false;
  // undici gives the names lower-cased and a repeated header (set-cookie) as a list
  for (const name of Object.keys(given)) {
    const listed = given[name];
    if (listed === undefined || HOP_BY_HOP.has(name)) continue;
    if (name === 'content-length') {
      length = Array.isArray(listed) ? listed[0] : listed;
      continue;
    }
    for (let value of Array.isArray(listed) ? listed : [listed]) {
      if (name === 'content-type') contentType = value;
      else if (name === 'location') value = gatewayLocation(value, target.component, target.upstream.base);
      else if (name === 'x-pagination') pagination = headers.length + 1;
      else if (name === 'x-trace-id') traced = true;
      headers.push(name, value);
    }
  }
  // The service's trace id when it answers one (the same trace: it got the gateway's traceparent), else the gateway's.
  if (!traced) headers.push('x-trace-id', traceId);
  return { headers, contentType, length, pagination };
}

/** An error of the upstream exchange as the client is told it: unreachable (503), too slow or anything else (502). */
function upstreamProblem(error: NodeJS.ErrnoException, component: string): [number, string, string] {
  const code = error.code ?? '';
  if (code === 'ECONNREFUSED' || code === 'ENOTFOUND' || code === 'EHOSTUNREACH' || code === 'EAI_AGAIN') return [503, 'Service Unavailable', `The ${component} service is not reachable.`];
  if (code === 'ETIMEDOUT' || code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT' || code === 'UND_ERR_CONNECT_TIMEOUT') {
    return [502, 'Bad Gateway', `The ${component} service did not answer in time.`];
  }
  return [502, 'Bad Gateway', `The ${component} service gave no valid response.`];
}

export function createProxy(options: ProxyOptions): Proxy {
  const maxInspected = options.maxInspectedBodyBytes ?? 5 * 1024 * 1024;
  const upstreams = new Map(Object.entries(options.upstreams).map(([component, base]) => [component, upstreamOf(component, base)]));
  // Upstream connections are reused: a new TCP connection per request would cost more than the
  // proxying. One pool per component, up to 256 connections, no pipelining (a slow answer must not
  // hold up the next request on its connection). `timeoutMs` bounds the connect, the wait for the
  // answer's head and each pause in its body, as the socket timeout of node's client did.
  const pools = new Map([...upstreams.values()].map((upstream) => [upstream.component, new Pool(upstream.origin, {
    connections: 256, pipelining: 1, headersTimeout: options.timeoutMs, bodyTimeout: options.timeoutMs, connect: { timeout: options.timeoutMs },
  })]));

  const maxBody = options.maxBodyBytes ?? 50 * 1024 * 1024;
  // Node closes the connection after an answer sent before the request's body was read (it sends
  // Connection: close itself), so the rest of a refused body is never read.
  const tooLarge = (req: IncomingMessage, res: ServerResponse, target: ProxyTarget, trace: TraceContext) => {
    req.unpipe();
    options.sendProblem(res, 413, 'Content Too Large', `The request body exceeds the limit of ${String(maxBody)} bytes.`, trace.traceId, target.externalPath);
  };

  function forward(req: IncomingMessage, res: ServerResponse, target: ProxyTarget, trace: TraceContext): void {
    const declaredLength = Number(req.headers['content-length'] ?? '0');
    if (declaredLength > maxBody) {
      tooLarge(req, res, target, trace);
      return;
    }
    const isGet = req.method === 'GET';
    let search = target.search;
    if (isGet && search !== '') {
      // The conventions' gateway paging pattern (pagination.ts).
      const query = new URLSearchParams(search);
      if (applyGatewayPaging(target.component, target.pathname, query)) search = `?${query.toString()}`;
    }

    const { upstream } = target;
    const pool = pools.get(upstream.component);
    if (!pool) throw new Error(`No connection pool for the ${upstream.component} service`);
    let answered = false;
    let limitExceeded = false;
    let controller: Dispatcher.DispatchController | undefined;
    let clientGone = false;
    const stop = (reason: Error) => {
      if (controller && !controller.aborted) controller.abort(reason);
    };
    const failed = (error: NodeJS.ErrnoException) => {
      if (limitExceeded) return;
      options.onUpstreamError?.(target.component, error, trace.traceId);
      if (answered || res.headersSent || clientGone) {
        res.destroy();
        return;
      }
      const [status, title, detail] = upstreamProblem(error, target.component);
      options.sendProblem(res, status, title, detail, trace.traceId, target.externalPath);
    };

    // The answer: streamed as it comes, except a Problem Details answer and a paged JSON answer to a
    // GET, read (up to a bound) to rewrite `instance` / to copy the paging metadata into X-Pagination.
    let status = 502;
    let heads: AnswerHeads | undefined;
    let inspect = false;
    let chunks: Buffer[] = [];
    let size = 0;
    const streamChunk = (chunk: Buffer) => {
      if (!res.write(chunk) && controller && !controller.paused) {
        const paused = controller;
        paused.pause();
        res.once('drain', () => {
          paused.resume();
        });
      }
    };
    const handler: Dispatcher.DispatchHandler = {
      onRequestStart(started) {
        controller = started;
        if (clientGone) started.abort(new Error('the client went away'));
      },
      onResponseStart(_controller, statusCode, headers) {
        answered = true;
        status = statusCode;
        heads = answerHeads(headers, target, trace.traceId);
        // A Problem Details answer names the service's path in `instance`; the client asked for the gateway's.
        const problem = status >= 400 && heads.contentType.includes('application/problem+json');
        const paged = isGet && status === 200 && heads.contentType.includes('json');
        const declared = Number(heads.length ?? '0');
        inspect = (problem || paged) && !(declared && declared > maxInspected);
        if (!inspect) {
          if (heads.length !== undefined) heads.headers.push('content-length', heads.length);
          res.writeHead(status, heads.headers);
        }
      },
      onResponseData(_controller, chunk) {
        if (!inspect) {
          streamChunk(chunk);
          return;
        }
        size += chunk.length;
        chunks.push(chunk);
        if (size > maxInspected && heads) {
          // Too large to inspect: stream what we have and the rest.
          inspect = false;
          if (heads.length !== undefined) heads.headers.push('content-length', heads.length);
          res.writeHead(status, heads.headers);
          for (const held of chunks) streamChunk(held);
          chunks = [];
        }
      },
      onResponseEnd() {
        if (!inspect || !heads) {
          res.end();
          return;
        }
        const body = chunks.length === 1 && chunks[0] ? chunks[0] : Buffer.concat(chunks);
        let answer = body;
        if (status >= 400) {
          try {
            answer = Buffer.from(JSON.stringify(withGatewayInstance(JSON.parse(body.toString('utf8')), target.externalPath, target.pathname)), 'utf8');
          } catch {
            // Not JSON after all: pass it on unchanged.
          }
        } else {
          const metadata = pagingMetadataOfJson(body);
          if (metadata && heads.pagination >= 0) heads.headers[heads.pagination] = JSON.stringify(metadata);
          else if (metadata) heads.headers.push('x-pagination', JSON.stringify(metadata));
        }
        heads.headers.push('content-length', String(answer.length));
        res.writeHead(status, heads.headers);
        res.end(answer);
      },
      onResponseError(_controller, error) {
        failed(error);
      },
    };

    // A client that goes away mid-upload or mid-answer aborts the upstream exchange too.
    res.on('close', () => {
      if (res.writableFinished) return;
      clientGone = true;
      stop(new Error('the client went away'));
    });
    let body: Readable | null = null;
    if (hasRequestBody(req)) {
      // A declared length is held to by node's parser; the counter bounds a chunked body.
      if (req.headers['transfer-encoding'] === undefined) {
        body = req;
      } else {
        const counter = new BodyLimit(maxBody);
        counter.on('error', () => {
          limitExceeded = true;
          stop(new Error('request body too large'));
          if (answered || res.headersSent) res.destroy();
          else tooLarge(req, res, target, trace);
        });
        body = req.pipe(counter);
      }
    }
    try {
      pool.dispatch({
        path: target.pathname + search,
        // node's parser accepts only methods it knows; undici checks the token again
        method: req.method ?? 'GET',
        headers: upstreamHeaders(req, target, trace),
        body,
      }, handler);
    } catch (error) {
      // refused before anything was sent (a method or header the client library will not send)
      failed(error instanceof Error ? error : new Error(String(error)));
    }
  }

  return {
    route: (checked) => targetIn(upstreams, checked),
    forward,
  };
}
