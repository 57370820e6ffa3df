import { expect } from 'chai';
import { createHash } from 'node:crypto';
import http, { type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createProxyHandler } from '../src/proxy/forward.js';

interface Seen { method?: string; url?: string; authorization?: string; bodySha?: string; bodyLength: number }

function listen(server: Server): Promise<string> {
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`)));
}

function close(server: Server): Promise<void> {
  return new Promise((resolve) => { server.closeAllConnections(); server.close(() => resolve()); });
}

function problem(res: ServerResponse, status: number, title: string, detail: string) {
  res.writeHead(status, { 'content-type': 'application/problem+json' });
  res.end(JSON.stringify({ type: 'about:blank', title, status, detail, traceId: 't' }));
}

describe('admin gateway proxy', () => {
  let upstream: Server;
  let gateway: Server;
  let gatewayUrl: string;
  const seen: Seen[] = [];

  before(async () => {
    upstream = http.createServer((req: IncomingMessage, res: ServerResponse) => {
      const hash = createHash('sha256');
      let length = 0;
      req.on('data', (chunk: Buffer) => { hash.update(chunk); length += chunk.length; });
      req.on('end', () => {
        seen.push({ method: req.method, url: req.url, authorization: req.headers.authorization, bodySha: hash.digest('hex'), bodyLength: length });
        if (req.url?.startsWith('/api/facilities')) {
          const q = new URL(req.url, 'http://x').searchParams;
          const pageSize = Number(q.get('pageSize'));
          const pageNumber = Number(q.get('pageNumber'));
          res.writeHead(200, { 'content-type': 'application/json' });
          res.end(JSON.stringify({ records: [{ id: 1 }], metadata: { pageSize, pageNumber, totalCount: 41, totalPages: Math.ceil(41 / pageSize) } }));
          return;
        }
        res.writeHead(201, { 'content-type': 'application/json', location: '/api/artifact/PACKAGE/x' });
        res.end(JSON.stringify({ received: length }));
      });
    });
    const upstreamUrl = await listen(upstream);
    const proxy = createProxyHandler({
      upstreams: { tenant: upstreamUrl, validation: upstreamUrl, down: 'http://127.0.0.1:1' },
      timeoutMs: 2000,
      sendProblem: problem,
    });
    gateway = http.createServer((req, res) => proxy(req, res, () => problem(res, 404, 'Not Found', 'No route')));
    gatewayUrl = await listen(gateway);
  });

  after(async () => {
    await close(gateway);
    await close(upstream);
  });

  beforeEach(() => { seen.length = 0; });

  it('strips the component name and passes the Authorization header on', async () => {
    const res = await fetch(`${gatewayUrl}/api/validation/category/abc?x=1`, { headers: { authorization: 'Bearer token-123' } });
    await res.text();
    expect(seen[0].url).to.equal('/api/category/abc?x=1');
    expect(seen[0].authorization).to.equal('Bearer token-123');
  });

  it('streams a large upload through unchanged', async () => {
    const body = Buffer.alloc(20 * 1024 * 1024, 7);
    body.write('package bytes', 0);
    const res = await fetch(`${gatewayUrl}/api/validation/artifact/PACKAGE/x`, { method: 'PUT', body, headers: { 'content-type': 'application/gzip' } });
    expect(res.status).to.equal(201);
    expect(res.headers.get('location')).to.equal('/api/artifact/PACKAGE/x');
    expect(seen[0].bodyLength).to.equal(body.length);
    expect(seen[0].bodySha).to.equal(createHash('sha256').update(body).digest('hex'));
  });

  it('applies the paging pattern: page size capped at 20, page number raised to 1, metadata in X-Pagination', async () => {
    const res = await fetch(`${gatewayUrl}/api/tenant/facilities?pageSize=50&pageNumber=0&facilityName=a`);
    const body = await res.json() as { metadata: unknown };
    expect(seen[0].url).to.equal('/api/facilities?pageSize=20&pageNumber=1&facilityName=a');
    expect(JSON.parse(res.headers.get('x-pagination') ?? 'null')).to.deep.equal(body.metadata);
    expect(body.metadata).to.deep.equal({ pageSize: 20, pageNumber: 1, totalCount: 41, totalPages: 3 });
  });

  it('defaults to page size 10 and page number 1 when only one paging parameter is given', async () => {
    await (await fetch(`${gatewayUrl}/api/tenant/facilities?pageNumber=2`)).text();
    expect(seen[0].url).to.equal('/api/facilities?pageNumber=2&pageSize=10');
  });

  it('answers 503 Problem Details when the upstream is down', async () => {
    const res = await fetch(`${gatewayUrl}/api/down/anything`);
    expect(res.status).to.equal(503);
    expect(res.headers.get('content-type')).to.contain('application/problem+json');
    expect((await res.json() as { detail: string }).detail).to.contain('down service is not reachable');
  });

  it('leaves unknown components to the next handler', async () => {
    const res = await fetch(`${gatewayUrl}/api/unknown/x`);
    expect(res.status).to.equal(404);
    expect(seen).to.have.length(0);
  });
});
