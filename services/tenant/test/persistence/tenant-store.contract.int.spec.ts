/**
 * What the tenant's use cases and scheduler rely on from their store, checked against every
 * implementation: MikroTenantStore on PostgreSQL and the in-memory store of the unit tests. A write
 * is one transaction (repository writes and outbox messages commit together or not at all); a read
 * cannot write events; the uniqueness and references the business depends on answer ConflictError
 * with the message the client sees; searches and lists come in the documented orders (ties by id,
 * nulls last ascending and first descending) and pages; the scheduler's claim takes only due entries,
 * earliest first, inside a write.
 */
import { expect } from 'chai';
import { ConflictError } from '#shared-kernel/domain/errors.js';
import { MikroTenantStore } from '#tenant/adapters/persistence/tenant-store.js';
import type { AuditEvent } from '#tenant/domain/audit.js';
import type { Facility } from '#tenant/domain/facility.js';
import type { MeasureMapping } from '#tenant/domain/measure-mapping.js';
import type { ScheduleEntry } from '#tenant/domain/ports/schedule-repository.js';
import type { TenantStore } from '#tenant/domain/ports/tenant-store.js';
import type { ScheduledReport } from '#tenant/domain/report-schedule.js';
import type { FacilityReportingPlan } from '#tenant/domain/reporting-plan.js';
import { InMemoryTenantStore } from '../support/in-memory-tenant-store.js';
import { openTenantTestDatabase, type TenantTestDatabase } from '../support/tenant-database.js';

type MessageName = 'AuditableEventOccurred' | 'ReportScheduled' | 'GenerateReportRequested';

interface Subject {
  readonly store: TenantStore;
  /** Message ids of the committed messages of one kind, oldest first. */
  sent(name: MessageName): Promise<string[]>;
}

interface StoreUnderTest {
  open(): Promise<void>;
  /** An empty store. */
  fresh(): Promise<Subject>;
  close(): Promise<void>;
}

const T0 = new Date('2026-03-01T00:00:00.000Z');
const at = (minutes: number) => new Date(T0.getTime() + minutes * 60_000);

function facility(id: string, facilityId: string, changes: Partial<Facility> = {}): Facility {
  return {
    id, facilityId, facilityName: null, timeZone: 'UTC', scheduledReports: { daily: [], weekly: [], monthly: ['m1'] },
    vendorVersionId: null, keyId: null, ehrConnections: [], isDeleted: false, createDate: T0, modifyDate: null, ...changes,
  };
}

function plan(id: string, facilityId: string, month: number, changes: Partial<FacilityReportingPlan> = {}): FacilityReportingPlan {
  return { id, facilityId, measureMappingId: 'map1', reportingMonth: month, reportingYear: 2026, isReporting: true, createDate: T0, modifyDate: null, ...changes };
}

function mapping(id: string, measure: string, dqm: string): MeasureMapping {
  return { id, measure, dqm, frequency: 'Monthly', createDate: T0, modifyDate: null };
}

function audit(correlationId: string): AuditEvent {
  return {
    facilityId: 'fa', serviceName: 'Tenant', correlationId, eventDate: T0.toISOString(), userId: null, user: 'SystemUser',
    action: 'Create', resource: 'Facility', resourceId: 'x', propertyChanges: [], notes: 'contract',
  };
}

function scheduled(facilityId: string): ScheduledReport {
  const start = new Date('2026-03-01T00:00:00.000Z');
  return {
    facilityId, frequency: 'Monthly', timeZone: 'UTC', measures: ['m1'], messageId: `${facilityId}-Monthly-${start.toISOString()}`,
    period: { frequency: 'Monthly', start, end: new Date('2026-04-01T00:00:00.000Z'), localYear: 2026, localMonth: 3 },
  } as ScheduledReport;
}

function entry(facilityId: string, frequency: ScheduleEntry['frequency'], nextFireAt: Date): ScheduleEntry {
  return { facilityId, frequency, timeZone: 'UTC', nextFireAt, lastFiredPeriodStart: null };
}

async function rejection(run: () => Promise<unknown>): Promise<unknown> {
  try {
    await run();
  } catch (error) {
    return error;
  }
  throw new Error('expected a rejection');
}

function tenantStoreContract(name: string, subjectUnderTest: () => StoreUnderTest): void {
  describe(`tenant store contract: ${name}`, function () {
    this.timeout(30_000);
    const underTest = subjectUnderTest();
    let subject: Subject;
    let store: TenantStore;

    before(() => underTest.open());
    after(() => underTest.close());
    beforeEach(async () => {
      subject = await underTest.fresh();
      store = subject.store;
    });

    it('a write commits its repository writes and its messages together; an error in it leaves neither', async () => {
      await store.write(async (tx) => {
        await tx.facilities.insert(facility('id-a', 'fa'));
        await tx.outbox.auditableEventOccurred(audit('c-1'));
        await tx.outbox.reportsScheduled([scheduled('fa')]);
        await tx.outbox.generateReportRequested({
          requestId: 'r-1', reportId: 'rep-1', facilityId: 'fa', startDate: T0, endDate: at(60), measures: ['m1'], regenerate: false, bypassSubmission: true,
        });
      });
      const failure = await rejection(() => store.write(async (tx) => {
        await tx.facilities.insert(facility('id-b', 'fb'));
        await tx.outbox.auditableEventOccurred(audit('c-2'));
        throw new Error('the use case failed');
      }));
      expect((failure as Error).message).to.equal('the use case failed');
      expect(await store.read((tx) => tx.facilities.findByFacilityId('fa'))).to.deep.include({ id: 'id-a', facilityId: 'fa' });
      expect(await store.read((tx) => tx.facilities.findByFacilityId('fb'))).to.equal(null);
      expect(await subject.sent('AuditableEventOccurred')).to.deep.equal(['audit-c-1']);
      expect(await subject.sent('ReportScheduled')).to.deep.equal(['fa-Monthly-2026-03-01T00:00:00.000Z']);
      expect(await subject.sent('GenerateReportRequested')).to.deep.equal(['generate-report-r-1']);
    });

    it('a message that breaks its contract fails the write, which then leaves nothing', async () => {
      const error = await rejection(() => store.write(async (tx) => {
        await tx.facilities.insert(facility('id-a', 'fa'));
        await tx.outbox.generateReportRequested({ requestId: 'r-bad', reportId: 'rep-1', facilityId: 'fa', regenerate: false, bypassSubmission: true });
      }));
      expect(error).to.have.property('name', 'ContractViolationError');
      expect((error as Error).message).to.match(/^GenerateReportRequested payload violates its contract .*must have required property 'startDate'/);
      expect(await store.read((tx) => tx.facilities.findById('id-a'))).to.equal(null);
      expect(await subject.sent('GenerateReportRequested')).to.deep.equal([]);
    });

    it('a read cannot write events', async () => {
      const error = await rejection(() => store.read((tx) => tx.outbox.auditableEventOccurred(audit('c-read'))));
      expect((error as Error).message).to.equal('events can only be written in a write transaction');
      expect(await subject.sent('AuditableEventOccurred')).to.deep.equal([]);
    });

    it('facilities: found by id, FacilityId and several FacilityIds; updated and removed; what was read is a copy', async () => {
      const stored = facility('id-a', 'fa', { facilityName: 'alpha', ehrConnections: [{ name: 'ehr', clientId: 'c', tokenUrl: 'https://ehr.example/token' }] });
      await store.write(async (tx) => {
        await tx.facilities.insert(stored);
        await tx.facilities.insert(facility('id-b', 'fb'));
      });
      expect(await store.read((tx) => tx.facilities.findById('id-a'))).to.deep.equal(stored);
      expect((await store.read((tx) => tx.facilities.findByFacilityIds(['fb', 'fa', 'nope']))).map((f) => f.id).sort()).to.deep.equal(['id-a', 'id-b']);
      expect(await store.read((tx) => tx.facilities.findByFacilityIds([]))).to.deep.equal([]);

      await store.write((tx) => tx.facilities.update({ ...stored, facilityName: 'renamed', modifyDate: at(5) }));
      expect(await store.read((tx) => tx.facilities.findById('id-a'))).to.deep.include({ facilityName: 'renamed', modifyDate: at(5) });
      await store.write((tx) => tx.facilities.remove('id-b'));
      expect(await store.read((tx) => tx.facilities.findById('id-b'))).to.equal(null);
    });

    it('a second facility with the same FacilityId, or one naming no vendor version, is a ConflictError naming the field', async () => {
      await store.write((tx) => tx.facilities.insert(facility('id-a', 'fa')));
      const duplicate = await rejection(() => store.write((tx) => tx.facilities.insert(facility('id-b', 'fa'))));
      expect(duplicate).to.be.instanceOf(ConflictError).and.to.include({ message: 'facilityId: a facility with facilityId "fa" already exists', field: 'facilityId' });
      const renamed = await rejection(() => store.write(async (tx) => {
        await tx.facilities.insert(facility('id-c', 'fc'));
        await tx.facilities.update(facility('id-c', 'fa'));
      }));
      expect(renamed).to.be.instanceOf(ConflictError);
      const noVersion = await rejection(() => store.write((tx) => tx.facilities.insert(facility('id-d', 'fd', { vendorVersionId: 'missing' }))));
      expect(noVersion).to.be.instanceOf(ConflictError).and.to.include({ message: 'vendorVersionId: no vendor version "missing"' });
      expect((await store.read((tx) => tx.facilities.list(undefined, true))).map((f) => f.facilityId)).to.deep.equal(['fa']);
    });

    it('the facility search filters, sorts with id breaking ties (nulls last ascending, first descending) and pages with the total', async () => {
      await store.write(async (tx) => {
        await tx.facilities.insert(facility('id-1', 'f1', { facilityName: 'bravo', timeZone: 'UTC' }));
        await tx.facilities.insert(facility('id-2', 'f2', { facilityName: null, timeZone: 'Asia/Tokyo' }));
        await tx.facilities.insert(facility('id-3', 'f3', { facilityName: 'alpha', timeZone: 'UTC' }));
        await tx.facilities.insert(facility('id-4', 'f4', { facilityName: 'bravo', timeZone: 'UTC', isDeleted: true }));
        await tx.facilities.insert(facility('id-5', 'f5', { facilityName: 'alpha_5%', timeZone: 'UTC' }));
      });
      const search = (criteria: Partial<{ facilityId: string; facilityName: string; timeZone: string }>, includeDeleted: boolean,
        order: 'Ascending' | 'Descending', page = { pageSize: 10, pageNumber: 1 }) =>
        store.read((tx) => tx.facilities.search({ ...criteria, includeDeleted }, { by: 'FacilityName', order }, page));
      const ids = (page: { records: readonly Facility[] }) => page.records.map((f) => f.id);

      const active = await search({}, false, 'Ascending');
      expect(ids(active)).to.deep.equal(['id-3', 'id-5', 'id-1', 'id-2']);
      expect(active.totalCount).to.equal(4);
      expect(ids(await search({}, true, 'Descending'))).to.deep.equal(['id-2', 'id-4', 'id-1', 'id-5', 'id-3']);
      expect(ids(await search({ facilityName: 'ALPHA' }, false, 'Ascending'))).to.deep.equal(['id-3', 'id-5']);
      expect(ids(await search({ facilityName: '_5%' }, false, 'Ascending')), 'wildcards match literally').to.deep.equal(['id-5']);
      expect(ids(await search({ facilityName: 'h_' }, false, 'Ascending')), '_ is no wildcard: "alpha" does not match').to.deep.equal([]);
      expect(ids(await search({ timeZone: 'Asia/Tokyo' }, false, 'Ascending'))).to.deep.equal(['id-2']);
      expect(ids(await search({ facilityId: 'f4' }, true, 'Ascending'))).to.deep.equal(['id-4']);

      const second = await search({}, true, 'Ascending', { pageSize: 2, pageNumber: 2 });
      expect(ids(second)).to.deep.equal(['id-1', 'id-4']);
      expect(second.totalCount).to.equal(5);
      const pastTheEnd = await search({ timeZone: 'UTC' }, false, 'Ascending', { pageSize: 2, pageNumber: 9 });
      expect(pastTheEnd).to.deep.equal({ records: [], totalCount: 3 });
    });

    it('the facility list is ordered by FacilityId and matches name or id without regard to case', async () => {
      await store.write(async (tx) => {
        await tx.facilities.insert(facility('id-1', 'fz', { facilityName: 'north' }));
        await tx.facilities.insert(facility('id-2', 'fa', { facilityName: 'south' }));
        await tx.facilities.insert(facility('id-3', 'northwest', { facilityName: null, isDeleted: true }));
      });
      const list = (search: string | undefined, includeDeleted: boolean) =>
        store.read(async (tx) => (await tx.facilities.list(search, includeDeleted)).map((f) => f.facilityId));
      expect(await list(undefined, false)).to.deep.equal(['fa', 'fz']);
      expect(await list('', true)).to.deep.equal(['fa', 'fz', 'northwest']);
      expect(await list('NORTH', true)).to.deep.equal(['fz', 'northwest']);
      expect(await list('NORTH', false)).to.deep.equal(['fz']);
    });

    it('plans: one per facility, mapping and month; a plan needs its facility and goes with it', async () => {
      await store.write(async (tx) => {
        await tx.facilities.insert(facility('id-a', 'fa'));
        await tx.facilities.insert(facility('id-b', 'fb'));
        await tx.plans.insert(plan('p-3', 'fa', 3));
        await tx.plans.insert(plan('p-1', 'fa', 1, { isReporting: false }));
        await tx.plans.insert(plan('p-2', 'fa', 2, { measureMappingId: 'map2' }));
        await tx.plans.insert(plan('p-4', 'fb', 3));
      });
      const duplicate = await rejection(() => store.write((tx) => tx.plans.insert(plan('p-9', 'fa', 3))));
      expect(duplicate).to.be.instanceOf(ConflictError)
        .and.to.have.property('message', 'a plan for facility "fa", measure mapping "map1" and 2026-03 already exists');
      const orphan = await rejection(() => store.write((tx) => tx.plans.insert(plan('p-9', 'nobody', 3))));
      expect(orphan).to.be.instanceOf(ConflictError).and.to.have.property('message', 'facilityId: no facility "nobody"');

      const ofFacility = (filter: { month?: number; isReporting?: boolean }) => store.read(async (tx) => (await tx.plans.findByFacility('fa', filter)).map((p) => p.id));
      expect(await ofFacility({})).to.deep.equal(['p-1', 'p-2', 'p-3']);
      expect(await ofFacility({ month: 3 })).to.deep.equal(['p-3']);
      expect(await ofFacility({ isReporting: false })).to.deep.equal(['p-1']);
      const months = await store.read((tx) => tx.plans.findForMonths(['fa', 'fb'], [{ year: 2026, month: 3 }, { year: 2026, month: 2 }]));
      expect(months.map((p) => p.id).sort()).to.deep.equal(['p-2', 'p-3', 'p-4']);

      const byMonth = await store.read((tx) => tx.plans.search({ by: 'ReportingMonth', order: 'Descending' }, { pageSize: 3, pageNumber: 1 }));
      expect(byMonth.records.map((p) => p.id), 'ties by id ascending').to.deep.equal(['p-3', 'p-4', 'p-2']);
      expect(byMonth.totalCount).to.equal(4);

      await store.write((tx) => tx.facilities.remove('id-b'));
      expect(await store.read((tx) => tx.plans.findById('p-4'))).to.equal(null);
      expect(await store.write((tx) => tx.plans.removeByFacility('fa'))).to.equal(3);
      expect(await store.write((tx) => tx.plans.removeAll())).to.equal(0);
    });

    it('measure mappings: one per measure and dQM, listed by measure then dQM', async () => {
      await store.write(async (tx) => {
        await tx.mappings.insert(mapping('m-1', 'sepsis', 'dqm2'));
        await tx.mappings.insert(mapping('m-2', 'hypo', 'dqm1'));
        await tx.mappings.insert(mapping('m-3', 'sepsis', 'dqm1'));
      });
      const duplicate = await rejection(() => store.write((tx) => tx.mappings.insert(mapping('m-4', 'hypo', 'dqm1'))));
      expect(duplicate).to.be.instanceOf(ConflictError)
        .and.to.include({ message: 'a measure mapping for measure "hypo" and dqm "dqm1" already exists', field: 'measure' });
      expect((await store.read((tx) => tx.mappings.list())).map((m) => m.id)).to.deep.equal(['m-2', 'm-3', 'm-1']);
      await store.write((tx) => tx.mappings.update({ ...mapping('m-2', 'hypo', 'dqm9'), modifyDate: at(1) }));
      expect(await store.read((tx) => tx.mappings.findById('m-2'))).to.deep.include({ dqm: 'dqm9' });
      expect(await store.write((tx) => tx.mappings.removeAll())).to.equal(3);
    });

    it('vendors and versions: names unique, versions unique per vendor, neither removed while in use', async () => {
      await store.write(async (tx) => {
        await tx.vendors.insert({ id: 'v-2', name: 'zeta', authentication: null });
        await tx.vendors.insert({ id: 'v-1', name: 'epic', authentication: 'oauth' });
        await tx.vendorVersions.insert({ id: 'vv-2', vendorId: 'v-1', version: '2' });
        await tx.vendorVersions.insert({ id: 'vv-1', vendorId: 'v-1', version: '1' });
        await tx.facilities.insert(facility('id-a', 'fa', { vendorVersionId: 'vv-1' }));
      });
      expect(await rejection(() => store.write((tx) => tx.vendors.insert({ id: 'v-3', name: 'epic', authentication: null }))))
        .to.be.instanceOf(ConflictError).and.to.include({ message: 'name: a vendor named "epic" already exists', field: 'name' });
      expect(await rejection(() => store.write((tx) => tx.vendorVersions.insert({ id: 'vv-3', vendorId: 'v-1', version: '2' }))))
        .to.be.instanceOf(ConflictError).and.to.include({ message: 'version: vendor "v-1" already has version "2"', field: 'version' });
      expect(await rejection(() => store.write((tx) => tx.vendors.remove('v-1'))))
        .to.be.instanceOf(ConflictError).and.to.have.property('message', 'vendor "v-1" still has versions');
      expect(await rejection(() => store.write((tx) => tx.vendorVersions.remove('vv-1'))))
        .to.be.instanceOf(ConflictError).and.to.have.property('message', 'vendor version "vv-1" is used by a facility');
      expect((await store.read((tx) => tx.vendors.list())).map((v) => v.name)).to.deep.equal(['epic', 'zeta']);
      expect((await store.read((tx) => tx.vendorVersions.list('v-1'))).map((v) => v.version)).to.deep.equal(['1', '2']);
      expect(await store.read((tx) => tx.vendorVersions.list('v-2'))).to.deep.equal([]);
      await store.write((tx) => tx.vendorVersions.remove('vv-2'));
      await store.write((tx) => tx.vendors.remove('v-2'));
      expect(await store.read((tx) => tx.vendors.findById('v-2'))).to.equal(null);
    });

    it('schedules: saved by facility and frequency (a second save replaces), found in frequency order, removed', async () => {
      await store.write(async (tx) => {
        await tx.schedules.save(entry('fa', 'Monthly', at(10)));
        await tx.schedules.saveMany([entry('fa', 'Daily', at(20)), entry('fb', 'Weekly', at(30)), entry('fa', 'Monthly', at(40))]);
      });
      const ofFa = await store.read((tx) => tx.schedules.findByFacility('fa'));
      expect(ofFa).to.deep.equal([entry('fa', 'Daily', at(20)), entry('fa', 'Monthly', at(40))]);
      await store.write((tx) => tx.schedules.remove('fa', 'Daily'));
      expect((await store.read((tx) => tx.schedules.findByFacility('fa'))).map((e) => e.frequency)).to.deep.equal(['Monthly']);
      await store.write((tx) => tx.schedules.removeAllFor('fa'));
      expect(await store.read((tx) => tx.schedules.findByFacility('fa'))).to.deep.equal([]);
      expect(await store.read((tx) => tx.schedules.findByFacility('fb'))).to.have.length(1);
    });

    it('the scheduler\'s claim takes due entries only, earliest first, up to the limit, and only inside a write', async () => {
      await store.write((tx) => tx.schedules.saveMany([
        entry('f1', 'Monthly', at(30)), entry('f2', 'Monthly', at(10)), entry('f3', 'Monthly', at(20)), entry('f4', 'Monthly', at(90)),
      ]));
      // The claim's own order is not promised (PostgreSQL's `update … returning` keeps none): which ones it takes is.
      const claimed = await store.write((tx) => tx.schedules.claimDue(at(60), 2, 'instance-1'));
      expect(claimed.map((e) => e.facilityId).sort()).to.deep.equal(['f2', 'f3']);
      const rest = await store.write((tx) => tx.schedules.claimDue(at(60), 10, 'instance-1'));
      expect(rest.map((e) => e.facilityId).sort()).to.deep.equal(['f1', 'f2', 'f3']);
      const outside = await rejection(() => store.read((tx) => tx.schedules.claimDue(at(60), 10, 'instance-1')));
      expect((outside as Error).message).to.equal('claimDue must run inside a transaction: the row locks end with it');
    });
  });
}

tenantStoreContract('in memory', () => ({
  open: () => Promise.resolve(),
  fresh: () => {
    const store = new InMemoryTenantStore();
    return Promise.resolve({ store, sent: (name) => Promise.resolve(store.sent(name)) });
  },
  close: () => Promise.resolve(),
}));

tenantStoreContract('MikroORM on PostgreSQL', () => {
  let db: TenantTestDatabase;
  return {
    open: async () => {
      db = await openTenantTestDatabase('contract');
    },
    fresh: async () => {
      await db.truncate();
      const store = new MikroTenantStore({ orm: db.orm, catalog: db.catalog });
      return { store, sent: async (name) => (await db.outbox(name)).map((row) => row.msg_id) };
    },
    close: () => db.close(),
  };
});
