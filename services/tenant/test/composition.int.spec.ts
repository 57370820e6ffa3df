/**
 * The tenant service's container (composition.ts) with the real default configuration, the real
 * PostgreSQL (a unique database, dropped after) and NATS, and a minimal rest of the runtime frame.
 */
import 'reflect-metadata';
import { expect } from 'chai';
import type { Container } from 'inversify';
import { loadConfig } from '#adapters/config/index.js';
import { OpenApiBuilder } from '#adapters/http/index.js';
import { connectNats, type NatsHandle } from '#adapters/messaging/connection.js';
import { createMetrics } from '#adapters/observability/metrics.js';
import { silentLogger } from '#adapters/observability/logger.js';
import type { RuntimeParts } from '#adapters/runtime/container.js';
import { catalog as productionCatalog } from '#contracts/catalog.js';
import { MikroTenantStore } from '#tenant/adapters/persistence/tenant-store.js';
import { ReportScheduler } from '#tenant/application/report-scheduler.js';
import { buildTenantContainer, TOKENS, type TenantServiceConfig } from '#tenant/composition.js';
import { ManualClock, systemClock } from '#tenant/domain/clock.js';
import type { TenantStore } from '#tenant/domain/ports/tenant-store.js';
import { tenantServiceSchema } from '#tenant/service-schema.js';
import { SigningKeyService } from '#tenant/signing-keys/index.js';
import { openTenantTestDatabase, type TenantTestDatabase } from './support/tenant-database.js';

describe('tenant composition root (inversify)', function () {
  this.timeout(30_000);
  let config: TenantServiceConfig;
  let db: TenantTestDatabase;
  let nats: NatsHandle;
  let notified = 0;
  const containers: Container[] = [];

  const build = () => {
    const runtime: RuntimeParts = {
      logger: silentLogger(), metrics: createMetrics('tenant-di-test'), db: db.database, nats,
      outbox: { notify: () => { notified += 1; } }, openApi: new OpenApiBuilder({ title: 'Tenant', version: 'test' }),
    };
    const container = buildTenantContainer(config, runtime);
    containers.push(container);
    return container;
  };

  before(async () => {
    config = loadConfig(tenantServiceSchema, { AUTH_MODE: 'none', MeasureConfig__CheckIfMeasureExists: 'false' });
    db = await openTenantTestDatabase('di');
    nats = await connectNats({ servers: [process.env.NATS_URL ?? '127.0.0.1:4222'], name: 'tenant-di-test', logger: silentLogger() });
  });

  after(async () => {
    for (const container of containers) await container.get(TOKENS.tenantModule).stop();
    await nats?.close();
    await db?.close();
  });

  it('resolves every token to its production adapter, once per container', () => {
    const container = build();
    for (const [name, id] of Object.entries(TOKENS)) {
      if (name === 'cache') expect(container.get(id), 'the tenant service has no cache').to.equal(undefined);
      else expect(container.get(id), name).to.not.equal(undefined);
    }
    expect(container.get(TOKENS.config)).to.equal(config);
    expect(container.get(TOKENS.catalog)).to.equal(productionCatalog);
    expect(container.get(TOKENS.clock)).to.equal(systemClock);
    expect(container.get(TOKENS.tenantStore)).to.be.instanceOf(MikroTenantStore);
    expect(container.get(TOKENS.scheduler)).to.be.instanceOf(ReportScheduler);
    expect(container.get(TOKENS.scheduler)).to.equal(container.get(TOKENS.tenantModule).scheduler);
    expect(container.get(TOKENS.signingKeyModule).service).to.be.instanceOf(SigningKeyService);
    expect(container.get(TOKENS.tenantModule)).to.equal(container.get(TOKENS.tenantModule));
  });

  it('the use cases and the scheduler run on the rebound store, clock and catalog', async () => {
    const container = build();
    const clock = new ManualClock('2026-05-31T23:00:00Z');
    const real = new MikroTenantStore({ orm: db.orm, catalog: db.catalog });
    let writes = 0;
    const store: TenantStore = {
      write: (work) => { writes += 1; return real.write(work); },
      read: (work) => real.read(work),
    };
    container.rebind(TOKENS.clock).toConstantValue(clock);
    container.rebind(TOKENS.tenantStore).toConstantValue(store);
    container.rebind(TOKENS.catalog).toConstantValue(db.catalog);

    const tenant = container.get(TOKENS.tenantModule);
    const facility = await tenant.services.facilities.create(
      { facilityId: 'DI', timeZone: 'UTC', scheduledReports: { monthly: ['M'] } }, { userId: 'u-1', user: 'ops@example.org' });
    expect(facility.createDate.toISOString()).to.equal('2026-05-31T23:00:00.000Z');
    expect(writes).to.equal(1);

    clock.set('2026-06-01T00:00:05Z');
    const tick = await container.get(TOKENS.scheduler).tick();
    expect(tick.fired).to.equal(1);
    expect(writes).to.equal(2);
    expect((await db.outbox('ReportScheduled')).map((row) => row.msg_id)).to.deep.equal(['DI-Monthly-2026-06-01T00:00:00.000Z']);
    // Not the container's outbox hook: the rebound store decides what happens after a commit.
    expect(notified).to.equal(0);
  });

  it('the bound store tells the outbox relay after each commit, so events leave at once', async () => {
    const container = build();
    container.rebind(TOKENS.catalog).toConstantValue(db.catalog);
    const before = notified;
    await container.get(TOKENS.tenantModule).services.facilities.create({ facilityId: 'DI-2', timeZone: 'UTC' }, { userId: null, user: 'SystemUser' });
    expect(notified).to.equal(before + 1);
    const [audit] = (await db.outbox('AuditableEventOccurred')).filter((row) => JSON.stringify(row.payload).includes('DI-2'));
    expect(audit, 'the audit event went to the bound catalog\'s subject').to.not.equal(undefined);
  });
});
