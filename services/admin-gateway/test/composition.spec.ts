import 'reflect-metadata';
import { expect } from 'chai';
import express from 'express';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import request from 'supertest';
import { TokenRejectedError, type TokenVerifier } from '#adapters/auth/index.js';
import { ConfigError, loadConfig } from '#adapters/config/index.js';
import { silentLogger } from '#adapters/observability/logger.js';
import { buildGatewayContainer, TOKENS } from '#gateway/composition.js';
import { gatewaySchema } from '#gateway/config.js';

describe('admin gateway composition root (inversify)', () => {
  let upstream: Server;
  let upstreamUrl: string;

  before(async () => {
    const service = express();
    service.get('/api/facilities', (_req, res) => { res.json({ records: [] }); });
    upstream = await new Promise<Server>((resolve) => { const s = service.listen(0, '127.0.0.1', () => resolve(s)); });
    upstreamUrl = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;
  });

  after(() => new Promise<void>((resolve) => { upstream.closeAllConnections(); upstream.close(() => resolve()); }));

  it('resolves every token with auth.mode none on loopback (no verifier), once per container', () => {
    const config = loadConfig(gatewaySchema, { AUTH_MODE: 'none', HTTP_HOST: '127.0.0.1' });
    const container = buildGatewayContainer(config);
    expect(container.get(TOKENS.config)).to.equal(config);
    expect(container.get(TOKENS.verifier)).to.equal(undefined);
    expect(container.get(TOKENS.logger).info).to.be.a('function');
    expect(container.get(TOKENS.logger)).to.equal(container.get(TOKENS.logger));
    const quiet = buildGatewayContainer(config);
    quiet.rebind(TOKENS.logger).toConstantValue(silentLogger()); // the app warns that auth is off
    expect(quiet.get(TOKENS.gatewayApp).app).to.be.a('function');
    expect(quiet.get(TOKENS.gatewayApp)).to.equal(quiet.get(TOKENS.gatewayApp));
  });

  it('resolving the verifier with the default configuration (jwt, no issuer) throws the ConfigError main.ts reports', () => {
    const container = buildGatewayContainer(loadConfig(gatewaySchema, {}));
    container.rebind(TOKENS.logger).toConstantValue(silentLogger());
    expect(() => container.get(TOKENS.verifier)).to.throw(ConfigError, /auth\.issuer/);
  });

  it('resolving the verifier with auth.mode none on the default interface (0.0.0.0) throws the ConfigError main.ts reports', () => {
    const container = buildGatewayContainer(loadConfig(gatewaySchema, { AUTH_MODE: 'none' }));
    container.rebind(TOKENS.logger).toConstantValue(silentLogger());
    expect(() => container.get(TOKENS.verifier)).to.throw(ConfigError, /auth\.mode \(AUTH_MODE\) is none .* loopback/);
  });

  it('the app guards /api with the rebound verifier', async () => {
    const container = buildGatewayContainer(loadConfig(gatewaySchema, { GATEWAY_TENANT_URL: upstreamUrl }));
    const verified: string[] = [];
    const verifier: TokenVerifier = {
      verify: async (token) => {
        verified.push(token);
        if (token !== 'good') throw new TokenRejectedError('signature', 'not the good token');
        return { kind: 'token', subject: 'operator', permissions: [], roles: [], claims: {} };
      },
    };
    container.rebind(TOKENS.verifier).toConstantValue(verifier);
    container.rebind(TOKENS.logger).toConstantValue(silentLogger());
    const app = container.get(TOKENS.gatewayApp).finish();

    await request(app).get('/api/tenant/facilities').set('authorization', 'Bearer good').expect(200);
    const rejected = await request(app).get('/api/tenant/facilities').set('authorization', 'Bearer other');
    expect(rejected.status).to.equal(401);
    expect(verified).to.deep.equal(['good', 'other']);
  });
});
