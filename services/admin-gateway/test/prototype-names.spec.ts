/**
 * Names that are members of every JavaScript object (`constructor`, `__proto__`, `toString` …) are
 * not services: the gateway's lookups of a component by name find only the configured ones.
 */
import { expect } from 'chai';
import request from 'supertest';
import { silentLogger } from '#adapters/observability/logger.js';
import { createGatewayApp } from '#gateway/gateway-app.js';
import { createProxy, type ProxyTarget } from '#gateway/proxy/forward.js';
import { checkRequestTarget } from '#gateway/proxy/gateway-path.js';

const PROTOTYPE_NAMES = ['constructor', '__proto__', 'toString', 'hasOwnProperty', 'valueOf', '__defineGetter__'];

describe('admin gateway: component names that are Object.prototype members', () => {
  const gateway = createGatewayApp({
    upstreams: { tenant: 'http://127.0.0.1:9' }, upstreamTimeoutMs: 500, authMode: 'none', logger: silentLogger(),
  }).finish();

  it('/docs/<name>.json answers 404 naming the unknown service, not 502', async () => {
    for (const name of PROTOTYPE_NAMES) {
      const res = await request(gateway).get(`/docs/${name}.json`);
      expect(res.status, name).to.equal(404);
      expect(res.body.detail, name).to.equal(`No service named "${name.toLowerCase()}" behind this gateway.`);
    }
  });

  it('resolves no proxy target for them', () => {
    const proxy = createProxy({ upstreams: { tenant: 'http://127.0.0.1:9' }, timeoutMs: 500, sendProblem: () => undefined });
    const resolve = (target: string): ProxyTarget | undefined => {
      const checked = checkRequestTarget(target);
      return checked.ok ? proxy.route(checked) : undefined;
    };
    for (const name of PROTOTYPE_NAMES) expect(resolve(`/api/${name}/x`), name).to.equal(undefined);
    const tenant = resolve('/api/tenant/x');
    expect(tenant && `${tenant.upstream.origin}${tenant.pathname}${tenant.search}`).to.equal('http://127.0.0.1:9/api/x');
  });
});
