import type { Clock } from '../domain/clock.js';
import { measuresFor, type Facility } from '../domain/facility.js';
import type { MeasureMapping } from '../domain/measure-mapping.js';
import type { Logger } from '../domain/ports/logger.js';
import type { Metrics } from '../domain/ports/metrics.js';
import type { ScheduleEntry } from '../domain/ports/schedule-repository.js';
import type { TenantStore, TenantTransaction } from '../domain/ports/tenant-store.js';
import { buildScheduledReport, type ScheduledReport } from '../domain/report-schedule.js';
import { periodContaining, type ReportingPeriod } from '../domain/reporting-period.js';

const RETRY_AFTER_MS = 3_600_000;

export interface ReportSchedulerOptions {
  readonly store: TenantStore;
  readonly clock: Clock;
  readonly logger: Logger;
  /** Names this instance in the job store's claim columns (diagnostics only). */
  readonly instanceId: string;
  /** Entries claimed per transaction. */
  readonly batchSize?: number;
  /** Base poll interval; each wait adds up to 50 % random jitter so instances do not poll in step. */
  readonly pollIntervalMs?: number;
  /** Where the firing counters go (see instrument()). */
  readonly metrics?: Metrics;
}

/** Outcome of one tick: it fired something, found nothing to fire, or failed (retried at the next poll). */
export type TickOutcome = 'fired' | 'idle' | 'failed';

export interface TickResult {
  readonly claimed: number;
  readonly fired: number;
}

/**
 * The clustered scheduler. Every instance polls the shared job store (table report_schedule);
 * each due entry is claimed by exactly one instance (FOR UPDATE SKIP LOCKED) and, in the same
 * transaction, ReportScheduled goes to the outbox and the entry moves to the next period start.
 * A firing that was missed while every instance was down fires once, for the current period.
 * The message id <facilityId>-<frequency>-<periodStartISO> lets JetStream drop a double fire.
 */
export class ReportScheduler {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private stopped = true;
  private readonly batchSize: number;
  private readonly pollIntervalMs: number;
  private counters: { scheduled(count: number): void; tick(outcome: TickOutcome): void } | undefined;

  constructor(private readonly options: ReportSchedulerOptions) {
    this.batchSize = options.batchSize ?? 500;
    this.pollIntervalMs = options.pollIntervalMs ?? 1000;
    if (options.metrics) this.instrument(options.metrics);
  }

  /**
   * Counts into `metrics` (the constructor calls this when given `metrics`, as the composition root does):
   * - `scheduler_reports_scheduled_total`: ReportScheduled written to the outbox by THIS instance
   *   (counted after the batch committed; summed over instances it is the cluster's firing rate,
   *   and a double fire would show as more than one per facility and period);
   * - `scheduler_ticks_total{outcome}`: polls of the job store, outcome fired | idle | failed.
   */
  instrument(metrics: Metrics): void {
    const scheduled = metrics.counter({ name: 'scheduler_reports_scheduled_total', help: 'ReportScheduled events written by this scheduler instance' });
    const ticks = metrics.counter({ name: 'scheduler_ticks_total', help: 'Scheduler polls of the job store, by outcome (fired, idle, failed)', labelNames: ['outcome'] });
    for (const outcome of ['fired', 'idle', 'failed'] as const) ticks.inc({ outcome }, 0);
    this.counters = { scheduled: (count) => scheduled.inc(count), tick: (outcome) => ticks.inc({ outcome }) };
  }

  /** Claims and fires every entry due now; returns when nothing due is left unclaimed. */
  async tick(): Promise<TickResult> {
    let claimed = 0;
    let fired = 0;
    try {
      for (;;) {
        const batch = await this.options.store.write((tx) => this.fireBatch(tx));
        if (batch.fired > 0) this.counters?.scheduled(batch.fired);
        claimed += batch.claimed;
        fired += batch.fired;
        if (batch.claimed < this.batchSize) break;
      }
    } catch (error) {
      this.counters?.tick('failed');
      throw error;
    }
    this.counters?.tick(fired > 0 ? 'fired' : 'idle');
    return { claimed, fired };
  }

  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    this.schedule(0);
  }

  /** Stops polling and waits for a tick in progress. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    await this.running;
  }

  private schedule(delayMs: number): void {
    this.timer = setTimeout(() => {
      this.running = this.tick()
        .then(({ fired }) => { if (fired > 0) this.options.logger.info({ fired }, 'ReportScheduled produced'); })
        .catch((error: unknown) => this.options.logger.error({ err: error }, 'scheduler tick failed; retrying at the next poll'))
        .finally(() => {
          if (!this.stopped) this.schedule(this.pollIntervalMs * (1 + Math.random() * 0.5));
        });
    }, delayMs);
    this.timer.unref();
  }

  /**
   * One transaction: claim due entries, read their facilities and the reporting plans of the
   * periods' months in two queries, write ReportScheduled to the outbox, move the entries on.
   */
  private async fireBatch(tx: TenantTransaction): Promise<TickResult> {
    const now = this.options.clock.now();
    const entries = await tx.schedules.claimDue(now, this.batchSize, this.options.instanceId);
    if (entries.length === 0) return { claimed: 0, fired: 0 };
    const facilities = new Map((await tx.facilities.findByFacilityIds(entries.map((entry) => entry.facilityId)))
      .map((facility) => [facility.facilityId, facility]));

    const due: Array<{ entry: ScheduleEntry; facility: Facility; period: ReportingPeriod }> = [];
    const retryLater: ScheduleEntry[] = [];
    for (const entry of entries) {
      const facility = facilities.get(entry.facilityId);
      if (!facility || facility.isDeleted || measuresFor(facility.scheduledReports, entry.frequency).length === 0) {
        // Stale entry (the facility changed without rescheduling, e.g. by hand in the database).
        await tx.schedules.remove(entry.facilityId, entry.frequency);
        continue;
      }
      let period: ReportingPeriod;
      try {
        period = periodContaining(entry.frequency, now, facility.timeZone);
      } catch (error) {
        // A zone the runtime does not know (edited in the database, or dropped by a tz-data update) must
        // not block the batch: retry this entry in an hour and fire everything else.
        this.options.logger.error({ err: error, facilityId: facility.facilityId, timeZone: facility.timeZone }, 'cannot compute the reporting period; retrying in an hour');
        retryLater.push({ ...entry, nextFireAt: new Date(now.getTime() + RETRY_AFTER_MS) });
        continue;
      }
      due.push({ entry, facility, period });
    }

    const months = [...new Map(due.map(({ period }) => [`${period.localYear}-${period.localMonth}`, { year: period.localYear, month: period.localMonth }])).values()];
    const plans = await tx.plans.findForMonths([...new Set(due.map(({ facility }) => facility.facilityId))], months);
    const mappings: MeasureMapping[] = plans.length > 0 ? await tx.mappings.list() : [];

    const reports: ScheduledReport[] = [];
    const next: ScheduleEntry[] = [...retryLater];
    for (const { entry, facility, period } of due) {
      if (entry.lastFiredPeriodStart?.getTime() !== period.start.getTime()) {
        const report = buildScheduledReport(facility, entry.frequency, period, plans, mappings);
        if (report) reports.push(report);
      }
      next.push({ ...entry, timeZone: facility.timeZone, nextFireAt: period.end, lastFiredPeriodStart: period.start });
    }
    await tx.outbox.reportsScheduled(reports);
    await tx.schedules.saveMany(next);
    return { claimed: entries.length, fired: reports.length };
  }
}
