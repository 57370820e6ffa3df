import { expect } from 'chai';
import request from 'supertest';
import { loadConfig } from '#adapters/config/index.js';
import { createHttpApp, OpenApiBuilder } from '#adapters/http/index.js';
import { silentLogger } from '#adapters/observability/logger.js';
import { tenantSchema } from '#tenant/config.js';
import { createTenantModule, type TenantModule } from '#tenant/composition.js';
import { openTenantTestDatabase, type TenantTestDatabase } from './support/tenant-database.js';

const ENV = { AUTH_MODE: 'none' };

describe('tenant module: configuration and wiring', function () {
  this.timeout(30_000);
  let db: TenantTestDatabase;
  let tenant: TenantModule;

  before(async () => {
    db = await openTenantTestDatabase('module', '2026-05-31T23:00:00Z');
  });

  after(async () => {
    await tenant?.stop();
    await db?.close();
  });

  it('reads MeasureConfig__CheckIfMeasureExists under its specification name and the derived name, default true', () => {
    expect(loadConfig(tenantSchema, ENV).checkIfMeasureExists).to.equal(true);
    expect(loadConfig(tenantSchema, { ...ENV, MeasureConfig__CheckIfMeasureExists: 'false' }).checkIfMeasureExists).to.equal(false);
    expect(loadConfig(tenantSchema, { ...ENV, MEASURECONFIG__CHECKIFMEASUREEXISTS: 'false' }).checkIfMeasureExists).to.equal(false);
    expect(() => loadConfig(tenantSchema, { ...ENV, SCHEDULER_POLL_INTERVAL_MS: '10' })).to.throw(/scheduler\.poll-interval-ms/);
    const config = loadConfig(tenantSchema, ENV);
    expect(config).to.include({ dbName: 'tenant', schedulerEnabled: true, schedulerPollIntervalMs: 1000, httpPort: 8082 });
  });

  it('registers the routes, audits the authenticated user, and its started scheduler fires due periods', async () => {
    const config = { ...loadConfig(tenantSchema, ENV), checkIfMeasureExists: false, schedulerPollIntervalMs: 50 };
    tenant = createTenantModule({ orm: db.orm, config, logger: silentLogger(), catalog: db.catalog, clock: db.clock });
    const openApi = new OpenApiBuilder({ title: 'Tenant API', version: 'test' });
    const http = createHttpApp({ serviceName: 'tenant-module-test', logger: silentLogger(), openApi });
    http.app.use((_req, res, next) => {
      res.locals.principal = { kind: 'token', subject: 'user-7', permissions: ['IsLinkAdmin'], roles: [], claims: { email: 'ops@example.org' } };
      next();
    });
    tenant.register(http.app, openApi);
    const app = http.finish();

    await request(app).post('/api/facilities').send({ facilityId: 'MOD', timeZone: 'UTC', scheduledReports: { monthly: ['M'] } }).expect(201);
    const [audit] = await db.outbox('AuditableEventOccurred');
    expect(audit!.payload).to.include({ user: 'ops@example.org', userId: 'user-7' });
    expect((await request(app).get('/api/service-info').expect(200)).body).to.include({ name: 'Link Tenant Service', version: '1.0.0' });

    db.clock.set('2026-06-01T00:00:05Z');
    tenant.start();
    const deadline = Date.now() + 10_000;
    while ((await db.outbox('ReportScheduled')).length === 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 25));
    await tenant.stop();
    expect((await db.outbox('ReportScheduled')).map((row) => row.msg_id)).to.deep.equal(['MOD-Monthly-2026-06-01T00:00:00.000Z']);
  });
});
