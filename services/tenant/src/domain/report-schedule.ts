import type { Facility } from './facility.js';
import { measuresFor } from './facility.js';
import type { FacilityReportingPlan } from './reporting-plan.js';
import type { MeasureMapping } from './measure-mapping.js';
import { mappingNames } from './measure-mapping.js';
import type { Frequency, ReportingPeriod } from './reporting-period.js';

/** The content of one ReportScheduled event. */
export interface ScheduledReport {
  readonly facilityId: string;
  readonly frequency: Frequency;
  /** The zone the period was computed in. */
  readonly timeZone: string;
  readonly measures: readonly string[];
  readonly period: ReportingPeriod;
  /** Deterministic, so a second firing of the same period is dropped by the broker's de-duplication. */
  readonly messageId: string;
}

export function scheduledReportMessageId(facilityId: string, frequency: Frequency, periodStart: Date): string {
  return `${facilityId}-${frequency}-${periodStart.toISOString()}`;
}

/**
 * The measures a facility reports for a period. When the facility has reporting plans for the
 * period's local month, only measures whose mapping has a plan with isReporting true remain;
 * without plans for that month every scheduled measure is reported.
 */
export function measuresToReport(
  facility: Facility,
  frequency: Frequency,
  period: ReportingPeriod,
  plans: readonly FacilityReportingPlan[],
  mappings: readonly MeasureMapping[],
): string[] {
  const scheduled = measuresFor(facility.scheduledReports, frequency);
  const monthPlans = plans.filter((plan) =>
    plan.facilityId === facility.facilityId && plan.reportingYear === period.localYear && plan.reportingMonth === period.localMonth);
  if (monthPlans.length === 0) return [...scheduled];
  const mappingsById = new Map(mappings.map((mapping) => [mapping.id, mapping]));
  const reporting = new Set<string>();
  for (const plan of monthPlans) {
    const mapping = mappingsById.get(plan.measureMappingId);
    if (plan.isReporting && mapping) for (const name of mappingNames(mapping)) reporting.add(name);
  }
  return scheduled.filter((measure) => reporting.has(measure));
}

/** What should be published for a facility at a firing, or null when nothing is due. */
export function buildScheduledReport(
  facility: Facility,
  frequency: Frequency,
  period: ReportingPeriod,
  plans: readonly FacilityReportingPlan[],
  mappings: readonly MeasureMapping[],
): ScheduledReport | null {
  if (facility.isDeleted) return null;
  const measures = measuresToReport(facility, frequency, period, plans, mappings);
  if (measures.length === 0) return null;
  return {
    facilityId: facility.facilityId,
    frequency,
    timeZone: facility.timeZone,
    measures,
    period,
    messageId: scheduledReportMessageId(facility.facilityId, frequency, period.start),
  };
}
