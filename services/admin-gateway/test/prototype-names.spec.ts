/**
 * Names that are members of every JavaScript object (`constructor`, `__proto__`, `toString` …) are
 * not services: the gateway's lookups of a component by name find only the configured ones.
 */
import { expect } from 'chai';
import request from 'supertest';
import { silentLogger } from '#adapters/observability/logger.js';
import { createGatewayApp } from '#gateway/gateway-app.js';
import { resolveTarget } from '#gateway/proxy/forward.js';

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
    for (const name of PROTOTYPE_NAMES) expect(resolveTarget(`/api/${name}/x`, { tenant: 'http://127.0.0.1:9' }), name).to.equal(undefined);
    expect(resolveTarget('/api/tenant/x', { tenant: 'http://127.0.0.1:9' })?.url.href).to.equal('http://127.0.0.1:9/api/x');
  });
});
