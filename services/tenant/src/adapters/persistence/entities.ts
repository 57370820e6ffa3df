import { defineEntity, p, type InferEntity } from '@mikro-orm/postgresql';
import type { EhrConnection } from '../../domain/ehr-connection.js';
import type { ScheduledReports } from '../../domain/facility.js';

/**
 * MikroORM entity definitions of the tenant database. Column names are snake_case (MikroORM's
 * default naming strategy); the tables themselves are created by migrations.ts.
 */
export const FacilityEntity = defineEntity({
  name: 'FacilityEntity',
  tableName: 'facility',
  properties: {
    id: p.string().primary().length(36),
    facilityId: p.string().length(100),
    facilityName: p.string().length(255).nullable(),
    timeZone: p.string().length(64),
    scheduledReports: p.json<ScheduledReports>(),
    vendorVersionId: p.string().length(36).nullable(),
    keyId: p.string().length(255).nullable(),
    ehrConnections: p.json<EhrConnection[]>(),
    isDeleted: p.boolean(),
    createDate: p.datetime(),
    modifyDate: p.datetime().nullable(),
  },
});

export const ReportingPlanEntity = defineEntity({
  name: 'ReportingPlanEntity',
  tableName: 'facility_reporting_plan',
  properties: {
    id: p.string().primary().length(450),
    facilityId: p.string().length(100),
    measureMappingId: p.string().length(450),
    reportingMonth: p.integer(),
    reportingYear: p.integer(),
    isReporting: p.boolean(),
    createDate: p.datetime(),
    modifyDate: p.datetime().nullable(),
  },
});

export const MeasureMappingEntity = defineEntity({
  name: 'MeasureMappingEntity',
  tableName: 'measure_mapping',
  properties: {
    id: p.string().primary().length(450),
    dqm: p.string().length(255),
    measure: p.string().length(255),
    frequency: p.string().length(16),
    createDate: p.datetime(),
    modifyDate: p.datetime().nullable(),
  },
});

export const VendorEntity = defineEntity({
  name: 'VendorEntity',
  tableName: 'vendor',
  properties: {
    id: p.string().primary().length(36),
    name: p.string().length(255),
    authentication: p.text().nullable(),
  },
});

export const VendorVersionEntity = defineEntity({
  name: 'VendorVersionEntity',
  tableName: 'vendor_version',
  properties: {
    id: p.string().primary().length(36),
    vendorId: p.string().length(36),
    version: p.string().length(255),
  },
});

/** The scheduler's job store: one row per facility and frequency. */
export const ReportScheduleEntity = defineEntity({
  name: 'ReportScheduleEntity',
  tableName: 'report_schedule',
  properties: {
    facilityId: p.string().primary().length(100),
    frequency: p.string().primary().length(16),
    timeZone: p.string().length(64),
    nextFireAt: p.datetime(),
    lastFiredPeriodStart: p.datetime().nullable(),
    claimedBy: p.string().length(200).nullable(),
    claimedAt: p.datetime().nullable(),
  },
});

export const tenantEntities = [
  FacilityEntity, ReportingPlanEntity, MeasureMappingEntity, VendorEntity, VendorVersionEntity, ReportScheduleEntity,
];

export type FacilityRow = InferEntity<typeof FacilityEntity>;
export type ReportingPlanRow = InferEntity<typeof ReportingPlanEntity>;
export type MeasureMappingRow = InferEntity<typeof MeasureMappingEntity>;
