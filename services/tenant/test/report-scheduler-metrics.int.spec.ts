import { expect } from 'chai';
import type { Counter } from 'prom-client';
import { createMetrics, type ServiceMetrics } from '#adapters/observability/metrics.js';
import { silentLogger } from '#adapters/observability/logger.js';
import { FacilityService } from '#tenant/application/facility-service.js';
import { ReportScheduler } from '#tenant/application/report-scheduler.js';
import { SYSTEM_ACTOR } from '#tenant/domain/audit.js';
import type { TenantStore } from '#tenant/domain/ports/tenant-store.js';
import { openTenantTestDatabase, type TenantTestDatabase } from './support/tenant-database.js';

const DAY = 86_400_000;

async function value(metrics: ServiceMetrics, name: string, labels: Record<string, string> = {}): Promise<number> {
  const metric = metrics.registry.getSingleMetric(name) as Counter<string> | undefined;
  if (!metric) return Number.NaN;
  const values = (await metric.get()).values.filter((v) => Object.entries(labels).every(([k, l]) => v.labels[k] === l));
  return values.reduce((sum, v) => sum + v.value, 0);
}

describe('tenant: report scheduler metrics (real PostgreSQL, controllable clock)', function () {
  this.timeout(30_000);
  let db: TenantTestDatabase;

  before(async () => { db = await openTenantTestDatabase('schedmetrics', '2026-03-01T12:00:00Z'); });
  after(async () => { await db?.close(); });

  it('counts the ReportScheduled firings each instance wrote (summing to the outbox rows) and its ticks by outcome', async () => {
    const facilities = new FacilityService(db.context);
    for (let i = 0; i < 5; i++) {
      await facilities.create({ facilityId: `m-${i}`, facilityName: `M ${i}`, timeZone: 'UTC', scheduledReports: { daily: ['D'], weekly: [], monthly: [] } }, SYSTEM_ACTOR);
    }
    const metrics = [createMetrics('tenant-a', { defaultMetrics: false }), createMetrics('tenant-b', { defaultMetrics: false })];
    const schedulers = metrics.map((m, i) => new ReportScheduler({
      store: db.context.store, clock: db.clock, logger: silentLogger(), instanceId: `i-${i}`, batchSize: 2, metrics: m,
    }));
    expect(await value(metrics[0]!, 'scheduler_reports_scheduled_total'), 'exposed at 0 before the first firing').to.equal(0);

    db.clock.advance(DAY);
    await Promise.all(schedulers.map((s) => s.tick()));
    const rows = (await db.outbox('ReportScheduled')).length;
    expect(rows).to.equal(5);
    const perInstance = await Promise.all(metrics.map((m) => value(m, 'scheduler_reports_scheduled_total')));
    expect(perInstance[0]! + perInstance[1]!).to.equal(rows);

    // Nothing due any more: both tick idle.
    await Promise.all(schedulers.map((s) => s.tick()));
    for (const m of metrics) expect(await value(m, 'scheduler_ticks_total', { outcome: 'idle' })).to.be.at.least(1);
    const fired = await Promise.all(metrics.map((m) => value(m, 'scheduler_ticks_total', { outcome: 'fired' })));
    expect(fired[0]! + fired[1]!).to.be.within(1, 2);
    expect(await value(metrics[0]!, 'scheduler_reports_scheduled_total') + await value(metrics[1]!, 'scheduler_reports_scheduled_total')).to.equal(5);
  });

  it('counts a tick whose job store fails as failed and fires nothing', async () => {
    const metrics = createMetrics('tenant-c', { defaultMetrics: false });
    const broken = { write: () => Promise.reject(new Error('database down')) } as unknown as TenantStore;
    const scheduler = new ReportScheduler({ store: broken, clock: db.clock, logger: silentLogger(), instanceId: 'broken' });
    scheduler.instrument(metrics);
    const error = await scheduler.tick().then(() => undefined, (e: unknown) => e);
    expect((error as Error | undefined)?.message).to.equal('database down');
    expect(await value(metrics, 'scheduler_ticks_total', { outcome: 'failed' })).to.equal(1);
    expect(await value(metrics, 'scheduler_reports_scheduled_total')).to.equal(0);
  });
});
