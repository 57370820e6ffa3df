import { validateEhrConnections, type EhrConnection } from './ehr-connection.js';
import { ProblemCollector } from '#shared-kernel/domain/errors.js';
import { FREQUENCIES, type Frequency } from './reporting-period.js';
import { timeZoneProblem } from './time-zone.js';

/** Measure ids per frequency; a measure appears in at most one list, at most once. */
export interface ScheduledReports {
  readonly daily: readonly string[];
  readonly weekly: readonly string[];
  readonly monthly: readonly string[];
}

export interface Facility {
  /** Technical id (UUID). */
  readonly id: string;
  /** The organization identifier of the reporting facility; unique. */
  readonly facilityId: string;
  readonly facilityName: string | null;
  /** IANA time-zone name; reporting periods are computed in it. */
  readonly timeZone: string;
  readonly scheduledReports: ScheduledReports;
  readonly vendorVersionId: string | null;
  /** Signing key reference (kid) for outbound EHR authentication; managed by the key registry. */
  readonly keyId: string | null;
  /** The EHR token endpoints the facility authenticates at, each with its client id (outbound authentication). */
  readonly ehrConnections: readonly EhrConnection[];
  readonly isDeleted: boolean;
  readonly createDate: Date;
  readonly modifyDate: Date | null;
}

/** What a client may set on create or update. */
export interface FacilityInput {
  readonly facilityId: string;
  readonly facilityName?: string | null;
  readonly timeZone: string;
  readonly scheduledReports?: Partial<ScheduledReports> | null;
  readonly vendorVersionId?: string | null;
  readonly keyId?: string | null;
  /** Undefined keeps what is stored on update (a client unaware of the field must not erase it); null or [] clears. */
  readonly ehrConnections?: readonly Partial<EhrConnection>[] | null;
}

export const FACILITY_ID_MAX_LENGTH = 100;
export const NAME_MAX_LENGTH = 255;
export const MEASURE_ID_MAX_LENGTH = 255;
// eslint-disable-next-line no-control-regex
const CONTROL_CHARACTERS = /[\u0000-\u001f\u007f]/;

const FREQUENCY_KEYS = { Daily: 'daily', Weekly: 'weekly', Monthly: 'monthly' } as const satisfies Record<Frequency, keyof ScheduledReports>;

export function measuresFor(reports: ScheduledReports, frequency: Frequency): readonly string[] {
  return reports[FREQUENCY_KEYS[frequency]];
}

export function allScheduledMeasures(reports: ScheduledReports): string[] {
  return [...reports.daily, ...reports.weekly, ...reports.monthly];
}

/** Frequencies that have at least one measure; only those get a schedule. */
export function scheduledFrequencies(reports: ScheduledReports): Frequency[] {
  return FREQUENCIES.filter((frequency) => measuresFor(reports, frequency).length > 0);
}

export function normalizeScheduledReports(reports: Partial<ScheduledReports> | null | undefined): ScheduledReports {
  const trimmed = (list: readonly string[] | undefined) => (list ?? []).map((measure) => measure.trim());
  return { daily: trimmed(reports?.daily), weekly: trimmed(reports?.weekly), monthly: trimmed(reports?.monthly) };
}

const blankToNull = (value: string | null | undefined): string | null =>
  value === undefined || value === null || value.trim() === '' ? null : value.trim();

/**
 * Checks a facility write and returns the normalised values, or throws InvalidInputError listing
 * every problem with the field it concerns (the original's rules: FacilityId and TimeZone required,
 * IANA zone, a measure in only one of daily/weekly/monthly, no duplicates).
 */
export function validateFacilityInput(input: FacilityInput): Required<Omit<FacilityInput, 'ehrConnections'>> & {
  scheduledReports: ScheduledReports;
  /** Undefined when the input did not carry the field. */
  ehrConnections: EhrConnection[] | undefined;
} {
  const problems = new ProblemCollector();
  const facilityId = (input.facilityId ?? '').trim();
  if (facilityId === '') problems.add('facilityId', 'facilityId is required');
  else if (facilityId.length > FACILITY_ID_MAX_LENGTH) problems.add('facilityId', `facilityId must be at most ${FACILITY_ID_MAX_LENGTH} characters`);
  // It ends up in message ids and headers (Nats-Msg-Id), where a line break would corrupt the message.
  else if (CONTROL_CHARACTERS.test(facilityId)) problems.add('facilityId', 'facilityId must not contain control characters');

  const facilityName = blankToNull(input.facilityName);
  if (facilityName !== null && facilityName.length > NAME_MAX_LENGTH) {
    problems.add('facilityName', `facilityName must be at most ${NAME_MAX_LENGTH} characters`);
  }

  const timeZone = (input.timeZone ?? '').trim();
  const zoneProblem = timeZoneProblem(timeZone);
  if (zoneProblem) problems.add('timeZone', zoneProblem);

  const scheduledReports = normalizeScheduledReports(input.scheduledReports);
  for (const key of ['daily', 'weekly', 'monthly'] as const) {
    scheduledReports[key].forEach((measure, index) => {
      if (measure === '') problems.add(`scheduledReports.${key}`, `scheduledReports.${key}[${index}] must not be empty`);
      else if (measure.length > MEASURE_ID_MAX_LENGTH) {
        problems.add(`scheduledReports.${key}`, `scheduledReports.${key}[${index}] must be at most ${MEASURE_ID_MAX_LENGTH} characters`);
      }
    });
  }
  const duplicates = findDuplicates(allScheduledMeasures(scheduledReports).filter((measure) => measure !== ''));
  if (duplicates.length > 0) {
    problems.add('scheduledReports', `scheduledReports: duplicate entries found (a measure may appear in only one of daily, weekly, monthly, once): ${duplicates.join(', ')}`);
  }

  const ehrConnections = input.ehrConnections === undefined ? undefined : validateEhrConnections(input.ehrConnections ?? [], problems);

  problems.throwIfAny();
  return {
    facilityId,
    facilityName,
    timeZone,
    scheduledReports,
    vendorVersionId: blankToNull(input.vendorVersionId),
    keyId: blankToNull(input.keyId),
    ehrConnections,
  };
}

function findDuplicates(values: readonly string[]): string[] {
  const seen = new Set<string>();
  const duplicates = new Set<string>();
  for (const value of values) {
    if (seen.has(value)) duplicates.add(value);
    seen.add(value);
  }
  return [...duplicates];
}
