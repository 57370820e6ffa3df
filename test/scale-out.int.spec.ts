import { expect } from 'chai';
import { runScaleOut, type ScaleOutReport } from '#scripts/scale-out/scale-out.js';

/**
 * The scale-out proof (scripts/scale-out/scale-out.ts) in a small configuration: five real service
 * processes (two tenant, two validation, a third validation instance joining mid-run) sharing the
 * machine's PostgreSQL and Redis and a nats-server of the run's own (see scripts/scale-out/private-nats.ts).
 * Takes ~50-90 s on the shared 2-core machine, most of it process start-up. Phase B's report service answers after 3 s and each
 * instance handles two submissions at once, so the 40 submissions take long enough (~20 s after the
 * third instance is started) for it to be ready while work is left: a validation instance starts its
 * worker threads before it is ready, ~15 s on the loaded machine (in the full run the backlog alone
 * does that).
 */
describe('scale-out: several validation and tenant instances share the work', function () {
  this.timeout(240_000);
  let report: ScaleOutReport;

  before(async () => {
    report = await runScaleOut({ submissions: 40, warmup: 0, facilities: 30, workers: 1, concurrency: 2, joinReportDelayMs: 3_000, spreadMs: 2_000 });
  });

  it('passes every check of the run', () => {
    expect(report.failures).to.deep.equal([]);
  });

  it('completes every submission exactly once, with one stored outcome each', () => {
    expect(report.submitted).to.equal(120);
    expect(report.completed).to.equal(report.submitted);
    expect(report.duplicates).to.equal(0);
    expect(report.lost).to.equal(0);
    expect(report.storedOutcomes).to.deep.equal({ rows: 120, patients: 120 });
    expect(report.deadLettered).to.equal(0);
  });

  it('shares the ReadyForValidation load: every instance, the joining third included, acked some', () => {
    const [, two, joined] = report.phases;
    expect(two!.shares!.map((s) => s.instance)).to.deep.equal(['validation-1', 'validation-2']);
    expect(joined!.shares!.map((s) => s.instance)).to.deep.equal(['validation-1', 'validation-2', 'validation-3']);
    for (const phase of [two!, joined!]) {
      for (const share of phase.shares!) expect(share.count, `${phase.label} ${share.instance}`).to.be.greaterThan(0);
      expect(phase.shares!.reduce((n, s) => n + s.count, 0)).to.equal(phase.submissions);
    }
    expect(report.join.startedAfterCompleted).to.be.at.least(14).and.below(40);
  });

  it('fires every facility-period exactly once between the two tenant schedulers', () => {
    const tenant = report.tenant;
    expect(tenant.facilityPeriods).to.equal(60);
    expect(tenant.distinctInStream).to.equal(60);
    expect(tenant.duplicatesInStream).to.equal(0);
    expect(tenant.outboxRows).to.equal(60);
    expect(tenant.firedShares!.reduce((n, s) => n + s.count, 0)).to.equal(60);
  });

  it('answers HTTP from both tenant instances out of the shared database', () => {
    expect(report.tenant.httpShares.map((s) => s.instance)).to.deep.equal(['tenant-1', 'tenant-2']);
    for (const share of report.tenant.httpShares) expect(share.count).to.be.greaterThan(0);
    expect(report.tenant.readBack).to.equal(30);
  });

  it('stops every instance cleanly on SIGTERM', () => {
    expect(report.exitCodes.map((e) => e.instance).sort()).to.deep.equal(['tenant-1', 'tenant-2', 'validation-1', 'validation-2', 'validation-3']);
    for (const exit of report.exitCodes) expect(exit.code, exit.instance).to.equal(0);
  });
});
