/**
 * The tenant's use cases and its scheduler on the in-memory store (held to the same contract as the
 * PostgreSQL one, persistence/tenant-store.contract.int.spec.ts): the production code paths, without a
 * database, so they run in the unit loop.
 */
import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { silentLogger } from '#adapters/observability/logger.js';
import { ConflictError, NotFoundError } from '#shared-kernel/domain/errors.js';
import type { TenantContext } from '#tenant/application/context.js';
import { FacilityService } from '#tenant/application/facility-service.js';
import { ReportScheduler } from '#tenant/application/report-scheduler.js';
import { SYSTEM_ACTOR } from '#tenant/domain/audit.js';
import { ManualClock } from '#tenant/domain/clock.js';
import { InMemoryTenantStore } from '../support/in-memory-tenant-store.js';

describe('tenant use cases on the in-memory store', () => {
  let store: InMemoryTenantStore;
  let clock: ManualClock;
  let context: TenantContext;
  let facilities: FacilityService;

  beforeEach(() => {
    store = new InMemoryTenantStore();
    clock = new ManualClock('2026-05-31T23:00:00Z');
    context = { store, clock, newId: randomUUID, settings: { checkIfMeasureExists: false } };
    facilities = new FacilityService(context);
  });

  it('creating a facility stores it and audits the change in the same transaction; a second with its FacilityId is refused and leaves nothing', async () => {
    const created = await facilities.create({ facilityId: 'UNIT-1', timeZone: 'UTC', scheduledReports: { monthly: ['M'] } }, SYSTEM_ACTOR);
    expect(created).to.include({ facilityId: 'UNIT-1', timeZone: 'UTC' });
    expect(created.createDate.toISOString()).to.equal('2026-05-31T23:00:00.000Z');
    expect((await facilities.get('UNIT-1')).id).to.equal(created.id);
    expect(store.sent('AuditableEventOccurred')).to.have.length(1);

    let refused: unknown;
    try {
      await facilities.create({ facilityId: 'UNIT-1', timeZone: 'UTC' }, SYSTEM_ACTOR);
    } catch (error) {
      refused = error;
    }
    expect(refused).to.be.instanceOf(ConflictError);
    expect(store.sent('AuditableEventOccurred'), 'the refused write wrote no event').to.have.length(1);
    let missing: unknown;
    try {
      await facilities.get('UNIT-2');
    } catch (error) {
      missing = error;
    }
    expect(missing).to.be.instanceOf(NotFoundError);
  });

  it('two scheduler instances fire a facility\'s monthly period once at its start, not before', async () => {
    await facilities.create({ facilityId: 'UNIT-S', timeZone: 'UTC', scheduledReports: { monthly: ['M'] } }, SYSTEM_ACTOR);
    const instances = ['a', 'b'].map((name) => new ReportScheduler({ store, clock, logger: silentLogger(), instanceId: `unit-${name}`, batchSize: 5 }));

    await Promise.all(instances.map((instance) => instance.tick()));
    expect(store.sent('ReportScheduled'), 'before the boundary').to.deep.equal([]);

    clock.set('2026-06-01T00:00:05Z');
    const ticks = await Promise.all(instances.map((instance) => instance.tick()));
    expect(ticks.reduce((sum, tick) => sum + tick.fired, 0)).to.equal(1);
    await Promise.all(instances.map((instance) => instance.tick()));
    expect(store.sent('ReportScheduled')).to.deep.equal(['UNIT-S-Monthly-2026-06-01T00:00:00.000Z']);
  });
});
