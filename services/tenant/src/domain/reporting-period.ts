/**
 * Reporting periods in a facility's time zone, returned as UTC instants.
 *
 * daily   = local midnight to the next local midnight
 * weekly  = Sunday 00:00 local to the next Sunday 00:00
 * monthly = the 1st 00:00 local to the next 1st 00:00
 *
 * `end` is exclusive (it is the start of the next period), so a DST day is 23 or 25 hours long.
 * Implemented with Intl only: wall-clock dates are converted to instants by reading the zone's
 * offset, and a local midnight that does not exist (zones that change clocks at 00:00) becomes
 * the first instant of that local day.
 */
export const FREQUENCIES = ['Daily', 'Weekly', 'Monthly'] as const;
export type Frequency = (typeof FREQUENCIES)[number];

export interface ReportingPeriod {
  readonly frequency: Frequency;
  readonly start: Date;
  /** Exclusive: the start of the next period. */
  readonly end: Date;
  /** Local calendar year and month (1..12) of the start; reporting plans are kept per month. */
  readonly localYear: number;
  readonly localMonth: number;
}

interface LocalDate { year: number; month: number; day: number }
interface LocalDateTime extends LocalDate { hour: number; minute: number; second: number }

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatterFor(timeZone: string): Intl.DateTimeFormat {
  let formatter = formatters.get(timeZone);
  if (!formatter) {
    formatter = new Intl.DateTimeFormat('en-US', {
      timeZone, hourCycle: 'h23',
      year: 'numeric', month: 'numeric', day: 'numeric', hour: 'numeric', minute: 'numeric', second: 'numeric',
    });
    formatters.set(timeZone, formatter);
  }
  return formatter;
}

/** The wall-clock date and time of an instant in a zone. */
export function localDateTime(instant: Date, timeZone: string): LocalDateTime {
  // The formatter's options ask for every field below, so each is set (NaN would show one missing).
  const local: LocalDateTime = { year: NaN, month: NaN, day: NaN, hour: NaN, minute: NaN, second: NaN };
  for (const part of formatterFor(timeZone).formatToParts(instant)) {
    const { type } = part;
    if (type === 'year' || type === 'month' || type === 'day' || type === 'hour' || type === 'minute' || type === 'second') local[type] = Number(part.value);
  }
  return local;
}

/** Milliseconds the zone is ahead of UTC at an instant (whole seconds). */
function offsetAt(epochMs: number, timeZone: string): number {
  const wholeSecond = Math.floor(epochMs / 1000) * 1000;
  const local = localDateTime(new Date(wholeSecond), timeZone);
  const asUtc = Date.UTC(local.year, local.month - 1, local.day, local.hour, local.minute, local.second);
  return asUtc - wholeSecond;
}

const pad = (value: number, width = 2) => String(value).padStart(width, '0');

/**
 * The instant as the facility's wall clock reads it, with the zone's offset:
 * `2026-12-01T00:00:00-05:00` (ISO 8601; the same instant as its UTC form, readable by a person there).
 */
export function localIsoDateTime(instant: Date, timeZone: string): string {
  const local = localDateTime(instant, timeZone);
  const offsetMinutes = Math.round(offsetAt(instant.getTime(), timeZone) / 60_000);
  const sign = offsetMinutes < 0 ? '-' : '+';
  const offset = Math.abs(offsetMinutes);
  return `${pad(local.year, 4)}-${pad(local.month)}-${pad(local.day)}T${pad(local.hour)}:${pad(local.minute)}:${pad(local.second)}`
    + `${sign}${pad(Math.floor(offset / 60))}:${pad(offset % 60)}`;
}

function compareDates(a: LocalDate, b: LocalDate): number {
  return Date.UTC(a.year, a.month - 1, a.day) - Date.UTC(b.year, b.month - 1, b.day);
}

/** Normalises overflowing days/months (e.g. day 32) through the proleptic Gregorian calendar. */
function calendarDate(year: number, month: number, day: number): LocalDate {
  const date = new Date(Date.UTC(year, month - 1, day));
  return { year: date.getUTCFullYear(), month: date.getUTCMonth() + 1, day: date.getUTCDate() };
}

/** The first instant whose local date in the zone is `date` (normally its 00:00). */
export function startOfLocalDay(date: LocalDate, timeZone: string): Date {
  const wallClock = Date.UTC(date.year, date.month - 1, date.day);
  // Two rounds settle the offset unless midnight falls into a DST gap.
  const first = wallClock - offsetAt(wallClock, timeZone);
  const candidate = wallClock - offsetAt(first, timeZone);
  const local = localDateTime(new Date(candidate), timeZone);
  if (compareDates(local, date) === 0 && local.hour === 0 && local.minute === 0 && local.second === 0) {
    return new Date(candidate);
  }
  // Midnight does not exist that day: search the first minute that belongs to the date.
  let low = wallClock - 15 * 3_600_000;
  let high = wallClock + 15 * 3_600_000;
  while (high - low > 60_000) {
    const middle = low + Math.floor((high - low) / 120_000) * 60_000;
    if (compareDates(localDateTime(new Date(middle), timeZone), date) >= 0) high = middle;
    else low = middle;
  }
  return new Date(high);
}

/**
 * Period bounds by zone, frequency and first local day. The bounds of a local date never change, and
 * a scheduler batch asks for the same few (10,000 facilities, one boundary) thousands of times.
 */
const boundsCache = new Map<string, { start: number; end: number }>();
const BOUNDS_CACHE_LIMIT = 50_000;

function cachedBounds(timeZone: string, frequency: Frequency, first: LocalDate, next: LocalDate): { start: number; end: number } {
  const key = `${timeZone}|${frequency}|${first.year}-${first.month}-${first.day}`;
  let bounds = boundsCache.get(key);
  if (!bounds) {
    if (boundsCache.size >= BOUNDS_CACHE_LIMIT) boundsCache.clear();
    bounds = { start: startOfLocalDay(first, timeZone).getTime(), end: startOfLocalDay(next, timeZone).getTime() };
    boundsCache.set(key, bounds);
  }
  return bounds;
}

/** The period of `frequency` that contains `instant` (start ≤ instant < end) in the zone. */
export function periodContaining(frequency: Frequency, instant: Date, timeZone: string): ReportingPeriod {
  const local = localDateTime(instant, timeZone);
  let first: LocalDate;
  let next: LocalDate;
  switch (frequency) {
    case 'Daily':
      first = calendarDate(local.year, local.month, local.day);
      next = calendarDate(local.year, local.month, local.day + 1);
      break;
    case 'Weekly': {
      const weekday = new Date(Date.UTC(local.year, local.month - 1, local.day)).getUTCDay(); // Sunday = 0
      first = calendarDate(local.year, local.month, local.day - weekday);
      next = calendarDate(local.year, local.month, local.day - weekday + 7);
      break;
    }
    case 'Monthly':
      first = calendarDate(local.year, local.month, 1);
      next = calendarDate(local.year, local.month + 1, 1);
      break;
  }
  const bounds = cachedBounds(timeZone, frequency, first, next);
  // In zones whose clocks go back across midnight the instant can precede its own day's start.
  const start = new Date(Math.min(bounds.start, instant.getTime()));
  return {
    frequency,
    start,
    end: new Date(bounds.end),
    localYear: first.year,
    localMonth: first.month,
  };
}

/** The first period start strictly after `instant`: when the next ReportScheduled is due. */
export function nextPeriodStart(frequency: Frequency, instant: Date, timeZone: string): Date {
  return periodContaining(frequency, instant, timeZone).end;
}

/** The next `count` period starts after `instant`, for showing upcoming runs. */
export function upcomingPeriodStarts(frequency: Frequency, instant: Date, timeZone: string, count: number): Date[] {
  const starts: Date[] = [];
  let cursor = instant;
  for (let i = 0; i < count; i++) {
    cursor = nextPeriodStart(frequency, cursor, timeZone);
    starts.push(cursor);
  }
  return starts;
}
