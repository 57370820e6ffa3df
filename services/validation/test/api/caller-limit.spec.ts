/**
 * validation.max-requests-per-caller: at most N validating requests of one caller (token subject)
 * run at a time; the next is answered 429 Problem Details with Retry-After, other callers unaffected.
 */
import { expect } from 'chai';
import { Router } from 'express';
import request from 'supertest';
import { createHttpApp, OpenApiBuilder } from '#adapters/http/index.js';
import { silentLogger } from '#adapters/observability/logger.js';
import { CALLER_RETRY_AFTER_SECONDS, perCallerLimit } from '#validation/adapters/http/caller-limit.js';

describe('validation API: requests per caller', () => {
  it('the caller over its limit gets 429 with Retry-After; another caller and the same caller afterwards are served', async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => { release = resolve; });
    const router = Router();
    // stands for the auth middleware: the principal's subject from a test header
    router.use((req, res, next) => {
      res.locals.principal = { kind: 'token', subject: req.header('x-test-subject') ?? 'anonymous', permissions: [], roles: [], claims: {} };
      next();
    });
    router.post('/api/$validate', perCallerLimit(2), async (_req, res) => {
      await gate;
      res.json({ ok: true });
    });
    const http = createHttpApp({ serviceName: 'caller-limit-test', logger: silentLogger(), openApi: new OpenApiBuilder({ title: 't', version: 't' }) });
    http.app.use(router);
    const app = http.finish();
    const server = app.listen(0);
    try {
      const send = (subject: string) => request(server).post('/api/$validate').set('x-test-subject', subject).send({});
      const running = [send('alice').then((r) => r.status), send('alice').then((r) => r.status)];
      await new Promise((resolve) => setTimeout(resolve, 200));
      const refused = await send('alice').expect(429);
      expect(refused.headers['retry-after']).to.equal(String(CALLER_RETRY_AFTER_SECONDS));
      expect(refused.headers['content-type']).to.match(/application\/problem\+json/);
      expect(refused.body).to.include({ status: 429, title: 'Too many requests' });
      expect(refused.body.type).to.match(/too-many-requests$/);
      const bob = send('bob').then((r) => r.status);
      release();
      expect(await Promise.all(running)).to.deep.equal([200, 200]);
      expect(await bob).to.equal(200);
      await send('alice').expect(200);
    } finally {
      server.close();
    }
  });
});
