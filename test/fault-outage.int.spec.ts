import { expect } from 'chai';
import { runOutage, type OutageReport } from '#scripts/fault/outage.js';

/**
 * The outage fault run (scripts/fault/outage.ts, `npm run fault:outage` cuts each dependency for
 * 3 minutes) with outages of a few seconds and a 1 s retry delay: a real validation service process
 * whose PostgreSQL connections go through a TCP proxy that is cut (live connections destroyed, new
 * ones refused), then a report-service stand-in that is stopped, while submissions are in flight.
 * Takes ~45-70 s on the shared machine, most of it the service's start-up.
 */
describe('fault: PostgreSQL and the report service go away during a flow run', function () {
  this.timeout(300_000);
  let report: OutageReport;

  before(async () => {
    report = await runOutage({
      submissions: 18, databaseOutageMs: 5_000, reportServiceOutageMs: 5_000, maxRetryDelaySeconds: 1, reportDelayMs: 500, concurrency: 4,
      stepTimeoutMs: 120_000,
    });
  });

  it('passes every check of the run', () => {
    expect(report.failures).to.deep.equal([]);
  });

  it('completes every submission exactly once and dead-letters none', () => {
    expect(report.submitted).to.equal(18);
    expect(report.completed).to.equal(18);
    expect(report.duplicated).to.equal(0);
    expect(report.repeatedMessages).to.equal(0);
    expect(report.deadLettered).to.equal(0);
  });

  it('held the in-flight submissions through the outages and retried them in place, spending no delivery', () => {
    expect(report.retriesInPlace).to.be.greaterThan(0);
    expect(report.heldAtMost).to.be.greaterThan(0);
    expect(report.deliveriesRetried).to.equal(0);
    // Work was in flight when each dependency went away.
    const at = (event: RegExp) => report.timeline.find((t) => event.test(t.event))!.completed;
    expect(at(/^PostgreSQL cut/)).to.be.below(report.submitted);
    expect(at(/^report service stopped/)).to.be.below(report.submitted);
  });

  it('the service stayed up through both outages and stopped cleanly', () => {
    expect(report.exitCode).to.equal(0);
  });
});
