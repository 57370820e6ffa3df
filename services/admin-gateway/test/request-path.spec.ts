/**
 * Issue 28, item 4: the gateway routes only the path it checked. Requests go out with node:http, which
 * sends the path as written (fetch would resolve the dot segments before they left the client).
 */
import { expect } from 'chai';
import http, { type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { silentLogger } from '#adapters/observability/logger.js';
import { createGatewayApp } from '#gateway/gateway-app.js';
import { checkRequestTarget } from '#gateway/proxy/gateway-path.js';

interface Answer { status: number; body: { detail?: string; instance?: string; status?: number; traceId?: string } }

function rawGet(base: string, path: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const { hostname, port } = new URL(base);
    const req = http.request({ hostname, port, path, method: 'GET' }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => { text += chunk; });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text ? JSON.parse(text) as Answer['body'] : {} }));
    });
    req.on('error', reject);
    req.end();
  });
}

function listen(server: Server): Promise<string> {
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`)));
}

function close(server: Server): Promise<void> {
  return new Promise((resolve) => { server.closeAllConnections(); server.close(() => resolve()); });
}

describe('admin gateway: the checked path is the routed path', () => {
  let validation: Server;
  let tenant: Server;
  let gateway: Server;
  let gatewayUrl: string;
  const seen: Array<{ service: string; url: string }> = [];

  before(async () => {
    const service = (name: string) => http.createServer((req, res) => {
      seen.push({ service: name, url: req.url ?? '' });
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{}');
    });
    validation = service('validation');
    tenant = service('tenant');
    const app = createGatewayApp({
      upstreams: { validation: await listen(validation), tenant: await listen(tenant) },
      upstreamTimeoutMs: 2000, authMode: 'none', logger: silentLogger(), docs: false,
    }).finish();
    gateway = http.createServer(app);
    gatewayUrl = await listen(gateway);
  });

  after(async () => {
    await close(gateway);
    await close(validation);
    await close(tenant);
  });

  beforeEach(() => { seen.length = 0; });

  const traversals: Array<[string, string]> = [
    ['plain dot segments into another service', '/api/validation/../tenant/facilities'],
    ['plain dot segments out of /api (to the gateway\'s own /metrics)', '/api/validation/../../metrics'],
    ['a single dot segment', '/api/tenant/./facilities'],
    ['percent-encoded dot segments', '/api/validation/%2e%2e/tenant/facilities'],
    ['percent-encoded dot segments, upper case', '/api/validation/%2E%2E/%2E%2E/metrics'],
    ['mixed plain and encoded dots', '/api/validation/.%2e/tenant/facilities'],
    ['double-encoded dot segments', '/api/validation/%252e%252e/tenant/facilities'],
    ['double-encoded slash', '/api/validation/..%252ftenant/facilities'],
    ['an encoded slash', '/api/validation/..%2ftenant%2ffacilities'],
    ['an encoded backslash', '/api/validation/..%5ctenant/facilities'],
    ['a raw backslash', '/api/validation/..\\tenant/facilities'],
    ['malformed percent-encoding', '/api/tenant/facilities/%zz'],
    ['an encoded NUL', '/api/tenant/facilities/a%00b'],
  ];

  for (const [name, path] of traversals) {
    it(`refuses ${name} with 400 Problem Details, and no service is called`, async () => {
      const answer = await rawGet(gatewayUrl, path);
      expect(answer.status, path).to.equal(400);
      expect(answer.body.status).to.equal(400);
      expect(answer.body.detail).to.be.a('string').and.match(/request (path|target)/);
      expect(answer.body.traceId).to.be.a('string');
      expect(seen, path).to.deep.equal([]);
    });
  }

  it('routes an ordinary path byte for byte, with encodings that are not separators kept as sent', async () => {
    expect((await rawGet(gatewayUrl, '/api/validation/$validate?x=1')).status).to.equal(200);
    expect((await rawGet(gatewayUrl, '/api/tenant/facilities/a%2eb..c%20d')).status).to.equal(200);
    expect(seen).to.deep.equal([
      { service: 'validation', url: '/api/$validate?x=1' },
      { service: 'tenant', url: '/api/facilities/a%2eb..c%20d' },
    ]);
  });

  it('checkRequestTarget: the accepted path is returned as sent, the query apart', () => {
    expect(checkRequestTarget('/api/tenant/facilities?sortBy=../x')).to.deep.equal({ ok: true, path: '/api/tenant/facilities', search: '?sortBy=../x' });
    expect(checkRequestTarget('http://other.example/api/tenant').ok).to.equal(false);
    expect(checkRequestTarget('/api/tenant/100%25').ok).to.equal(true);
    expect(checkRequestTarget('/api/tenant/%25').ok).to.equal(true);
  });
});
