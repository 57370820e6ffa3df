import { expect } from 'chai';
import { runClusterFault, type ClusterFaultReport } from '#scripts/fault/cluster.js';

/**
 * The cluster fault run (scripts/fault/cluster.ts, `npm run fault:cluster`) with short phases: a
 * three-node nats-server cluster on loopback (the machine's binary, a store per node, free ports)
 * with the platform's NATS users (deploy/nats-accounts), streams provisioned with 3 replicas by the
 * provisioning CLI as `provisioner`, a real validation and a real tenant service process as their
 * users with NATS_PROVISION=false, given every node's URL (no permission violation allowed), ReadyForValidation published throughout and the tenant's
 * job store firing throughout; the COMPLIANCE stream leader is SIGKILLed, then the meta leader, each
 * restarted after work resumed. Takes ~80-130 s on the shared machine, a third of it the services'
 * start-up.
 */
/** Beyond this a resume counts as a hang in the test (the product's target is 10 s: `npm run fault:cluster`). */
const RESUME_BOUND_MS = 60_000;

describe('fault: a JetStream cluster loses its stream leader, then its meta leader, during a flow run', function () {
  this.timeout(400_000);
  let report: ClusterFaultReport;

  before(async () => {
    // The 10 s resume target is measured by `npm run fault:cluster` on a quiet machine; here, beside the
    // rest of the suite, work must resume (a hang check, not a speed test) and the times are printed.
    report = await runClusterFault({ rate: 2, warmupMs: 4_000, steadyMs: 3_000, facilities: 3, concurrency: 4, stepTimeoutMs: 90_000, resumeTargetMs: RESUME_BOUND_MS });
  });

  it('passes every check of the run', () => {
    expect(report.failures).to.deep.equal([]);
  });

  it('completes every submission exactly once: none lost, none announced twice, none dead-lettered', () => {
    expect(report.submitted).to.be.greaterThan(10);
    expect(report.completed).to.equal(report.submitted);
    expect(report.lost).to.equal(0);
    expect(report.announcedTwice).to.equal(0);
    expect(report.deadLettered).to.equal(0);
  });

  it('announces every scheduler firing once through both failovers', () => {
    expect(report.scheduler.firings).to.equal(6);
    expect(report.scheduler.inStream).to.equal(6);
    expect(report.scheduler.announcedTwice).to.equal(0);
    expect(report.scheduler.outboxRows).to.equal(6);
  });

  it('killed the stream leader, then the meta leader, and work resumed after each (times printed)', () => {
    expect(report.kills.map((k) => k.role)).to.deep.equal(['stream leader', 'meta leader']);
    for (const kill of report.kills) {
      expect(kill.resumeMs, `${kill.role} ${kill.node}`).to.be.a('number');
      expect(kill.resumeMs ?? Infinity, `${kill.role} ${kill.node}`).to.be.at.most(RESUME_BOUND_MS);
      console.log(`      work resumed ${((kill.resumeMs ?? 0) / 1000).toFixed(1)} s after killing the ${kill.role} (target 10 s on a quiet machine)`);
    }
  });

  it('the services stayed up and stopped cleanly', () => {
    expect(report.exitCodes).to.deep.equal({ validation: 0, tenant: 0 });
  });
});
