import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import https from 'node:https';
import { TLSSocket } from 'node:tls';
import { Transform, type TransformCallback } from 'node:stream';
import { checkRequestTarget } from './gateway-path.js';
import { applyGatewayPaging, pagingMetadataOf } from './pagination.js';

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
 * The Authorization header is passed on unchanged (header propagation). A `Location` the service
 * answers with its own path is rewritten to the external one (`gatewayLocation`).
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
  /** Writes a Problem Details answer (the gateway's HTTP adapter supplies it). */
  sendProblem: (res: ServerResponse, status: number, title: string, detail: string) => void;
  onUpstreamError?: (component: string, error: Error) => void;
}

const HOP_BY_HOP = new Set([
  'connection', 'keep-alive', 'proxy-authenticate', 'proxy-authorization', 'te', 'trailer', 'transfer-encoding', 'upgrade', 'host',
]);

export interface ProxyTarget {
  component: string;
  /** The path the client asked the gateway for (checked: gateway-path.ts), without the query. */
  externalPath: string;
  url: URL;
  /** The component's upstream base URL (upstreams[component]). */
  upstreamBase: string;
}

/**
 * Maps a request target (path + query, as sent) to the upstream URL; undefined when no component
 * matches or when the path is refused by gateway-path.ts (the caller answers that 400 itself).
 */
export function resolveTarget(requestTarget: string, upstreams: Record<string, string>): ProxyTarget | undefined {
  const checked = checkRequestTarget(requestTarget);
  return checked.ok ? targetOf(checked, upstreams) : undefined;
}

/** The upstream URL of a path that passed checkRequestTarget, or undefined when no component matches. */
export function targetOf(checked: { readonly path: string; readonly search: string }, upstreams: Record<string, string>): ProxyTarget | undefined {
  // Linear: the two parts are split by the first "/" after the component.
  const match = /^\/api\/([^/]+)(\/.*)?$/i.exec(checked.path);
  const component = match?.[1]?.toLowerCase();
  if (!match || component === undefined) return undefined;
  // Own keys only: `constructor`, `__proto__` … are Object.prototype's, not services.
  const base = Object.hasOwn(upstreams, component) ? upstreams[component] : undefined;
  if (!base) return undefined;
  const rest = match[2] ?? '';
  const url = new URL(base);
  // No dot segment or encoded separator is left (checked), so the URL keeps the path as it is.
  url.pathname = `${url.pathname.replace(/\/$/, '')}/api${rest}`;
  url.search = checked.search;
  return { component, externalPath: checked.path, url, upstreamBase: base };
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

export function createProxyHandler(options: ProxyOptions) {
  const maxInspected = options.maxInspectedBodyBytes ?? 5 * 1024 * 1024;
  // Upstream connections are reused: a new TCP connection per request would cost more than the proxying.
  const agents = { http: new http.Agent({ keepAlive: true, maxSockets: 256 }), https: new https.Agent({ keepAlive: true, maxSockets: 256 }) };

  const maxBody = options.maxBodyBytes ?? 50 * 1024 * 1024;
  // Node closes the connection after an answer sent before the request's body was read (it sends
  // Connection: close itself), so the rest of a refused body is never read.
  const tooLarge = (req: IncomingMessage, res: ServerResponse) => {
    req.unpipe();
    options.sendProblem(res, 413, 'Content Too Large', `The request body exceeds the limit of ${maxBody} bytes.`);
  };

  /** `resolved`: the target the caller already resolved (and authenticated) from the same checked path. */
  return function proxy(req: IncomingMessage, res: ServerResponse, next: () => void, resolved?: ProxyTarget): void {
    const target = resolved ?? resolveTarget(req.url ?? '/', options.upstreams);
    if (!target) return next();
    const declaredLength = Number(req.headers['content-length'] ?? '0');
    if (declaredLength > maxBody) return tooLarge(req, res);
    const isGet = req.method === 'GET';
    // The conventions' gateway paging pattern (pagination.ts); url.searchParams writes through to the URL.
    if (isGet) applyGatewayPaging(target.component, target.url.pathname, target.url.searchParams);

    const headers: http.OutgoingHttpHeaders = {};
    for (const [name, value] of Object.entries(req.headers)) {
      if (!HOP_BY_HOP.has(name) && value !== undefined) headers[name] = value;
    }
    if (req.headers['transfer-encoding']) headers['transfer-encoding'] = req.headers['transfer-encoding'];
    headers['x-forwarded-host'] = req.headers.host ?? '';
    headers['x-forwarded-proto'] = req.socket instanceof TLSSocket ? 'https' : 'http';
    headers['x-forwarded-for'] = [req.headers['x-forwarded-for'], req.socket.remoteAddress].filter(Boolean).join(', ');
    headers['x-forwarded-prefix'] = `/api/${target.component}`;

    const secure = target.url.protocol === 'https:';
    const client = secure ? https : http;
    let answered = false;
    const agent = secure ? agents.https : agents.http;
    const upstreamReq = client.request(target.url, { method: req.method, headers, timeout: options.timeoutMs, agent }, (upstreamRes) => {
      answered = true;
      const status = upstreamRes.statusCode ?? 502;
      const outHeaders: http.OutgoingHttpHeaders = {};
      for (const [name, value] of Object.entries(upstreamRes.headers)) {
        if (!HOP_BY_HOP.has(name) && value !== undefined) outHeaders[name] = value;
      }
      if (typeof outHeaders.location === 'string') outHeaders.location = gatewayLocation(outHeaders.location, target.component, target.upstreamBase);
      const contentType = String(upstreamRes.headers['content-type'] ?? '');
      const length = Number(upstreamRes.headers['content-length'] ?? '0');
      // A Problem Details answer names the service's path in `instance`; the client asked for the gateway's.
      const problem = status >= 400 && contentType.includes('application/problem+json');
      const paged = isGet && status === 200 && contentType.includes('json');
      const inspect = (problem || paged) && (!length || length <= maxInspected);
      if (!inspect) {
        res.writeHead(status, outHeaders);
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
          delete outHeaders['content-length'];
          res.writeHead(status, outHeaders);
          for (const c of chunks) res.write(c);
          upstreamRes.pipe(res);
        }
      });
      upstreamRes.on('end', () => {
        if (streaming) return;
        const body = Buffer.concat(chunks);
        let answer = body;
        try {
          const parsed: unknown = JSON.parse(body.toString('utf8'));
          if (problem) {
            answer = Buffer.from(JSON.stringify(withGatewayInstance(parsed, target.externalPath, target.url.pathname)), 'utf8');
          } else {
            const metadata = pagingMetadataOf(parsed);
            if (metadata) outHeaders['x-pagination'] = JSON.stringify(metadata);
          }
        } catch {
          // Not JSON after all: pass it on unchanged.
        }
        outHeaders['content-length'] = answer.length;
        res.writeHead(status, outHeaders);
        res.end(answer);
      });
      upstreamRes.on('error', () => res.destroy());
    });

    upstreamReq.on('timeout', () => upstreamReq.destroy(Object.assign(new Error('upstream timeout'), { code: 'ETIMEDOUT' })));
    let limitExceeded = false;
    upstreamReq.on('error', (error: NodeJS.ErrnoException) => {
      if (limitExceeded) return;
      options.onUpstreamError?.(target.component, error);
      if (answered || res.headersSent) {
        res.destroy();
        return;
      }
      const unreachable = error.code === 'ECONNREFUSED' || error.code === 'ENOTFOUND' || error.code === 'EHOSTUNREACH';
      if (unreachable) {
        options.sendProblem(res, 503, 'Service Unavailable', `The ${target.component} service is not reachable.`);
      } else if (error.code === 'ETIMEDOUT') {
        options.sendProblem(res, 502, 'Bad Gateway', `The ${target.component} service did not answer in time.`);
      } else {
        options.sendProblem(res, 502, 'Bad Gateway', `The ${target.component} service gave no valid response.`);
      }
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
      else tooLarge(req, res);
    });
    req.pipe(counter).pipe(upstreamReq);
  };
}
