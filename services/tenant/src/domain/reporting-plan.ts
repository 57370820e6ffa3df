import { ProblemCollector } from '#shared-kernel/domain/errors.js';
import { FACILITY_ID_MAX_LENGTH } from './facility.js';

/** Whether a facility reports a measure (through its mapping) in one calendar month. */
export interface FacilityReportingPlan {
  readonly id: string;
  readonly facilityId: string;
  readonly measureMappingId: string;
  readonly reportingMonth: number;
  readonly reportingYear: number;
  readonly isReporting: boolean;
  readonly createDate: Date;
  readonly modifyDate: Date | null;
}

export interface ReportingPlanInput {
  readonly facilityId: string;
  readonly measureMappingId: string;
  readonly reportingMonth: number;
  readonly reportingYear: number;
  readonly isReporting: boolean;
}

export const MEASURE_MAPPING_ID_MAX_LENGTH = 450;
export const MONTH_RANGE = { min: 1, max: 12 } as const;
export const YEAR_RANGE = { min: 2000, max: 2100 } as const;

export function validateReportingPlanInput(input: ReportingPlanInput): ReportingPlanInput {
  const problems = new ProblemCollector();
  const facilityId = (input.facilityId ?? '').trim();
  const measureMappingId = (input.measureMappingId ?? '').trim();
  if (facilityId === '') problems.add('facilityId', 'facilityId is required');
  else if (facilityId.length > FACILITY_ID_MAX_LENGTH) problems.add('facilityId', `facilityId must be at most ${FACILITY_ID_MAX_LENGTH} characters`);
  if (measureMappingId === '') problems.add('measureMappingId', 'measureMappingId is required');
  else if (measureMappingId.length > MEASURE_MAPPING_ID_MAX_LENGTH) {
    problems.add('measureMappingId', `measureMappingId must be at most ${MEASURE_MAPPING_ID_MAX_LENGTH} characters`);
  }
  if (!isIntegerIn(input.reportingMonth, MONTH_RANGE)) problems.add('reportingMonth', 'reportingMonth must be an integer from 1 to 12');
  if (!isIntegerIn(input.reportingYear, YEAR_RANGE)) problems.add('reportingYear', 'reportingYear must be an integer from 2000 to 2100');
  if (typeof input.isReporting !== 'boolean') problems.add('isReporting', 'isReporting must be true or false');
  problems.throwIfAny();
  return { ...input, facilityId, measureMappingId };
}

export function isIntegerIn(value: unknown, range: { min: number; max: number }): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= range.min && value <= range.max;
}
