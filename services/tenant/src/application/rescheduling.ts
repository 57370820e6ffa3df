import type { Facility } from '../domain/facility.js';
import { scheduledFrequencies } from '../domain/facility.js';
import type { ScheduleEntry } from '../domain/ports/schedule-repository.js';
import type { TenantTransaction } from '../domain/ports/tenant-store.js';
import { FREQUENCIES, nextPeriodStart } from '../domain/reporting-period.js';

/**
 * Brings a facility's job-store entries in line with its configuration, inside the transaction
 * that changed the facility, so the scheduler sees the change at its next tick:
 * - one entry per frequency that has measures; none for a soft-deleted facility;
 * - a new entry first fires at the next period start (like a cron trigger created mid-period);
 * - an unchanged time zone keeps a pending (overdue) firing, so an update never swallows it;
 * - a changed time zone recomputes the next boundary in the new zone.
 */
export async function reschedule(tx: TenantTransaction, facility: Facility, now: Date): Promise<ScheduleEntry[]> {
  if (facility.isDeleted) {
    await tx.schedules.removeAllFor(facility.facilityId);
    return [];
  }
  const existing = new Map((await tx.schedules.findByFacility(facility.facilityId, { forUpdate: true })).map((entry) => [entry.frequency, entry]));
  const wanted = new Set(scheduledFrequencies(facility.scheduledReports));
  const result: ScheduleEntry[] = [];
  for (const frequency of FREQUENCIES) {
    const current = existing.get(frequency);
    if (!wanted.has(frequency)) {
      if (current) await tx.schedules.remove(facility.facilityId, frequency);
      continue;
    }
    if (current && current.timeZone === facility.timeZone) {
      result.push(current);
      continue;
    }
    const entry: ScheduleEntry = {
      facilityId: facility.facilityId,
      frequency,
      timeZone: facility.timeZone,
      nextFireAt: nextPeriodStart(frequency, now, facility.timeZone),
      lastFiredPeriodStart: current?.lastFiredPeriodStart ?? null,
    };
    await tx.schedules.save(entry);
    result.push(entry);
  }
  return result;
}
