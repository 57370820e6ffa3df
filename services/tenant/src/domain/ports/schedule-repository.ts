import type { Frequency } from '../reporting-period.js';

/** One row of the scheduler's job store: when a facility's next period of one frequency starts. */
export interface ScheduleEntry {
  readonly facilityId: string;
  readonly frequency: Frequency;
  readonly timeZone: string;
  readonly nextFireAt: Date;
  readonly lastFiredPeriodStart: Date | null;
}

export interface ScheduleRepository {
  /**
   * `forUpdate` locks the rows until the transaction ends, so a reschedule waits for a scheduler
   * transaction that holds them and then sees its committed result instead of a stale one.
   */
  findByFacility(facilityId: string, options?: { forUpdate?: boolean }): Promise<ScheduleEntry[]>;
  save(entry: ScheduleEntry): Promise<void>;
  /** Upserts several entries in one statement. */
  saveMany(entries: readonly ScheduleEntry[]): Promise<void>;
  remove(facilityId: string, frequency: Frequency): Promise<void>;
  removeAllFor(facilityId: string): Promise<void>;
  /**
   * Locks up to `limit` entries due at `now` that no other transaction holds
   * (SELECT … FOR UPDATE SKIP LOCKED); the locks last until the transaction ends.
   */
  claimDue(now: Date, limit: number, claimedBy: string): Promise<ScheduleEntry[]>;
}
