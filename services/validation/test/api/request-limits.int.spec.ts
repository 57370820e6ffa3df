/**
 * What the service's own HTTP frame decides before a validation route runs, with the default
 * configuration: the size limit of a $validate body (`validate.body-limit`, not the app-wide
 * `http.json-limit`), and which POSTs any authenticated user may make (the processing routes,
 * matched as whole paths).
 */
import { expect } from 'chai';
import express from 'express';
import request from 'supertest';
import { loadConfig } from '#adapters/config/index.js';
import { createHttpApp, OpenApiBuilder } from '#adapters/http/index.js';
import { silentLogger } from '#adapters/observability/logger.js';
import type { Database } from '#adapters/persistence/database.js';
import { adminWritesExceptProcessing } from '#adapters/runtime/admin-writes.js';
import { PROCESSING_ROUTES, VALIDATE_BODY_ROUTES, validateRouteBodyLimits } from '#validation/adapters/http/validate-routes.js';
import { createValidationApiModule } from '#validation/composition.js';
import { pgValidationApiRepositories } from '#validation/adapters/persistence/validation-api-repositories.js';
import { validationSchema } from '#validation/config.js';
import { ScriptedValidator } from './support/app.js';
import { dropValidationTestDatabase, openValidationTestDatabase, uniqueDbName } from './support/database.js';

/** A Bundle of about `bytes` bytes of JSON. */
function bundleOf(bytes: number): Record<string, unknown> {
  const entry = Array.from({ length: Math.ceil(bytes / 1_000) }, (_, i) => ({ resource: { resourceType: 'Basic', id: `b${i}`, code: { text: 'x'.repeat(940) } } }));
  return { resourceType: 'Bundle', type: 'collection', entry };
}

describe('validation service: request size limits and processing routes with the default configuration (HTTP)', function () {
  this.timeout(60_000);
  const config = loadConfig(validationSchema, { AUTH_MODE: 'none' });
  const dbName = uniqueDbName('limits');
  let db: Database;
  let app: express.Express;
  const validator = new ScriptedValidator();

  before(async () => {
    db = await openValidationTestDatabase(dbName);
    const openApi = new OpenApiBuilder({ title: 'Validation API (test)', version: 'test' });
    const module = createValidationApiModule({ repositories: pgValidationApiRepositories(db.orm), openApi, validator, validateBodyLimit: config.validateBodyLimit });
    // As the service runtime builds it from the configuration (main.ts).
    const http = createHttpApp({
      serviceName: 'validation-limits-test', logger: silentLogger(), openApi,
      jsonLimit: config.httpJsonLimit, rawLimit: config.httpRawLimit, routeBodyLimits: validateRouteBodyLimits(config.validateBodyLimit),
      ownBodyRoutes: VALIDATE_BODY_ROUTES,
    });
    http.app.use(module.router);
    app = http.finish();
  });
  after(async () => {
    await db?.close();
    await dropValidationTestDatabase(dbName);
  });

  it('a 2 MB Bundle to $validate is validated although http.json-limit is 1 MB (validate.body-limit, 50 MB, applies)', async () => {
    expect(config.httpJsonLimit).to.equal(1024 * 1024);
    expect(config.validateBodyLimit).to.equal(50 * 1024 * 1024);
    const body = JSON.stringify(bundleOf(2 * 1024 * 1024));
    expect(body.length).to.be.greaterThan(2 * 1024 * 1024);
    for (const route of ['/api/$validate', '/api/$validate-and-categorize', '/api/$VALIDATE/']) {
      const res = await request(app).post(route).type('application/fhir+json').send(body);
      expect(res.status, route).to.equal(200);
    }
    expect(validator.calls.at(-1)!.resource.resourceType).to.equal('Bundle');
  });

  it('other JSON routes keep http.json-limit: a 2 MB category is refused with 413', async () => {
    const res = await request(app).put('/api/category/big').send({ id: 'big', title: 'x', severity: 'ERROR', acceptable: false, guidance: 'x'.repeat(2 * 1024 * 1024) }).expect(413);
    expect(res.body).to.include({ status: 413, type: 'https://nhsn-link.example/problems/payload-too-large' });
  });

  it('processing routes are exempt from the admin permission only as whole paths', async () => {
    const api = express();
    // An authenticated user without the admin permission.
    api.use('/api', (_req, res, next) => { res.locals.principal = { kind: 'token', subject: 'reader', roles: [], permissions: ['read'], claims: {} }; next(); },
      adminWritesExceptProcessing(config.authAdminPermission, PROCESSING_ROUTES));
    api.all('/{*path}', (_req, res) => { res.status(200).json({ reached: true }); });
    api.use((error: { status?: number }, _req: express.Request, res: express.Response, _next: express.NextFunction) => { res.status(error.status ?? 500).end(); });

    for (const path of ['/api/$validate', '/api/$validate-and-categorize', '/api/$categorize', '/api/$Validate', '/api/$validate/']) {
      expect((await request(api).post(path).send({})).status, path).to.equal(200);
    }
    for (const path of ['/api/category/x$validate', '/api/foo/$validate', '/api/$validatex', '/api/x/$categorize', '/api/category/$validate-and-categorize', '/api/artifact/$validate']) {
      expect((await request(api).post(path).send({})).status, path).to.equal(403);
    }
    // Writes other than POST never are: a DELETE of a processing path needs the permission too.
    expect((await request(api).delete('/api/$validate')).status).to.equal(403);
    expect((await request(api).get('/api/category')).status).to.equal(200);
  });
});
