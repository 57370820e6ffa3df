import { expect } from 'chai';
import { silentLogger } from '#adapters/observability/logger.js';
import { FacilityService } from '#tenant/application/facility-service.js';
import { MeasureMappingService } from '#tenant/application/measure-mapping-service.js';
import { ReportingPlanService } from '#tenant/application/reporting-plan-service.js';
import { ReportScheduler } from '#tenant/application/report-scheduler.js';
import { SYSTEM_ACTOR } from '#tenant/domain/audit.js';
import { FREQUENCIES, upcomingPeriodStarts } from '#tenant/domain/reporting-period.js';
import { openTenantTestDatabase, type TenantTestDatabase } from './support/tenant-database.js';
import type { ReportScheduled } from '#contracts/types.js';

const HOUR = 3_600_000;
/** Scale of the simulation: by default the full scenario (500 facilities, 20 time zones, Feb 26 to Apr 1 across both DST changes); smaller values speed up local runs. */
const FACILITIES = Number(process.env.TENANT_SCHEDULER_FACILITIES ?? 500);
const SIMULATED_UNTIL = process.env.TENANT_SCHEDULER_UNTIL ?? '2026-04-01T00:00:00Z';
const ZONES = [
  'America/New_York', 'America/Chicago', 'America/Denver', 'America/Los_Angeles', 'America/Anchorage', 'Pacific/Honolulu',
  'America/Phoenix', 'America/Puerto_Rico', 'Europe/London', 'Europe/Berlin', 'Asia/Kolkata', 'Asia/Tokyo',
  'Australia/Sydney', 'Pacific/Auckland', 'America/Sao_Paulo', 'Africa/Johannesburg', 'Asia/Kathmandu', 'America/St_Johns',
  'Pacific/Guam', 'UTC',
];

describe('tenant: clustered report scheduler (real PostgreSQL, controllable clock)', function () {
  this.timeout(60_000);
  let db: TenantTestDatabase;
  let facilities: FacilityService;
  let instances: ReportScheduler[];

  before(async () => {
    db = await openTenantTestDatabase('sched', '2026-02-26T00:00:00Z');
    facilities = new FacilityService(db.context);
    instances = ['a', 'b', 'c'].map((name) => new ReportScheduler({
      store: db.context.store, clock: db.clock, logger: silentLogger(), instanceId: `instance-${name}`, batchSize: 7,
    }));
  });

  after(async () => {
    await db?.close();
  });

  beforeEach(async () => {
    await db.truncate();
    db.clock.set('2026-02-26T00:00:00Z');
  });

  async function tickAll(count = instances.length): Promise<void> {
    await Promise.all(instances.slice(0, count).map((instance) => instance.tick()));
  }

  async function runUntil(end: string, stepMs = HOUR, count = instances.length): Promise<void> {
    const stop = new Date(end).getTime();
    while (db.clock.now().getTime() < stop) {
      db.clock.advance(stepMs);
      await tickAll(count);
    }
  }

  async function scheduled(): Promise<Array<{ msg_id: string; payload: ReportScheduled }>> {
    return db.outbox('ReportScheduled');
  }

  it(`three instances ticking concurrently fire every expected period exactly once: ${FACILITIES} facilities, 20 time zones, ${SIMULATED_UNTIL}`, async () => {
    const created: Array<{ facilityId: string; timeZone: string }> = [];
    for (let i = 0; i < FACILITIES; i++) {
      const timeZone = ZONES[i % ZONES.length]!;
      const facilityId = `fac-${i}`;
      await facilities.create({
        facilityId, facilityName: `Facility ${i}`, timeZone,
        scheduledReports: { daily: ['DAILY-M'], weekly: i % 2 === 0 ? ['WEEKLY-M'] : [], monthly: ['MONTHLY-M'] },
      }, SYSTEM_ACTOR);
      created.push({ facilityId, timeZone });
    }
    const start = db.clock.now();
    await runUntil(SIMULATED_UNTIL);
    const end = db.clock.now();

    const expected = new Set<string>();
    for (const [index, facility] of created.entries()) {
      for (const frequency of FREQUENCIES) {
        if (frequency === 'Weekly' && index % 2 === 1) continue;
        for (const periodStart of upcomingPeriodStarts(frequency, start, facility.timeZone, 60)) {
          if (periodStart.getTime() <= end.getTime()) expected.add(`${facility.facilityId}-${frequency}-${periodStart.toISOString()}`);
        }
      }
    }
    const rows = await scheduled();
    const ids = rows.map((row) => row.msg_id);
    expect(ids.length, 'no duplicates').to.equal(new Set(ids).size);
    expect(new Set(ids)).to.deep.equal(expected);
    expect(expected.size).to.be.greaterThan(FACILITIES * 14);
    const sample = rows.find((row) => row.msg_id.startsWith('fac-0-Daily-'))!.payload;
    expect(sample).to.include({ facilityId: 'fac-0', frequency: 'Daily', timeZone: 'America/New_York', schemaVersion: '1.0.0' });
    expect(sample.reportTypes).to.deep.equal(['DAILY-M']);
  });

  it('fires a firing missed while every instance was down once, for the current period', async () => {
    await facilities.create({ facilityId: 'late', timeZone: 'Europe/London', scheduledReports: { daily: ['D'], monthly: ['M'] } }, SYSTEM_ACTOR);
    db.clock.set('2026-03-04T10:00:00Z'); // four daily boundaries and one monthly boundary passed unobserved
    await tickAll();
    await tickAll();
    const rows = await scheduled();
    expect(rows.map((row) => row.msg_id).sort()).to.deep.equal([
      'late-Daily-2026-03-04T00:00:00.000Z',
      'late-Monthly-2026-03-01T00:00:00.000Z',
    ]);
  });

  it('an instance that stops mid-run changes nothing: the others fire every period once', async () => {
    await facilities.create({ facilityId: 'k', timeZone: 'America/Chicago', scheduledReports: { daily: ['D'] } }, SYSTEM_ACTOR);
    await runUntil('2026-03-01T00:00:00Z');
    await runUntil('2026-03-05T00:00:00Z', HOUR, 2); // instance c is gone
    const ids = (await scheduled()).map((row) => row.msg_id);
    // Created at Feb 25 18:00 Chicago; ran to Mar 4 18:00 Chicago: local midnights Feb 26 .. Mar 4.
    const expected = upcomingPeriodStarts('Daily', new Date('2026-02-26T00:00:00Z'), 'America/Chicago', 7)
      .map((start) => `k-Daily-${start.toISOString()}`);
    expect(ids).to.deep.equal(expected);
  });

  it('an instance that dies while holding claimed rows: others skip them meanwhile, then fire them once', async () => {
    await facilities.create({ facilityId: 'held', timeZone: 'UTC', scheduledReports: { daily: ['D'] } }, SYSTEM_ACTOR);
    await facilities.create({ facilityId: 'free', timeZone: 'UTC', scheduledReports: { daily: ['D'] } }, SYSTEM_ACTOR);
    db.clock.set('2026-02-27T00:30:00Z');
    let die!: (error: Error) => void;
    const death = new Promise<void>((_resolve, reject) => { die = reject; });
    let claimedByVictim: string[] = [];
    // The victim claims the 'held' row (FOR UPDATE SKIP LOCKED, as claimDue does) and hangs inside its transaction.
    const victim = db.orm.em.fork().transactional(async (em) => {
      const rows = await em.execute(`select facility_id from report_schedule where facility_id = 'held' for update skip locked`);
      claimedByVictim = rows.map((row) => row.facility_id as string);
      await death;
    }).catch((error: unknown) => error);
    while (claimedByVictim.length === 0) await new Promise((resolve) => setTimeout(resolve, 5));
    await tickAll();
    expect((await scheduled()).map((row) => row.msg_id)).to.deep.equal(['free-Daily-2026-02-27T00:00:00.000Z']);
    // It dies before committing: the transaction ends without commit and PostgreSQL releases the locks
    // (a killed process's session ends the same way when its connection drops).
    die(new Error('instance killed'));
    expect(await victim).to.be.an('error');
    await tickAll();
    await tickAll();
    expect((await scheduled()).map((row) => row.msg_id).sort()).to.deep.equal([
      'free-Daily-2026-02-27T00:00:00.000Z', 'held-Daily-2026-02-27T00:00:00.000Z',
    ]);
  });

  it('produces the DST-correct UTC bounds in America/New_York and Europe/London', async () => {
    await facilities.create({ facilityId: 'ny', timeZone: 'America/New_York', scheduledReports: { daily: ['D'] } }, SYSTEM_ACTOR);
    await facilities.create({ facilityId: 'ldn', timeZone: 'Europe/London', scheduledReports: { daily: ['D'] } }, SYSTEM_ACTOR);
    db.clock.set('2026-03-07T12:00:00Z');
    await facilities.update('ny', { facilityId: 'ny', timeZone: 'America/New_York', scheduledReports: { daily: ['D'] } }, SYSTEM_ACTOR);
    await runUntil('2026-03-30T12:00:00Z', 3 * HOUR);
    const byId = new Map((await scheduled()).map((row) => [row.msg_id, row.payload]));
    expect(byId.get('ny-Daily-2026-03-08T05:00:00.000Z')).to.include({ startDate: '2026-03-08T05:00:00.000Z', endDate: '2026-03-09T03:59:59.000Z' });
    expect(byId.get('ldn-Daily-2026-03-29T00:00:00.000Z')).to.include({ startDate: '2026-03-29T00:00:00.000Z', endDate: '2026-03-29T22:59:59.000Z' });
  });

  it('a time-zone change takes effect at the next boundary; a soft-deleted facility never fires; restore resumes', async () => {
    await facilities.create({ facilityId: 'tz', timeZone: 'America/New_York', scheduledReports: { daily: ['D'] } }, SYSTEM_ACTOR);
    await facilities.create({ facilityId: 'gone', timeZone: 'America/New_York', scheduledReports: { daily: ['D'] } }, SYSTEM_ACTOR);
    db.clock.set('2026-02-26T12:00:00Z');
    await facilities.update('tz', { facilityId: 'tz', timeZone: 'Asia/Tokyo', scheduledReports: { daily: ['D'] } }, SYSTEM_ACTOR);
    await facilities.softDelete('gone', SYSTEM_ACTOR);
    await runUntil('2026-02-28T00:00:00Z');
    expect((await scheduled()).map((row) => row.msg_id)).to.deep.equal([
      'tz-Daily-2026-02-26T15:00:00.000Z', // Tokyo midnight of Feb 27
      'tz-Daily-2026-02-27T15:00:00.000Z',
    ]);
    await facilities.restore('gone', SYSTEM_ACTOR);
    await runUntil('2026-02-28T06:00:00Z');
    expect((await scheduled()).map((row) => row.msg_id)).to.include('gone-Daily-2026-02-28T05:00:00.000Z');
  });

  it('an update keeps an overdue firing, drops a frequency that lost its measures, and schedules a new one from the next boundary', async () => {
    await facilities.create({ facilityId: 'upd', timeZone: 'UTC', scheduledReports: { daily: ['D'], weekly: ['W'] } }, SYSTEM_ACTOR);
    db.clock.set('2026-02-27T06:00:00Z'); // the Feb 27 daily boundary passed with no instance running
    await facilities.update('upd', { facilityId: 'upd', facilityName: 'renamed', timeZone: 'UTC', scheduledReports: { daily: ['D'], monthly: ['M'] } }, SYSTEM_ACTOR);
    await tickAll();
    expect((await scheduled()).map((row) => row.msg_id)).to.deep.equal(['upd-Daily-2026-02-27T00:00:00.000Z']);
    await runUntil('2026-03-02T01:00:00Z', 6 * HOUR);
    const ids = (await scheduled()).map((row) => row.msg_id);
    expect(ids).to.include('upd-Monthly-2026-03-01T00:00:00.000Z');
    expect(ids.filter((id) => id.includes('-Weekly-'))).to.deep.equal([]); // Sunday Mar 1 passed without weekly measures
  });

  it('an entry whose time zone cannot be computed does not block the others', async () => {
    await facilities.create({ facilityId: 'broken', timeZone: 'UTC', scheduledReports: { daily: ['D'] } }, SYSTEM_ACTOR);
    await facilities.create({ facilityId: 'fine', timeZone: 'UTC', scheduledReports: { daily: ['D'] } }, SYSTEM_ACTOR);
    await db.orm.em.fork().execute(`update facility set time_zone = 'Atlantis/Lost' where facility_id = 'broken'`);
    db.clock.set('2026-02-27T00:10:00Z');
    await tickAll();
    expect((await scheduled()).map((row) => row.msg_id)).to.deep.equal(['fine-Daily-2026-02-27T00:00:00.000Z']);
    const [entry] = await db.orm.em.fork().execute(`select next_fire_at from report_schedule where facility_id = 'broken'`);
    expect(new Date(entry!.next_fire_at).toISOString()).to.equal('2026-02-27T01:10:00.000Z');
  });

  it('gates measures by the reporting plans of the period month', async () => {
    db.settings.checkIfMeasureExists = true;
    try {
      const mappings = new MeasureMappingService(db.context);
      const plans = new ReportingPlanService(db.context);
      const ach = await mappings.create({ dqm: 'NHSNdQMAcuteCareHospitalInitialPopulation', measure: 'ACH', frequency: 'Monthly' }, SYSTEM_ACTOR);
      const gly = await mappings.create({ dqm: 'NHSNGlycemicControlHypoglycemicInitialPopulation', measure: 'HYPO', frequency: 'Monthly' }, SYSTEM_ACTOR);
      await facilities.create({ facilityId: 'gated', timeZone: 'UTC', scheduledReports: { monthly: ['ACH', 'HYPO'] } }, SYSTEM_ACTOR);
      await plans.create({ facilityId: 'gated', measureMappingId: ach.id, reportingYear: 2026, reportingMonth: 3, isReporting: true }, SYSTEM_ACTOR);
      await plans.create({ facilityId: 'gated', measureMappingId: gly.id, reportingYear: 2026, reportingMonth: 3, isReporting: false }, SYSTEM_ACTOR);
      await runUntil('2026-04-01T01:00:00Z', 6 * HOUR);
      const rows = await scheduled();
      const byMonth = Object.fromEntries(rows.map((row) => [row.payload.startDate.slice(0, 7), row.payload.reportTypes]));
      expect(byMonth).to.deep.equal({ '2026-03': ['ACH'], '2026-04': ['ACH', 'HYPO'] }); // April has no plans: everything
    } finally {
      db.settings.checkIfMeasureExists = false;
    }
  });
});
