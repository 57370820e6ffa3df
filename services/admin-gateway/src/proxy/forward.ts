import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import https from 'node:https';
import { TLSSocket } from 'node:tls';
import { Transform, type TransformCallback } from 'node:stream';
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
 * handed to node as one list of name/value pairs, which node writes as they are (no header-by-header
 * setHeader, each with its own checks and maps).
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

/** Request headers not copied: hop-by-hop ones, and those the gateway writes itself (a caller's own would be believed upstream). */
const NOT_COPIED = new Set([...HOP_BY_HOP, 'x-forwarded-host', 'x-forwarded-proto', 'x-forwarded-for', 'x-forwarded-prefix', 'traceparent']);

/** A component's service, as the requests to it need it (worked out once, from its base URL). */
export interface Upstream {
  readonly component: string;
  /** The base URL as configured (upstreams[component]). */
  readonly base: string;
  readonly origin: string;
  readonly secure: boolean;
  /** For the socket: an IPv6 address without its brackets. */
  readonly hostname: string;
  readonly port: number;
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
  const secure = url.protocol === 'https:';
  return {
    component,
    base,
    origin: url.origin,
    secure,
    hostname: url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname,
    port: url.port === '' ? (secure ? 443 : 80) : Number(url.port),
    host: url.host,
    basePath: url.pathname.replace(/\/$/, ''),
  };
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
  // A chunked body stays chunked (node's parser has checked the framing).
  const encoding = given['transfer-encoding'];
  if (encoding !== undefined) headers.push('transfer-encoding', encoding);
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

function answerHeads(rawHeaders: readonly string[], target: ProxyTarget, traceId: string): AnswerHeads {
  const headers: string[] = [];
  let contentType = '';
  let length: string | undefined;
  let pagination = -1;
  let traced = false;
  for (let i = 0; i + 1 < rawHeaders.length; i += 2) {
    const name = rawHeaders[i] ?? '';
    let value = rawHeaders[i + 1] ?? '';
    const lower = name.toLowerCase();
    if (HOP_BY_HOP.has(lower)) continue;
    if (lower === 'content-length') {
      length = value;
      continue;
    }
    if (lower === 'content-type') contentType = value;
    else if (lower === 'location') value = gatewayLocation(value, target.component, target.upstream.base);
    else if (lower === 'x-pagination') pagination = headers.length + 1;
    else if (lower === 'x-trace-id') traced = true;
    headers.push(name, value);
  }
  // The service's trace id when it answers one (the same trace: it got the gateway's traceparent), else the gateway's.
  if (!traced) headers.push('x-trace-id', traceId);
  return { headers, contentType, length, pagination };
}

export function createProxy(options: ProxyOptions): Proxy {
  const maxInspected = options.maxInspectedBodyBytes ?? 5 * 1024 * 1024;
  // Upstream connections are reused: a new TCP connection per request would cost more than the proxying.
  const agents = { http: new http.Agent({ keepAlive: true, maxSockets: 256 }), https: new https.Agent({ keepAlive: true, maxSockets: 256 }) };
  const upstreams = new Map(Object.entries(options.upstreams).map(([component, base]) => [component, upstreamOf(component, base)]));

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
    let answered = false;
    const upstreamReq = (upstream.secure ? https : http).request({
      hostname: upstream.hostname,
      port: upstream.port,
      path: target.pathname + search,
      method: req.method,
      headers: upstreamHeaders(req, target, trace),
      timeout: options.timeoutMs,
      agent: upstream.secure ? agents.https : agents.http,
    }, (upstreamRes) => {
      answered = true;
      const status = upstreamRes.statusCode ?? 502;
      const { headers, contentType, length, pagination } = answerHeads(upstreamRes.rawHeaders, target, trace.traceId);
      // A Problem Details answer names the service's path in `instance`; the client asked for the gateway's.
      const problem = status >= 400 && contentType.includes('application/problem+json');
      const paged = isGet && status === 200 && contentType.includes('json');
      const declared = Number(length ?? '0');
      if (!(problem || paged) || (declared && declared > maxInspected)) {
        if (length !== undefined) headers.push('content-length', length);
        res.writeHead(status, headers);
        upstreamRes.pipe(res);
        return;
      }
      const chunks: Buffer[] = [];
      let size = 0;
      let streaming = false;
      upstreamRes.on('data', (chunk: Buffer) => {
        if (streaming) return;
        size += chunk.length;
        chunks.push(chunk);
        if (size > maxInspected) {
          // Too large to inspect: fall back to streaming what we have and the rest.
          streaming = true;
          res.writeHead(status, headers);
          for (const c of chunks) res.write(c);
          upstreamRes.pipe(res);
        }
      });
      upstreamRes.on('end', () => {
        if (streaming) return;
        const body = chunks.length === 1 && chunks[0] ? chunks[0] : Buffer.concat(chunks);
        let answer = body;
        if (problem) {
          try {
            answer = Buffer.from(JSON.stringify(withGatewayInstance(JSON.parse(body.toString('utf8')), target.externalPath, target.pathname)), 'utf8');
          } catch {
            // Not JSON after all: pass it on unchanged.
          }
        } else {
          const metadata = pagingMetadataOfJson(body);
          if (metadata && pagination >= 0) headers[pagination] = JSON.stringify(metadata);
          else if (metadata) headers.push('x-pagination', JSON.stringify(metadata));
        }
        headers.push('content-length', String(answer.length));
        res.writeHead(status, headers);
        res.end(answer);
      });
      upstreamRes.on('error', () => res.destroy());
    });

    upstreamReq.on('timeout', () => upstreamReq.destroy(Object.assign(new Error('upstream timeout'), { code: 'ETIMEDOUT' })));
    let limitExceeded = false;
    upstreamReq.on('error', (error: NodeJS.ErrnoException) => {
      if (limitExceeded) return;
      options.onUpstreamError?.(target.component, error, trace.traceId);
      if (answered || res.headersSent) {
        res.destroy();
        return;
      }
      const unreachable = error.code === 'ECONNREFUSED' || error.code === 'ENOTFOUND' || error.code === 'EHOSTUNREACH';
      const [status, title, detail] = unreachable ? [503, 'Service Unavailable', `The ${target.component} service is not reachable.`]
        : error.code === 'ETIMEDOUT' ? [502, 'Bad Gateway', `The ${target.component} service did not answer in time.`]
          : [502, 'Bad Gateway', `The ${target.component} service gave no valid response.`];
      options.sendProblem(res, status, title, detail, trace.traceId, target.externalPath);
    });
    // A client that goes away mid-upload aborts the upstream request too.
    req.on('aborted', () => upstreamReq.destroy());
    if (!hasRequestBody(req)) {
      upstreamReq.end();
      return;
    }
    // A declared length is held to by node's parser; the counter bounds a chunked body.
    if (req.headers['transfer-encoding'] === undefined) {
      req.pipe(upstreamReq);
      return;
    }
    const counter = new BodyLimit(maxBody);
    counter.on('error', () => {
      limitExceeded = true;
      upstreamReq.destroy();
      if (answered || res.headersSent) res.destroy();
      else tooLarge(req, res, target, trace);
    });
    req.pipe(counter).pipe(upstreamReq);
  }

  return {
    route: (checked) => targetIn(upstreams, checked),
    forward,
  };
}
