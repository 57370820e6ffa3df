import { z } from 'zod';
import type { OpenApiBuilder } from '#adapters/http/index.js';
import { FREQUENCIES } from '../../domain/reporting-period.js';

/**
 * Request and response schemas of the tenant API. The same zod schemas validate requests (400 with
 * field errors) and describe the API in the OpenAPI document; business rules (IANA zone, duplicate
 * measures, ranges) are checked by the domain and also answered with 400 naming the field.
 */
const MeasureList = z.array(z.string().max(255)).max(200);

export const ScheduledReportsSchema = z.object({
  daily: MeasureList.default([]),
  weekly: MeasureList.default([]),
  monthly: MeasureList.default([]),
}).openapi({ description: 'Measure ids per frequency; a measure may appear in only one list, once.' });

export const EhrConnectionSchema = z.object({
  name: z.string().openapi({ example: 'epic-prod', description: 'Unique within the facility (letters, digits, -, _, .; at most 64); SignClientAssertion callers name it to pick this connection' }),
  clientId: z.string().openapi({ example: 'nhsn-link-hospital-123', description: 'The client id the EHR registered for this facility: iss and sub of the client assertions' }),
  tokenUrl: z.string().openapi({
    example: 'https://ehr.example.org/oauth2/token',
    description: 'The EHR token endpoint: aud of the client assertions. https only (plain http only to a loopback address); no user info, no fragment',
  }),
}).strict().openapi({ description: 'A registration of the facility at an EHR authorization server (SMART Backend Services). Assertions are signed only for configured connections.' });

export const FacilityBodySchema = z.object({
  id: z.string().nullish().openapi({ description: 'Ignored on create; on update, when given, must be the facility\'s id' }),
  facilityId: z.string().openapi({ example: 'Hospital-123', description: 'Organization identifier of the facility; unique, at most 100 characters' }),
  facilityName: z.string().nullish().openapi({ example: 'General Hospital' }),
  timeZone: z.string().openapi({ example: 'America/Chicago', description: 'IANA time-zone name' }),
  scheduledReports: ScheduledReportsSchema.nullish(),
  vendorVersionId: z.string().nullish().openapi({ description: 'Id of a vendor version' }),
  keyId: z.string().max(255).nullish().openapi({ description: 'kid of the signing key used for this facility (key registry)' }),
  ehrConnections: z.array(EhrConnectionSchema).max(20).nullish().openapi({
    description: 'EHR token endpoints the facility authenticates at (at most 20). On update, leaving the member out keeps the stored connections; null or [] removes them',
  }),
});

export const FacilitySchema = z.object({
  id: z.string().uuid(),
  facilityId: z.string(),
  facilityName: z.string().nullable(),
  timeZone: z.string(),
  scheduledReports: z.object({ daily: z.array(z.string()), weekly: z.array(z.string()), monthly: z.array(z.string()) }),
  vendorVersionId: z.string().nullable(),
  keyId: z.string().nullable(),
  ehrConnections: z.array(z.object({ name: z.string(), clientId: z.string(), tokenUrl: z.string() })),
  isDeleted: z.boolean(),
  createDate: z.string().datetime(),
  modifyDate: z.string().datetime().nullable(),
});

const metadata = z.object({ pageSize: z.number().int(), pageNumber: z.number().int(), totalCount: z.number().int(), totalPages: z.number().int() });
export const pagedSchema = <T extends z.ZodType>(records: T) => z.object({ records: z.array(records), metadata });

export const FacilityListItemSchema = z.object({ facilityId: z.string(), facilityName: z.string().nullable(), isDeleted: z.boolean() });

const IsoInstant = z.string().datetime({ offset: true }).openapi({ example: '2026-03-01T06:00:00Z' });

export const GenerateReportBodySchema = z.object({
  startDate: IsoInstant,
  endDate: IsoInstant,
  measures: z.array(z.string().min(1).max(255)).max(200).optional().openapi({ description: 'Defaults to every measure the facility schedules' }),
  patientIds: z.array(z.string().min(1).max(200)).max(10_000).optional(),
  bypassSubmission: z.boolean().optional(),
});

export const RegenerateReportBodySchema = z.object({
  reportId: z.string().min(1).max(200),
  bypassSubmission: z.boolean().optional(),
});

export const ReportIdSchema = z.object({ reportId: z.string() });

export const NextRunSchema = z.object({
  frequency: z.enum(FREQUENCIES),
  measures: z.array(z.string()),
  timeZone: z.string().openapi({ description: 'The facility\'s IANA time zone, in which the ...Local fields are given', example: 'America/Chicago' }),
  nextFireAt: z.string().datetime().nullable().openapi({ description: 'When the job store fires next, UTC (in the past while a firing is overdue)' }),
  nextFireAtLocal: z.string().nullable().openapi({ description: 'The same instant on the facility\'s wall clock, with its offset', example: '2026-12-01T00:05:00-06:00' }),
  periods: z.array(z.object({
    start: z.string().datetime(), end: z.string().datetime().openapi({ description: 'Exclusive' }),
    startLocal: z.string().openapi({ example: '2026-12-01T00:00:00-06:00' }), endLocal: z.string(),
  })),
});

export const ReportingPlanBodySchema = z.object({
  id: z.string().optional(),
  facilityId: z.string(),
  measureMappingId: z.string(),
  reportingMonth: z.number().int(),
  reportingYear: z.number().int(),
  isReporting: z.boolean(),
});

export const ReportingPlanSchema = z.object({
  id: z.string(),
  facilityId: z.string(),
  measureMappingId: z.string(),
  reportingMonth: z.number().int(),
  reportingYear: z.number().int(),
  isReporting: z.boolean(),
  createDate: z.string().datetime(),
  modifyDate: z.string().datetime().nullable(),
});

export const MeasureMappingBodySchema = z.object({
  id: z.string().optional().openapi({ description: 'Ignored: the route id wins' }),
  dqm: z.string(),
  measure: z.string(),
  frequency: z.string().openapi({ example: 'Monthly', description: `One of ${FREQUENCIES.join(', ')}` }),
});

export const MeasureMappingSchema = z.object({
  id: z.string(), dqm: z.string(), measure: z.string(), frequency: z.enum(FREQUENCIES),
  createDate: z.string().datetime(), modifyDate: z.string().datetime().nullable(),
});

export const VendorBodySchema = z.object({ id: z.string().optional(), name: z.string(), authentication: z.string().nullish() });
export const VendorSchema = z.object({ id: z.string(), name: z.string(), authentication: z.string().nullable() });
export const VendorVersionBodySchema = z.object({ id: z.string().optional(), vendorId: z.string(), version: z.string() });
export const VendorVersionSchema = z.object({ id: z.string(), vendorId: z.string(), version: z.string() });

export const ServiceInfoSchema = z.object({ name: z.string(), version: z.string(), instanceId: z.string(), startedAt: z.string().datetime() });

/** Registers the named component schemas once; routes refer to the returned copies. */
export function registerTenantSchemas(openApi: OpenApiBuilder) {
  return {
    Facility: openApi.register('Facility', FacilitySchema),
    FacilityBody: openApi.register('FacilityBody', FacilityBodySchema),
    ReportingPlan: openApi.register('FacilityReportingPlan', ReportingPlanSchema),
    ReportingPlanBody: openApi.register('FacilityReportingPlanBody', ReportingPlanBodySchema),
    MeasureMapping: openApi.register('MeasureMapping', MeasureMappingSchema),
    MeasureMappingBody: openApi.register('MeasureMappingBody', MeasureMappingBodySchema),
    Vendor: openApi.register('Vendor', VendorSchema),
    VendorBody: openApi.register('VendorBody', VendorBodySchema),
    VendorVersion: openApi.register('VendorVersion', VendorVersionSchema),
    VendorVersionBody: openApi.register('VendorVersionBody', VendorVersionBodySchema),
  };
}
export type TenantSchemas = ReturnType<typeof registerTenantSchemas>;
