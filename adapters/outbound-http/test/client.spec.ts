import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import { pino } from 'pino';
import request from 'supertest';
import { createHttpApp } from '../../http/index.js';
import { silentLogger } from '../../observability/logger.js';
import { runWithContext } from '../../observability/request-context.js';
import { parseTraceparent } from '../../observability/trace-context.js';
import { UpstreamError, createHttpClient, staticBearer, type HttpClientOptions } from '../index.js';

interface Seen { method: string; url: string; headers: IncomingMessage['headers']; body: string; at: number }
type Handler = (req: IncomingMessage, res: ServerResponse, call: number) => void;

/** A stand-in for another service: records every request; each path has its own scripted handler. */
class FakeUpstream {
  readonly seen: Seen[] = [];
  private readonly handlers = new Map<string, Handler>();
  private server!: Server;
  url = '';

  async start(): Promise<void> {
    this.server = createServer((req, res) => {
      let body = '';
      req.setEncoding('utf8');
      req.on('data', (chunk: string) => { body += chunk; });
      req.on('end', () => {
        this.seen.push({ method: req.method!, url: req.url!, headers: req.headers, body, at: performance.now() });
        const path = new URL(req.url!, 'http://x').pathname;
        const handler = this.handlers.get(path);
        if (!handler) { res.writeHead(404).end(); return; }
        handler(req, res, this.seen.filter((s) => new URL(s.url, 'http://x').pathname === path).length);
      });
    });
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  on(path: string, handler: Handler): void {
    this.handlers.set(path, handler);
  }

  calls(path: string): Seen[] {
    return this.seen.filter((s) => new URL(s.url, 'http://x').pathname === path);
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

const json = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) =>
  res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(body));

describe('adapters/outbound-http', () => {
  const upstream = new FakeUpstream();
  const client = (extra: Partial<HttpClientOptions> = {}) =>
    createHttpClient({ baseUrl: `${upstream.url}/api/`, timeoutMs: 2000, retries: 2, retryBaseDelayMs: 1, logger: silentLogger(), ...extra });

  before(async () => {
    await upstream.start();
    upstream.on('/api/echo', (_req, res) => json(res, 200, { ok: true }));
    upstream.on('/api/text', (_req, res) => res.writeHead(200, { 'content-type': 'text/plain' }).end('plain words'));
    upstream.on('/api/binary', (_req, res) => res.writeHead(200, { 'content-type': 'application/gzip' }).end(Buffer.from([0x1f, 0x8b, 8])));
    upstream.on('/api/empty', (_req, res) => res.writeHead(204).end());
    upstream.on('/api/flaky', (_req, res, call) => (call < 3 ? json(res, 503, { error: 'busy' }) : json(res, 200, { call })));
    upstream.on('/api/always-503', (_req, res) => json(res, 503, {}));
    upstream.on('/api/bad', (_req, res) => json(res, 400, { detail: 'no' }));
    upstream.on('/api/throttled', (_req, res, call) => (call === 1 ? json(res, 429, {}, { 'retry-after': '1' }) : json(res, 200, { call })));
    upstream.on('/api/throttled-long', (_req, res, call) => (call === 1 ? json(res, 429, {}, { 'retry-after': '3600' }) : json(res, 200, { call })));
    upstream.on('/api/hang', () => { /* never answers */ });
    upstream.on('/api/big-declared', (_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ pad: 'x'.repeat(5000) })));
    upstream.on('/api/big-chunked', (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' }); // no content-length: chunked
      res.write('{"pad":"'); res.write('x'.repeat(3000)); res.write('x'.repeat(3000)); res.end('"}');
    });
    upstream.on('/api/port', (req, res) => json(res, 200, { port: req.socket.remotePort }));
  });
  after(() => upstream.stop());

  it('a platform-service client passes on the incoming Authorization header and the trace id with a new span id', async () => {
    const incoming = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';
    const parent = parseTraceparent(incoming)!;
    const response = await runWithContext({ traceId: parent.traceId, spanId: parent.spanId, traceFlags: '01', authorization: 'Bearer user-token' },
      () => client({ propagateCallerAuthorization: true, credentials: staticBearer('service-token') }).get('/echo?x=1', { query: { y: 2 } }));
    expect(response).to.deep.include({ status: 200, body: { ok: true } });
    const seen = upstream.calls('/api/echo').at(-1)!;
    expect(seen.url).to.equal('/api/echo?x=1&y=2');
    expect(seen.headers.authorization).to.equal('Bearer user-token');
    const sent = parseTraceparent(seen.headers.traceparent as string)!;
    expect(sent.traceId).to.equal(parent.traceId);
    expect(sent.spanId).to.match(/^[0-9a-f]{16}$/).and.not.equal(parent.spanId);
  });

  it('a platform-service client forwards the caller\'s Authorization from a request served by the standard HTTP app', async () => {
    const http = createHttpApp({ serviceName: 'gateway-test', logger: silentLogger(), metrics: undefined });
    const downstream = client({ propagateCallerAuthorization: true });
    http.app.get('/proxy', async (_req, res) => {
      const answer = await downstream.get('/echo');
      res.status(answer.status).json(answer.body);
    });
    const res = await request(http.finish()).get('/proxy').set('Authorization', 'Bearer from-browser').expect(200);
    const seen = upstream.calls('/api/echo').at(-1)!;
    expect(seen.headers.authorization).to.equal('Bearer from-browser');
    expect(parseTraceparent(seen.headers.traceparent as string)!.traceId).to.equal(res.headers['x-trace-id']);
  });

  it('any other client never sends the caller\'s Authorization: its own credentials or nothing', async () => {
    const http = createHttpApp({ serviceName: 'external-test', logger: silentLogger(), metrics: undefined });
    const external = client({ credentials: staticBearer('our-own') });
    const bare = client();
    http.app.get('/proxy', async (_req, res) => {
      await external.get('/echo');
      const seenWithOwn = upstream.calls('/api/echo').at(-1)!.headers.authorization;
      await bare.get('/echo');
      res.json({ seenWithOwn, seenBare: upstream.calls('/api/echo').at(-1)!.headers.authorization ?? null });
    });
    const res = await request(http.finish()).get('/proxy').set('Authorization', 'Bearer from-browser').expect(200);
    expect(res.body).to.deep.equal({ seenWithOwn: 'Bearer our-own', seenBare: null });
  });

  it('uses the service token outside a request, and an explicit header over both', async () => {
    await client({ propagateCallerAuthorization: true, credentials: staticBearer('svc-123') }).get('/echo');
    expect(upstream.calls('/api/echo').at(-1)!.headers.authorization).to.equal('Bearer svc-123');
    await client().get('/echo');
    expect(upstream.calls('/api/echo').at(-1)!.headers).not.to.have.property('authorization');
    expect(parseTraceparent(upstream.calls('/api/echo').at(-1)!.headers.traceparent as string)).not.to.equal(undefined);
    await runWithContext({ traceId: 'a'.repeat(32), authorization: 'Bearer user' },
      () => client({ propagateCallerAuthorization: true }).get('/echo', { headers: { Authorization: 'Basic abc' } }));
    expect(upstream.calls('/api/echo').at(-1)!.headers.authorization).to.equal('Basic abc');
  });

  it('decodes JSON, text, binary and empty bodies and sends JSON bodies', async () => {
    const c = client();
    expect((await c.get('/text')).body).to.equal('plain words');
    const binary = (await c.get<Buffer>('/binary')).body;
    expect(Buffer.isBuffer(binary) && [...binary]).to.deep.equal([0x1f, 0x8b, 8]);
    expect(await c.delete('/empty')).to.deep.include({ status: 204, body: undefined });
    await c.put('/echo', { name: 'x' });
    const seen = upstream.calls('/api/echo').at(-1)!;
    expect(seen).to.deep.include({ method: 'PUT', body: '{"name":"x"}' });
    expect(seen.headers['content-type']).to.equal('application/json');
  });

  it('rawBody: the body as received, whatever its media type, an empty Buffer for none', async () => {
    upstream.on('/api/json', (_req, res) => res.writeHead(200, { 'content-type': 'application/fhir+json' }).end('{"resourceType":"Bundle"}'));
    const c = client();
    expect((await c.get('/json')).body).to.deep.equal({ resourceType: 'Bundle' });
    const raw = (await c.get<Buffer>('/json', { rawBody: true })).body;
    expect(Buffer.isBuffer(raw) && raw.toString('utf8')).to.equal('{"resourceType":"Bundle"}');
    const empty = (await c.delete<Buffer>('/empty', { rawBody: true })).body;
    expect(Buffer.isBuffer(empty) && empty.length).to.equal(0);
  });

  it('retries a 503 and returns the later success', async () => {
    const response = await client().get('/flaky');
    expect(response).to.deep.include({ status: 200, body: { call: 3 } });
    expect(upstream.calls('/api/flaky')).to.have.length(3);
  });

  it('throws UpstreamError with status and attempts when 5xx outlasts the retries', async () => {
    const error = await client({ retries: 1 }).get('/always-503').catch((e: unknown) => e);
    expect(error).to.be.instanceOf(UpstreamError);
    expect(error).to.include({ status: 503, attempts: 2, method: 'GET', url: `${upstream.url}/api/always-503` });
  });

  it('does not retry POST unless told to', async () => {
    const before = upstream.calls('/api/always-503').length;
    const error = await client().post('/always-503', {}).catch((e: unknown) => e);
    expect(error).to.include({ status: 503, attempts: 1 });
    expect(upstream.calls('/api/always-503').length - before).to.equal(1);
    const again = await client({ retryNonIdempotent: true }).post('/always-503', {}).catch((e: unknown) => e);
    expect(again).to.include({ attempts: 3 });
  });

  it('does not retry a 400 and resolves it for the caller', async () => {
    const response = await client().get('/bad');
    expect(response).to.deep.include({ status: 400, body: { detail: 'no' } });
    expect(upstream.calls('/api/bad')).to.have.length(1);
  });

  it('waits the Retry-After seconds of a 429 before retrying', async () => {
    const response = await client({ retryBaseDelayMs: 1 }).get('/throttled');
    expect(response.body).to.deep.equal({ call: 2 });
    const [first, second] = upstream.calls('/api/throttled');
    expect(second!.at - first!.at).to.be.at.least(950);
  });

  it('caps a long Retry-After at maxRetryDelayMs', async () => {
    const lines: Array<Record<string, unknown>> = [];
    const logger = pino({ level: 'warn' }, { write: (line: string) => { lines.push(JSON.parse(line)); } });
    const response = await client({ maxRetryDelayMs: 20, logger }).get('/throttled-long');
    expect(response.body).to.deep.equal({ call: 2 });
    expect(lines[0]).to.include({ status: 429, attempt: 1, delayMs: 20 });
  });

  it('times out each attempt and reports a timeout as UpstreamError', async () => {
    const error = await client({ timeoutMs: 50, retries: 1 }).get('/hang').catch((e: unknown) => e);
    expect(error).to.be.instanceOf(UpstreamError);
    expect(error).to.include({ status: undefined, attempts: 2, timedOut: true });
    expect((error as Error).message).to.contain('timed out');
    expect(upstream.calls('/api/hang')).to.have.length(2);
  });

  it('refuses an answer larger than maxResponseBytes, declared or streamed, without retrying', async () => {
    for (const path of ['/big-declared', '/big-chunked']) {
      const before = upstream.calls(`/api${path}`).length;
      const error = await client({ maxResponseBytes: 4096 }).get(path).catch((e: unknown) => e);
      expect(error, path).to.be.instanceOf(UpstreamError);
      expect((error as Error).message, path).to.contain('limit of 4096 bytes');
      expect(upstream.calls(`/api${path}`).length - before, path).to.equal(1);
    }
    expect((await client({ maxResponseBytes: 8192 }).get<{ pad: string }>('/big-chunked')).body.pad).to.have.length(6000);
  });

  it('keeps the connection alive between calls', async () => {
    const c = client();
    const first = await c.get<{ port: number }>('/port');
    const second = await c.get<{ port: number }>('/port');
    expect(second.body.port).to.equal(first.body.port);
  });

  it('reports an unreachable service as UpstreamError after the retries', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const unreachable = createHttpClient({ baseUrl: `http://127.0.0.1:${port}`, retries: 1, retryBaseDelayMs: 1, logger: silentLogger() });
    const error = await unreachable.get('/x').catch((e: unknown) => e);
    expect(error).to.be.instanceOf(UpstreamError);
    expect(error).to.include({ status: undefined, attempts: 2 });
    expect((error as Error).message).to.contain('ECONNREFUSED');
  });
});
