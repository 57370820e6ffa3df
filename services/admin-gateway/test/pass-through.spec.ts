/**
 * Issue 33, item 3: the gateway passes a request of an already authenticated caller on before express
 * (pass-through.ts). It must take only what the express path would pass on, answer as that path
 * does, and keep the trace, the request log and the duration histogram; the shortcuts the proxy takes
 * (the upstream path as text, the paging metadata read from the answer's tail) must give what the
 * URL and a whole-body parse gave.
 */
import { expect } from 'chai';
import fc from 'fast-check';
import http, { type IncomingHttpHeaders, type RequestListener, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey } from 'jose';
import { createTokenVerifier } from '#adapters/auth/index.js';
import type { RequestRecord } from '#adapters/http/index.js';
import { silentLogger } from '#adapters/observability/logger.js';
import { parseTraceparent, type TraceContext } from '#adapters/observability/trace-context.js';
import { createGatewayApp } from '#gateway/gateway-app.js';
import { passThrough } from '#gateway/pass-through.js';
import { createProxy, type ProxyTarget } from '#gateway/proxy/forward.js';
import { checkRequestTarget } from '#gateway/proxy/gateway-path.js';
import { pagingMetadataOf, pagingMetadataOfJson } from '#gateway/proxy/pagination.js';

function listen(server: Server): Promise<string> {
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`)));
}

function close(server: Server): Promise<void> {
  return new Promise((resolve) => { server.closeAllConnections(); server.close(() => resolve()); });
}

interface Answer { status: number; headers: Headers; text: string }

async function get(url: string, headers: Record<string, string> = {}): Promise<Answer> {
  const res = await fetch(url, { headers });
  return { status: res.status, headers: res.headers, text: await res.text() };
}

describe('admin gateway pass-through: which requests it takes', () => {
  let server: Server;
  let base: string;
  const forwarded: Array<{ target: ProxyTarget; trace: TraceContext }> = [];
  const recorded: Array<Parameters<RequestRecord>> = [];
  let fellBack = 0;

  before(async () => {
    const proxy = createProxy({ upstreams: { tenant: 'http://127.0.0.1:9' }, timeoutMs: 500, sendProblem: () => undefined });
    const listener = passThrough({
      proxy: {
        route: (checked) => proxy.route(checked),
        forward: (req, res, target, trace) => {
          if (req.headers['x-test-throw'] !== undefined) throw new Error('thrown while passing on');
          forwarded.push({ target, trace });
          res.writeHead(200).end('passed');
        },
      },
      authenticated: (req) => (req.headers.authorization === 'Bearer known' ? { subject: 'known' } : undefined),
      record: (...line) => { recorded.push(line); },
      fallback: (_req, res) => {
        fellBack += 1;
        res.writeHead(418).end('express');
      },
      failed: (error, _req, res, traceId, path) => {
        res.writeHead(500).end(JSON.stringify({ error: error instanceof Error ? error.message : 'unknown', traceId, path }));
      },
    });
    server = http.createServer(listener);
    base = await listen(server);
  });

  after(() => close(server));

  beforeEach(() => {
    forwarded.length = 0;
    recorded.length = 0;
    fellBack = 0;
  });

  it('leaves to express a caller not known to be authenticated, a refused path, a path no service has, and its own routes', async () => {
    for (const [path, headers] of [
      ['/api/tenant/facilities', {}],
      ['/api/tenant/facilities', { authorization: 'Bearer not-verified-yet' }],
      ['/api/tenant/%2e%2e/x', { authorization: 'Bearer known' }],
      ['/api/other/x', { authorization: 'Bearer known' }],
      ['/api/constructor/x', { authorization: 'Bearer known' }],
      ['/health', { authorization: 'Bearer known' }],
    ] as const) {
      expect((await get(`${base}${path}`, headers)).status, path).to.equal(418);
    }
    expect(fellBack).to.equal(6);
    expect(forwarded).to.deep.equal([]);
    expect(recorded, 'express records its own').to.deep.equal([]);
  });

  it('passes an authenticated caller\'s request for a service on, with its trace, and records it as express would', async () => {
    const traceparent = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';
    const answer = await get(`${base}/api/Tenant/facilities?pageSize=5`, { authorization: 'Bearer known', traceparent });
    expect(answer.text).to.equal('passed');
    expect(fellBack).to.equal(0);
    expect(forwarded).to.have.length(1);
    expect(forwarded[0]?.target).to.include({ component: 'tenant', externalPath: '/api/Tenant/facilities', pathname: '/api/facilities', search: '?pageSize=5' });
    expect(forwarded[0]?.trace).to.deep.equal(parseTraceparent(traceparent));
    await new Promise((resolve) => setTimeout(resolve, 20)); // the 'close' after the answer
    expect(recorded).to.have.length(1);
    const [method, path, route, status, seconds, traceId] = recorded[0] ?? [];
    expect({ method, path, route, status, traceId }).to.deep.equal({ method: 'GET', path: '/api/Tenant/facilities', route: 'unmatched', status: 200, traceId: '0af7651916cd43dd8448eb211c80319c' });
    expect(seconds).to.be.a('number').within(0, 5);
  });

  it('answers what passing on threw, as express\'s error handler would, instead of ending the process', async () => {
    const answer = await get(`${base}/api/tenant/x`, { authorization: 'Bearer known', 'x-test-throw': '1' });
    expect(answer.status).to.equal(500);
    expect(JSON.parse(answer.text)).to.include({ error: 'thrown while passing on', path: '/api/tenant/x' });
    expect((await get(`${base}/api/tenant/x`, { authorization: 'Bearer known' })).text, 'still serving').to.equal('passed');
  });

  it('starts a trace when the caller sent none (or an invalid one)', async () => {
    await get(`${base}/api/tenant/x`, { authorization: 'Bearer known', traceparent: 'nonsense' });
    expect(forwarded[0]?.trace.traceId).to.match(/^[0-9a-f]{32}$/);
  });
});

describe('admin gateway pass-through: answers as the express path does', () => {
  let upstream: Server;
  let gatewayServer: Server;
  let gatewayUrl: string;
  let privateKey: CryptoKey;
  let gateway: RequestListener;
  const seen: Array<{ url: string; headers: IncomingHttpHeaders }> = [];

  const bearer = async (expiresAt: number | string = '5m') => `Bearer ${await new SignJWT({ permissions: ['IsLinkAdmin'] })
    .setProtectedHeader({ alg: 'ES256', kid: 'p1', typ: 'at+jwt' }).setSubject('operator').setIssuer('https://idp.test').setAudience('nhsn')
    .setExpirationTime(expiresAt).sign(privateKey)}`;

  before(async () => {
    const pair = await generateKeyPair('ES256', { extractable: true });
    privateKey = pair.privateKey;
    const jwk = { ...(await exportJWK(pair.publicKey)), kid: 'p1', alg: 'ES256' };
    upstream = http.createServer((req, res) => {
      seen.push({ url: req.url ?? '', headers: req.headers });
      if (req.url?.startsWith('/api/missing')) {
        res.writeHead(404, { 'content-type': 'application/problem+json; charset=utf-8', 'keep-alive': 'timeout=5' });
        res.end(JSON.stringify({ type: 'https://nhsn-link.example/problems/not-found', title: 'Not found', status: 404, detail: 'No resource at GET /api/missing', traceId: 't' }));
        return;
      }
      const body = JSON.stringify({ records: [{ id: 'a', note: ',"metadata":{"pageSize":99}' }], metadata: { pageSize: 10, pageNumber: 1, totalCount: 1, totalPages: 1 } });
      res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'x-service': 'tenant', 'proxy-authenticate': 'Basic', trailer: 'x-later' });
      res.end(body);
    });
    const upstreamUrl = await listen(upstream);
    gateway = createGatewayApp({
      upstreams: { tenant: upstreamUrl },
      upstreamTimeoutMs: 2000,
      authMode: 'jwt',
      verifier: createTokenVerifier({ issuer: 'https://idp.test', audience: 'nhsn', jwks: { keys: [jwk] }, clockSkewSeconds: 0 }),
      logger: silentLogger(),
      docs: false,
    }).finish();
    gatewayServer = http.createServer(gateway);
    gatewayUrl = await listen(gatewayServer);
  });

  after(async () => {
    await close(gatewayServer);
    await close(upstream);
  });

  beforeEach(() => { seen.length = 0; });

  /** What a client and the service see of one request, without what differs by request (trace ids, dates). */
  const comparable = (answer: Answer, service: { url: string; headers: IncomingHttpHeaders } | undefined) => {
    const { traceparent, ...serviceHeaders } = service?.headers ?? {};
    const answerHeaders = Object.fromEntries([...answer.headers].filter(([name]) => !['date', 'x-trace-id'].includes(name)));
    return { status: answer.status, text: answer.text, answerHeaders, url: service?.url, serviceHeaders, traced: typeof traceparent === 'string' };
  };

  it('a paged GET: the same answer and the same request to the service, the first time (express) and again (pass-through)', async () => {
    const authorization = await bearer();
    const headers = { authorization, 'x-forwarded-for': '10.0.0.1', 'x-forwarded-host': 'spoofed.example', 'proxy-authorization': 'Basic eA==', 'x-custom': 'kept' };
    const first = comparable(await get(`${gatewayUrl}/api/tenant/facilities?pageSize=50&pageNumber=0`, headers), seen[0]);
    const again = comparable(await get(`${gatewayUrl}/api/tenant/facilities?pageSize=50&pageNumber=0`, headers), seen[1]);
    expect(again).to.deep.equal(first);
    expect(first.url, 'the gateway paging pattern').to.equal('/api/facilities?pageSize=20&pageNumber=1');
    expect(JSON.parse(first.answerHeaders['x-pagination'] ?? 'null')).to.deep.equal({ pageSize: 10, pageNumber: 1, totalCount: 1, totalPages: 1 });
    expect(first.answerHeaders).to.include({ 'x-service': 'tenant', 'content-length': String(Buffer.byteLength(first.text)) });
    expect(first.answerHeaders).to.not.have.any.keys('proxy-authenticate', 'trailer');
    expect(first.serviceHeaders).to.include({ authorization, 'x-custom': 'kept', 'x-forwarded-prefix': '/api/tenant', 'x-forwarded-proto': 'http' });
    expect(first.serviceHeaders['x-forwarded-for']).to.match(/^10\.0\.0\.1, /);
    expect(first.serviceHeaders['x-forwarded-host']).to.equal(new URL(gatewayUrl).host);
    expect(first.serviceHeaders).to.not.have.any.keys('proxy-authorization');
    expect(first.traced).to.equal(true);
  });

  it('a Problem Details answer names the gateway\'s path, both ways', async () => {
    const authorization = await bearer();
    const first = await get(`${gatewayUrl}/api/tenant/missing?x=1`, { authorization });
    const again = await get(`${gatewayUrl}/api/tenant/missing?x=1`, { authorization });
    expect(comparable(again, seen[1])).to.deep.equal(comparable(first, seen[0]));
    expect(first.status).to.equal(404);
    expect(JSON.parse(first.text)).to.include({ instance: '/api/tenant/missing', detail: 'No resource at GET /api/tenant/missing' });
  });

  it('traceparent: the caller\'s goes to the service; without one the service gets the gateway\'s, whose trace id the answer carries', async () => {
    const authorization = await bearer();
    await get(`${gatewayUrl}/api/tenant/facilities`, { authorization }); // verified: the next ones pass through
    const traceparent = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';
    const given = await get(`${gatewayUrl}/api/tenant/facilities`, { authorization, traceparent });
    expect(seen[1]?.headers.traceparent).to.equal(traceparent);
    expect(given.headers.get('x-trace-id')).to.equal('4bf92f3577b34da6a3ce929d0e0e4736');
    const started = await get(`${gatewayUrl}/api/tenant/facilities`, { authorization });
    const sent = parseTraceparent(String(seen[2]?.headers.traceparent));
    expect(sent?.traceId).to.be.a('string').and.equal(started.headers.get('x-trace-id'));
  });

  it('records what it passes on in http_request_duration_seconds, as express does', async () => {
    const authorization = await bearer();
    await get(`${gatewayUrl}/api/tenant/facilities`, { authorization });
    const count = async () => Number(/http_request_duration_seconds_count\{[^}]*method="GET",route="unmatched",status_code="200"\} (\d+)/.exec((await get(`${gatewayUrl}/metrics`)).text)?.[1]);
    const before = await count();
    await get(`${gatewayUrl}/api/tenant/facilities`, { authorization });
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(await count()).to.equal(before + 1);
  });

  it('does not pass a remembered token on past its exp: express verifies it again, and refuses it', async function () {
    this.timeout(10_000);
    const authorization = await bearer(Math.floor(Date.now() / 1000) + 2);
    expect((await get(`${gatewayUrl}/api/tenant/facilities`, { authorization })).status).to.equal(200);
    expect((await get(`${gatewayUrl}/api/tenant/facilities`, { authorization })).status).to.equal(200);
    await new Promise((resolve) => setTimeout(resolve, 2100));
    seen.length = 0;
    const late = await get(`${gatewayUrl}/api/tenant/facilities`, { authorization });
    expect(late.status).to.equal(401);
    expect(late.headers.get('www-authenticate')).to.contain('invalid_token');
    expect(seen).to.deep.equal([]);
  });
});

describe('admin gateway proxy shortcuts give what the long way gave', () => {
  it('the service\'s path and query, as text, are what URL made of them', () => {
    const bases = ['http://127.0.0.1:9', 'http://svc.internal:8080/prefix/', 'https://[::1]/p'];
    const proxies = bases.map((base) => ({ base, proxy: createProxy({ upstreams: { tenant: base }, timeoutMs: 500, sendProblem: () => undefined }) }));
    const characters = fc.constantFrom(...'aZ09-._~!$&()*+,;=:@/%?#\'"<>`{}|^[] \u00e9'.split(''), '%2e', '%20', '%41', '..', '.');
    fc.assert(fc.property(fc.array(characters, { maxLength: 24 }).map((parts) => `/api/tenant/${parts.join('')}`), (target) => {
      const checked = checkRequestTarget(target);
      if (!checked.ok) return;
      for (const { base, proxy } of proxies) {
        const routed = proxy.route(checked);
        const rest = /^\/api\/[^/]+(\/.*)?$/i.exec(checked.path)?.[1] ?? '';
        const url = new URL(base); // as the gateway did it before the shortcut
        url.pathname = `${url.pathname.replace(/\/$/, '')}/api${rest}`;
        url.search = checked.search;
        expect(routed && `${routed.pathname}${routed.search}`, `${base} ${target}`).to.equal(`${url.pathname}${url.search}`);
      }
    }), { numRuns: 3000 });
  });

  it('the paging metadata read from the tail of a paged answer is what parsing the whole answer reads', () => {
    const metadata = fc.record({ pageSize: fc.integer(), pageNumber: fc.integer(), totalCount: fc.nat(), totalPages: fc.nat() });
    const tricky = fc.constantFrom(',"metadata":{"pageSize":1,"pageNumber":1,"totalCount":1,"totalPages":1}', '"}', '\\', ',"metadata":{');
    const record = fc.oneof(fc.jsonValue({ maxDepth: 3 }), fc.record({ note: tricky }), fc.record({ metadata }));
    const body = fc.oneof(
      fc.record({ records: fc.array(record, { maxLength: 5 }), metadata }),
      fc.record({ records: fc.array(record, { maxLength: 5 }), metadata: fc.jsonValue({ maxDepth: 2 }) }),
      fc.record({ metadata, records: fc.array(record, { maxLength: 3 }) }),
      fc.record({ records: fc.array(record, { maxLength: 3 }), metadata, after: fc.jsonValue({ maxDepth: 1 }) }),
      fc.jsonValue({ maxDepth: 3 }),
    );
    fc.assert(fc.property(body, fc.boolean(), (value, indented) => {
      const text = indented ? JSON.stringify(value, null, 1) : JSON.stringify(value);
      expect(pagingMetadataOfJson(Buffer.from(text)), text).to.deep.equal(pagingMetadataOf(JSON.parse(text)));
    }), { numRuns: 3000 });
    expect(pagingMetadataOfJson(Buffer.from('not json'))).to.equal(undefined);
    expect(pagingMetadataOfJson(Buffer.from('{"records":[],"metadata":{"pageSize":1,"pageNumber":1,"totalCount":0,"totalPages":0}}')))
      .to.deep.equal({ pageSize: 1, pageNumber: 1, totalCount: 0, totalPages: 0 });
  });
});
