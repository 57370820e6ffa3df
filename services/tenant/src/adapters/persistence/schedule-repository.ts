import type { EntityManager } from '@mikro-orm/postgresql';
import type { ScheduleEntry, ScheduleRepository } from '../../domain/ports/schedule-repository.js';
import { storedMember } from '#adapters/persistence/index.js';
import { FREQUENCIES, type Frequency } from '../../domain/reporting-period.js';

interface ScheduleRow {
  facility_id: string;
  frequency: string;
  time_zone: string;
  next_fire_at: Date | string;
  last_fired_period_start: Date | string | null;
}

function toEntry(row: ScheduleRow): ScheduleEntry {
  return {
    facilityId: row.facility_id,
    frequency: storedMember(FREQUENCIES, row.frequency, 'report_schedule.frequency'),
    timeZone: row.time_zone,
    nextFireAt: new Date(row.next_fire_at),
    lastFiredPeriodStart: row.last_fired_period_start === null ? null : new Date(row.last_fired_period_start),
  };
}

/**
 * The job store (table report_schedule) in plain SQL: the claim needs FOR UPDATE SKIP LOCKED
 * and the save an upsert, both clearer in SQL than through the unit of work.
 */
export class SqlScheduleRepository implements ScheduleRepository {
  constructor(private readonly em: EntityManager) {}

  async findByFacility(facilityId: string, options: { forUpdate?: boolean } = {}): Promise<ScheduleEntry[]> {
    const rows = await this.em.execute<ScheduleRow[]>(
      `select * from "report_schedule" where "facility_id" = ? order by "frequency"${options.forUpdate ? ' for update' : ''}`, [facilityId]);
    return rows.map(toEntry);
  }

  async save(entry: ScheduleEntry): Promise<void> {
    await this.em.execute(
      `insert into "report_schedule" ("facility_id", "frequency", "time_zone", "next_fire_at", "last_fired_period_start")
       values (?, ?, ?, ?, ?)
       on conflict ("facility_id", "frequency") do update set
         "time_zone" = excluded."time_zone", "next_fire_at" = excluded."next_fire_at",
         "last_fired_period_start" = excluded."last_fired_period_start"`,
      [entry.facilityId, entry.frequency, entry.timeZone, entry.nextFireAt, entry.lastFiredPeriodStart]);
  }

  async saveMany(entries: readonly ScheduleEntry[]): Promise<void> {
    if (entries.length === 0) return;
    const values = entries.map(() => '(?, ?, ?, ?::timestamptz, ?::timestamptz)').join(', ');
    await this.em.execute(
      `insert into "report_schedule" ("facility_id", "frequency", "time_zone", "next_fire_at", "last_fired_period_start")
       values ${values}
       on conflict ("facility_id", "frequency") do update set
         "time_zone" = excluded."time_zone", "next_fire_at" = excluded."next_fire_at",
         "last_fired_period_start" = excluded."last_fired_period_start"`,
      entries.flatMap((entry) => [entry.facilityId, entry.frequency, entry.timeZone, entry.nextFireAt, entry.lastFiredPeriodStart]));
  }

  async remove(facilityId: string, frequency: Frequency): Promise<void> {
    await this.em.execute('delete from "report_schedule" where "facility_id" = ? and "frequency" = ?', [facilityId, frequency]);
  }

  async removeAllFor(facilityId: string): Promise<void> {
    await this.em.execute('delete from "report_schedule" where "facility_id" = ?', [facilityId]);
  }

  async claimDue(now: Date, limit: number, claimedBy: string): Promise<ScheduleEntry[]> {
    if (!this.em.isInTransaction()) throw new Error('claimDue must run inside a transaction: the row locks end with it');
    const rows = await this.em.execute<ScheduleRow[]>(
      `update "report_schedule" s set "claimed_by" = ?, "claimed_at" = ?
       from (
         select "facility_id", "frequency" from "report_schedule"
         where "next_fire_at" <= ?
         order by "next_fire_at"
         limit ?
         for update skip locked
       ) due
       where s."facility_id" = due."facility_id" and s."frequency" = due."frequency"
       returning s.*`,
      [claimedBy, now, now, limit]);
    return rows.map(toEntry);
  }
}
