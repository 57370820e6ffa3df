import { expect } from 'chai';
import request from 'supertest';
import { silentLogger } from '../../observability/logger.js';
import { createMetrics } from '../../observability/metrics.js';
import { createHttpApp, listenMetrics, OpenApiBuilder } from '../index.js';

/** What the API port shows besides the routes: /metrics and the documents only when asked for. */
describe('adapters/http: metrics port and optional documents', () => {
  const app = (options: { docs?: boolean; serveMetrics?: boolean; docsGuard?: import('express').RequestHandler }) => {
    const metrics = createMetrics('exposure-test');
    const http = createHttpApp({ serviceName: 'exposure-test', logger: silentLogger(), metrics, openApi: new OpenApiBuilder({ title: 'T', version: '1' }), ...options });
    return { app: http.finish(), metrics };
  };

  it('serves /metrics, /api-docs and /swagger on the API port by default (local runs)', async () => {
    const { app: local } = app({});
    await request(local).get('/metrics').expect(200);
    await request(local).get('/api-docs').expect(200);
    await request(local).get('/swagger/').expect(200);
  });

  it('with a metrics port, /metrics leaves the API port and is served alone on its own listener', async () => {
    const { app: api, metrics } = app({ serveMetrics: false });
    expect((await request(api).get('/metrics')).status).to.equal(404);
    const scraper = await listenMetrics(metrics.registry, 0, '127.0.0.1');
    try {
      expect(scraper.port).to.not.equal(0);
      const scraped = await fetch(`${scraper.url}/metrics`);
      expect(scraped.status).to.equal(200);
      expect(await scraped.text()).to.contain('http_request_duration_seconds');
      for (const path of ['/health', '/api-docs', '/swagger/', '/api/anything']) expect((await fetch(`${scraper.url}${path}`)).status, path).to.equal(404);
    } finally {
      await scraper.close(100);
    }
  });

  it('with docs off, neither the OpenAPI document nor the Swagger UI is served', async () => {
    const { app: quiet } = app({ docs: false });
    expect((await request(quiet).get('/api-docs')).status).to.equal(404);
    expect((await request(quiet).get('/swagger/')).status).to.equal(404);
    await request(quiet).get('/health').expect(200);
  });

  it('spec line 81, production: with a docs guard (the AuthenticatedUser policy) the document needs a token, and the UI asks for it', async () => {
    const { app: guarded } = app({
      docsGuard: (req, res, next) => (req.headers.authorization === 'Bearer ok' ? next() : void res.status(401).json({ status: 401 })),
    });
    await request(guarded).get('/api-docs').expect(401);
    expect((await request(guarded).get('/api-docs').set('authorization', 'Bearer ok').expect(200)).body.openapi).to.equal('3.1.0');
    await request(guarded).get('/swagger/').expect(200);
    const init = await request(guarded).get('/swagger/swagger-ui-init.js').expect(200);
    expect(init.text).to.contain('requestInterceptor').and.contain('Authorization').and.contain('"swaggerUrl": "../api-docs"');
    // Without the guard the UI asks for nothing.
    const { app: open } = app({});
    expect((await request(open).get('/swagger/swagger-ui-init.js')).text).to.not.contain('requestInterceptor');
  });
});
