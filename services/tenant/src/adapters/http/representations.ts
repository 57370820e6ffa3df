import type { Facility } from '../../domain/facility.js';
import type { MeasureMapping } from '../../domain/measure-mapping.js';
import type { FacilityReportingPlan } from '../../domain/reporting-plan.js';

/** API representations (camelCase JSON, dates as ISO 8601 UTC). */
export function facilityRepresentation(facility: Facility) {
  return {
    id: facility.id,
    facilityId: facility.facilityId,
    facilityName: facility.facilityName,
    timeZone: facility.timeZone,
    scheduledReports: {
      daily: [...facility.scheduledReports.daily], weekly: [...facility.scheduledReports.weekly], monthly: [...facility.scheduledReports.monthly],
    },
    vendorVersionId: facility.vendorVersionId,
    keyId: facility.keyId,
    ehrConnections: facility.ehrConnections.map((connection) => ({ name: connection.name, clientId: connection.clientId, tokenUrl: connection.tokenUrl })),
    isDeleted: facility.isDeleted,
    createDate: facility.createDate.toISOString(),
    modifyDate: facility.modifyDate?.toISOString() ?? null,
  };
}

export function planRepresentation(plan: FacilityReportingPlan) {
  return { ...plan, createDate: plan.createDate.toISOString(), modifyDate: plan.modifyDate?.toISOString() ?? null };
}

export function mappingRepresentation(mapping: MeasureMapping) {
  return { ...mapping, createDate: mapping.createDate.toISOString(), modifyDate: mapping.modifyDate?.toISOString() ?? null };
}
