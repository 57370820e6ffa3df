/** How the scale-out run prints its figures. */
import type { ScaleOutOptions, ScaleOutReport, Share } from './scale-out.js';

const pct = (n: number, total: number) => (total > 0 ? `${((100 * n) / total).toFixed(1)} %` : '-');
export function formatShares(shares: readonly Share[] | undefined): string {
  if (!shares) return 'counter not exported';
  const total = shares.reduce((n, s) => n + s.count, 0);
  return shares.map((s) => `${s.instance} ${s.count} (${pct(s.count, total)})`).join(', ');
}

export function printReport(report: ScaleOutReport, options: ScaleOutOptions, log: (line: string) => void): void {
  const [one, two, joined] = report.phases;
  log('');
  log('=== scale-out figures ===');
  log(`machine: ${report.cores} cores (shared by the 5 service processes, PostgreSQL, Redis, NATS and this script); validation.workers=${options.workers}, consumer concurrency ${options.concurrency}`);
  if (one && two) {
    log(`throughput, ${options.submissions} submissions: 1 instance ${one.patientsPerSecond.toFixed(2)} patients/s (${one.seconds.toFixed(1)} s), 2 instances ${two.patientsPerSecond.toFixed(2)} patients/s (${two.seconds.toFixed(1)} s): ×${(two.patientsPerSecond / one.patientsPerSecond).toFixed(2)}`);
  }
  for (const phase of report.phases) log(`share of work, ${phase.label.trim()}: ${formatShares(phase.shares)}`);
  for (const phase of report.phases) {
    const infra = phase.infrastructureCores;
    const other = phase.machineBusyCores - phase.instanceCores - infra.postgres - infra.nats - infra.redis - infra.script;
    log(`CPU, ${phase.label.trim()}: machine ${phase.machineBusyCores.toFixed(2)} of ${report.cores} cores busy = validation instances ${phase.instanceCores.toFixed(2)}`
      + ` (${((phase.instanceCores * 1000) / phase.patientsPerSecond).toFixed(0)} CPU-ms per patient) + PostgreSQL ${infra.postgres.toFixed(2)} + NATS ${infra.nats.toFixed(2)}`
      + ` + Redis ${infra.redis.toFixed(2)} + this script ${infra.script.toFixed(2)} + everything else ${other.toFixed(2)}`);
  }
  if (joined) log(`third instance: started after ${report.join.startedAfterCompleted} of ${joined.submissions} completed, ready ${report.join.readyAfterSeconds.toFixed(1)} s later (report service answering after ${options.joinReportDelayMs} ms in this phase)`);
  log(`validation: ${report.submitted} submitted (incl. warm-up), ${report.completed} completed, duplicates ${report.duplicates}, lost ${report.lost}; stored outcomes ${report.storedOutcomes.rows} rows / ${report.storedOutcomes.patients} patients; dead-lettered ${report.deadLettered}`);
  const t = report.tenant;
  log(`scheduler: ${t.facilityPeriods} facility-periods, ReportScheduled ${t.distinctInStream} distinct in the stream, duplicates ${t.duplicatesInStream}, missing ${t.facilityPeriods - t.distinctInStream}, outbox rows ${t.outboxRows}`);
  log(`scheduler firings per tenant instance: ${formatShares(t.firedShares)} (claimed_by: ${formatShares(t.claimedShares)})`);
  log(`tenant HTTP answers per instance: ${formatShares(t.httpShares)}; read back from the other instance ${t.readBack}`);
  log(`exit codes on SIGTERM: ${report.exitCodes.map((e) => `${e.instance} ${e.code}`).join(', ')}`);
  for (const warning of report.warnings) log(`WARNING: ${warning}`);
  for (const failure of report.failures) log(`FAILED: ${failure}`);
  log(report.failures.length === 0 ? 'RESULT: all checks passed' : `RESULT: ${report.failures.length} check(s) failed`);
}
