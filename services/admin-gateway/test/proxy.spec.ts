import { expect } from 'chai';
import { createHash } from 'node:crypto';
import http, { type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { generateTraceContext } from '#adapters/observability/trace-context.js';
import { createProxy, gatewayLocation, withGatewayInstance } from '#gateway/proxy/forward.js';
import { checkRequestTarget } from '#gateway/proxy/gateway-path.js';

interface Seen { method?: string; url?: string; authorization?: string; bodySha?: string; bodyLength: number }

const LARGE_ANSWER = Buffer.alloc(16 * 1024 * 1024, 3);
LARGE_ANSWER.write('first bytes', 0);
LARGE_ANSWER.write('last bytes', LARGE_ANSWER.length - 10);
/** When the upstream saw the client of /api/endless go away. */
const endlessClosed: number[] = [];

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
  let upstreamUrl: string;
  const seen: Seen[] = [];

  before(async () => {
    upstream = http.createServer((req: IncomingMessage, res: ServerResponse) => {
      const hash = createHash('sha256');
      let length = 0;
      req.on('data', (chunk: Buffer) => { hash.update(chunk); length += chunk.length; });
      req.on('end', () => {
        seen.push({ method: req.method, url: req.url, authorization: req.headers.authorization, bodySha: hash.digest('hex'), bodyLength: length });
        // Answers with the Location (and status) the test asks for, as a service creating something would.
        const location = req.headers['x-test-location'];
        if (typeof location === 'string') {
          res.writeHead(Number(req.headers['x-test-status'] ?? 201), { 'content-type': 'application/json', location });
          res.end('{}');
          return;
        }
        if (req.url === '/api/slow') return; // never answers: the gateway's timeout must
        if (req.url === '/api/cookies') {
          res.writeHead(200, [['content-type', 'text/plain'], ['set-cookie', 'a=1'], ['set-cookie', 'b=2']].flat());
          res.end('ok');
          return;
        }
        if (req.url === '/api/large') {
          // 16 MiB in 64 KiB writes that wait for the socket: streamed, never held whole by the gateway
          res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': String(LARGE_ANSWER.length) });
          let at = 0;
          const more = () => {
            while (at < LARGE_ANSWER.length) {
              const chunk = LARGE_ANSWER.subarray(at, at + 65_536);
              at += chunk.length;
              if (!res.write(chunk)) { res.once('drain', more); return; }
            }
            res.end();
          };
          more();
          return;
        }
        if (req.url === '/api/endless') {
          // answers and then keeps writing until its client is gone
          res.writeHead(200, { 'content-type': 'application/octet-stream' });
          const timer = setInterval(() => res.write(Buffer.alloc(1024)), 5);
          res.on('close', () => { clearInterval(timer); endlessClosed.push(Date.now()); });
          return;
        }
        if (req.url?.startsWith('/api/problem/')) {
          res.writeHead(404, { 'content-type': 'application/problem+json' });
          res.end(JSON.stringify({ type: 'https://nhsn-link.example/problems/not-found', title: 'Not found', status: 404, detail: 'No category x', traceId: 'upstream-trace', instance: '/api/problem/x' }));
          return;
        }
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
    upstreamUrl = await listen(upstream);
    const proxy = createProxy({
      upstreams: { tenant: upstreamUrl, validation: upstreamUrl, down: 'http://127.0.0.1:1' },
      timeoutMs: 500,
      sendProblem: problem,
    });
    gateway = http.createServer((req, res) => {
      const checked = checkRequestTarget(req.url ?? '/');
      const target = checked.ok ? proxy.route(checked) : undefined;
      if (target) proxy.forward(req, res, target, generateTraceContext());
      else problem(res, 404, 'Not Found', 'No route');
    });
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
    expect(seen[0]?.url).to.equal('/api/category/abc?x=1');
    expect(seen[0]?.authorization).to.equal('Bearer token-123');
  });

  it('streams a large upload through unchanged', async () => {
    const body = Buffer.alloc(20 * 1024 * 1024, 7);
    body.write('package bytes', 0);
    const res = await fetch(`${gatewayUrl}/api/validation/artifact/PACKAGE/x`, { method: 'PUT', body, headers: { 'content-type': 'application/gzip' } });
    expect(res.status).to.equal(201);
    expect(res.headers.get('location')).to.equal('/api/validation/artifact/PACKAGE/x');
    expect(seen[0]?.bodyLength).to.equal(body.length);
    expect(seen[0]?.bodySha).to.equal(createHash('sha256').update(body).digest('hex'));
  });

  it('spec lines 115-117, 423 (gateway paging pattern): page size above 20 is lowered to 20, page number below 1 becomes 1; X-Pagination carries what was applied', async () => {
    const res = await fetch(`${gatewayUrl}/api/tenant/facilities?pageSize=50&pageNumber=0&facilityName=a`);
    const body = await res.json() as { metadata: unknown };
    expect(seen[0]?.url).to.equal('/api/facilities?pageSize=20&pageNumber=1&facilityName=a');
    expect(JSON.parse(res.headers.get('x-pagination') ?? 'null')).to.deep.equal(body.metadata);
    expect(body.metadata).to.deep.equal({ pageSize: 20, pageNumber: 1, totalCount: 41, totalPages: 3 });
  });

  it('passes paging parameters within the pattern, and values it does not correct, on unchanged', async () => {
    await (await fetch(`${gatewayUrl}/api/tenant/facilities?pageSize=20&pageNumber=3`)).text();
    expect(seen[0]?.url).to.equal('/api/facilities?pageSize=20&pageNumber=3');
    seen.length = 0;
    // A page size below 1, a non-number, a repeated parameter: the service's 400, not a guess.
    await (await fetch(`${gatewayUrl}/api/tenant/facilities?pageSize=0&pageNumber=x`)).text();
    expect(seen[0]?.url).to.equal('/api/facilities?pageSize=0&pageNumber=x');
  });

  it('spec line 409 (reporting-plan list: pageSize 1 to 100): a list with its own range is passed on unchanged', async () => {
    await (await fetch(`${gatewayUrl}/api/tenant/facility-reporting-plans/?pageSize=100&pageNumber=0`)).text();
    expect(seen[0]?.url).to.equal('/api/facility-reporting-plans/?pageSize=100&pageNumber=0');
  });

  it('names the gateway\'s path, not the service\'s, in the instance of a Problem Details answer', async () => {
    const res = await fetch(`${gatewayUrl}/api/validation/problem/x?y=1`);
    expect(res.status).to.equal(404);
    expect(res.headers.get('content-type')).to.contain('application/problem+json');
    const body = await res.json() as { instance: string; detail: string; traceId: string };
    expect(seen[0]?.url).to.equal('/api/problem/x?y=1');
    expect(body.instance).to.equal('/api/validation/problem/x');
    expect(body).to.include({ detail: 'No category x', traceId: 'upstream-trace' });
  });

  it('a detail naming the service\'s path names the gateway\'s (whole paths only), as instance does', () => {
    expect(withGatewayInstance({ detail: 'No resource at GET /api/nothing' }, '/api/validation/nothing', '/api/nothing'))
      .to.deep.equal({ detail: 'No resource at GET /api/validation/nothing', instance: '/api/validation/nothing' });
    // The component's root: other /api/... paths in the text are not the requested one.
    expect(withGatewayInstance({ detail: 'No resource at GET /api; see /api/facilities' }, '/api/tenant', '/api'))
      .to.deep.equal({ detail: 'No resource at GET /api/tenant; see /api/facilities', instance: '/api/tenant' });
    expect(withGatewayInstance({ title: 'x' }, '/api/tenant/x', '/api/x')).to.deep.equal({ title: 'x', instance: '/api/tenant/x' });
  });

  it('answers 503 Problem Details when the upstream is down', async () => {
    const res = await fetch(`${gatewayUrl}/api/down/anything`);
    expect(res.status).to.equal(503);
    expect(res.headers.get('content-type')).to.contain('application/problem+json');
    expect((await res.json() as { detail: string }).detail).to.contain('down service is not reachable');
  });

  it('answers 502 Problem Details when the upstream does not answer within the timeout', async () => {
    const started = Date.now();
    const res = await fetch(`${gatewayUrl}/api/tenant/slow`);
    expect(res.status).to.equal(502);
    expect(res.headers.get('content-type')).to.contain('application/problem+json');
    expect((await res.json() as { detail: string }).detail).to.contain('tenant service did not answer in time');
    expect(Date.now() - started).to.be.within(400, 3000);
  });

  it('passes a repeated answer header on as sent (each Set-Cookie)', async () => {
    const res = await fetch(`${gatewayUrl}/api/tenant/cookies`);
    expect(await res.text()).to.equal('ok');
    expect(res.headers.getSetCookie()).to.deep.equal(['a=1', 'b=2']);
  });

  it('streams a large answer to a slow reader intact, with its length', async () => {
    const answer = await new Promise<{ status: number; length: string | undefined; body: Buffer }>((resolve, reject) => {
      http.get(`${gatewayUrl}/api/tenant/large`, (res) => {
        const chunks: Buffer[] = [];
        // a reader slower than the upstream, pausing after every chunk: the answer still arrives whole, in order
        res.on('data', (chunk: Buffer) => { chunks.push(chunk); res.pause(); setTimeout(() => res.resume(), 1); });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, length: res.headers['content-length'], body: Buffer.concat(chunks) }));
        res.on('error', reject);
      }).on('error', reject);
    });
    expect(answer.status).to.equal(200);
    expect(answer.length).to.equal(String(LARGE_ANSWER.length));
    expect(answer.body.equals(LARGE_ANSWER)).to.equal(true);
  });

  it('a client that goes away mid-answer ends the upstream exchange too', async () => {
    endlessClosed.length = 0;
    await new Promise<void>((resolve, reject) => {
      const req = http.get(`${gatewayUrl}/api/tenant/endless`, (res) => {
        res.once('data', () => { req.destroy(); resolve(); });
      });
      req.on('error', () => undefined);
      setTimeout(() => reject(new Error('no answer')), 2000);
    });
    const gone = Date.now();
    while (endlessClosed.length === 0 && Date.now() - gone < 2000) await new Promise((r) => setTimeout(r, 10));
    expect(endlessClosed, 'the upstream saw its client go').to.have.length(1);
  });

  describe('Location of the answer', () => {
    /** The Location the gateway passes on when the service answers `status` with `location` to `method path`. */
    async function locationThrough(method: string, path: string, location: string, status = 201): Promise<string | null> {
      const res = await fetch(`${gatewayUrl}${path}`, { method, redirect: 'manual', headers: { 'x-test-location': location, 'x-test-status': String(status) } });
      await res.text();
      expect(res.status).to.equal(status);
      return res.headers.get('location');
    }

    it('a report job\'s Location becomes the gateway path, and following it reaches the job route of the service', async () => {
      const location = await locationThrough('POST', '/api/validation/result/f1/r1/$revalidate', '/api/job/0192f3a4-1111-7000-8000-000000000001', 202);
      expect(location).to.equal('/api/validation/job/0192f3a4-1111-7000-8000-000000000001');
      seen.length = 0;
      await (await fetch(`${gatewayUrl}${location!}`)).text();
      expect(seen[0]?.url).to.equal('/api/job/0192f3a4-1111-7000-8000-000000000001');
    });

    it('every component\'s 201 Locations (query and fragment kept)', async () => {
      expect(await locationThrough('POST', '/api/tenant/facilities', '/api/facilities/f-1')).to.equal('/api/tenant/facilities/f-1');
      expect(await locationThrough('POST', '/api/tenant/signing-keys', '/api/signing-keys/kid-1?x=1#y')).to.equal('/api/tenant/signing-keys/kid-1?x=1#y');
      expect(await locationThrough('POST', '/api/validation/category/c1/rule', '/api/category/c1/rule')).to.equal('/api/validation/category/c1/rule');
      expect(await locationThrough('POST', '/api/validation/validation-configuration', '/api/validation-configuration/nhsn-ig-2.0'))
        .to.equal('/api/validation/validation-configuration/nhsn-ig-2.0');
    });

    it('also on redirects, and for an absolute URL on the service\'s own (internal) origin', async () => {
      expect(await locationThrough('GET', '/api/validation/artifact', '/api/artifact/PACKAGE/x', 302)).to.equal('/api/validation/artifact/PACKAGE/x');
      expect(await locationThrough('POST', '/api/validation/x', `${upstreamUrl}/api/job/j1`, 202)).to.equal('/api/validation/job/j1');
    });

    it('leaves alone: a path already under the component, other paths, relative references and other hosts', async () => {
      expect(await locationThrough('POST', '/api/tenant/facilities', '/api/tenant/facilities/f-1')).to.equal('/api/tenant/facilities/f-1');
      expect(await locationThrough('POST', '/api/validation/x', '/.well-known/jwks.json')).to.equal('/.well-known/jwks.json');
      expect(await locationThrough('POST', '/api/validation/x', '/apifoo/x')).to.equal('/apifoo/x');
      expect(await locationThrough('POST', '/api/validation/result/f/r/$revalidate', '../../job/j1', 202)).to.equal('../../job/j1');
      expect(await locationThrough('POST', '/api/validation/x', 'https://elsewhere.example.org/api/job/j1')).to.equal('https://elsewhere.example.org/api/job/j1');
      expect(await locationThrough('POST', '/api/validation/x', `${upstreamUrl}/health`)).to.equal(`${upstreamUrl}/health`);
    });
  });

  it('Location of an upstream reached under a path prefix: the prefix is the upstream\'s, not the client\'s', () => {
    const base = 'http://validation.internal:8080/validation-svc/';
    expect(gatewayLocation('/validation-svc/api/job/j1', 'validation', base)).to.equal('/api/validation/job/j1');
    expect(gatewayLocation('http://validation.internal:8080/validation-svc/api/job/j1?x=1', 'validation', base)).to.equal('/api/validation/job/j1?x=1');
    // A service unaware of the prefix answers its own path: rewritten as without a prefix.
    expect(gatewayLocation('/api/job/j1', 'validation', base)).to.equal('/api/validation/job/j1');
    // Only the whole prefix segment counts.
    expect(gatewayLocation('/validation-svcx/api/job/j1', 'validation', base)).to.equal('/validation-svcx/api/job/j1');
    expect(gatewayLocation('/validation-svc/health', 'validation', base)).to.equal('/validation-svc/health');
  });

  it('leaves unknown components to the next handler', async () => {
    const res = await fetch(`${gatewayUrl}/api/unknown/x`);
    expect(res.status).to.equal(404);
    expect(seen).to.have.length(0);
  });
});
