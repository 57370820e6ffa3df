/**
 * Hand-written fixtures: for every message (and every reply) one valid payload and invalid ones,
 * each invalid one with the reason it must be refused. Valid fixtures are typed with
 * contracts/types.ts so that the TypeScript shapes and the JSON Schemas cannot drift apart silently.
 */
import type {
  AuditableEventOccurred, ErrorReply, GenerateReportRequested, GetFacilitiesList, GetFacilitiesListResult, GetFacilityConfig,
  GetFacilityConfigResult, GetServiceInfo, MessageName, MessagePayloads, ReadyForValidation, ReportScheduled, RequestReplyName,
  ResourceAcquired, ResourceEvaluated, ServiceInfo, SignClientAssertion, SignedClientAssertion, ValidateCodeResult, ValidateCodeSystemCode, ValidateValueSetCode, ValidationComplete,
} from '../types.js';

export interface Invalid { why: string; payload: unknown }

const readyForValidation: ReadyForValidation = {
  schemaVersion: '1.0.0', facilityId: 'Hospital1', patientId: '123', reportTrackingId: 'rpt-1', reportTypes: ['NHSNdQMAcuteCareHospitalInitialPopulation'],
  payloadUri: 'https://blob.example/patients/123.ndjson',
};
const validationComplete: ValidationComplete = {
  schemaVersion: '1.2.0', facilityId: 'Hospital1', patientId: '123', reportTrackingId: 'rpt-1', isValid: false, validationRunId: 'run-42',
  outcomeReference: 'OperationOutcome/run-42',
  issueCounts: { total: 5, errors: 2, warnings: 2, information: 1, categorized: 4, uncategorized: 1, unacceptable: 1 },
  validatedAt: '2026-11-22T04:00:00.123Z',
};
const resourceEvaluated: ResourceEvaluated = {
  schemaVersion: '1.0.0', facilityId: 'Hospital1', patientId: '123', reportTrackingId: 'rpt-1', measureReportId: 'mr-1', isReportable: true,
  resource: { resourceType: 'MeasureReport', id: 'mr-1', status: 'complete' },
};
const reportScheduled: ReportScheduled = {
  schemaVersion: '1.0.0', facilityId: 'Hospital1', reportTypes: ['ACH'], frequency: 'Monthly',
  startDate: '2025-03-01T05:00:00Z', endDate: '2025-04-01T03:59:59Z', scheduledAt: '2025-03-01T05:00:00Z', timeZone: 'America/New_York',
};
const audit: AuditableEventOccurred = {
  schemaVersion: '1.0.0', facilityId: 'Hospital1', serviceName: 'Tenant', correlationId: 'c-1', eventDate: '2026-11-22T04:00:00Z',
  userId: null, user: 'SystemUser', action: 'Update', resource: 'FacilityConfig',
  propertyChanges: [{ propertyName: 'facilityName', initialPropertyValue: 'Old', newPropertyValue: 'New' }], notes: 'Updated facility configuration',
};
const generateReport: GenerateReportRequested = {
  schemaVersion: '1.0.0', facilityId: 'Hospital1', reportId: 'r-1', startDate: '2025-03-01T00:00:00Z', endDate: '2025-03-31T23:59:59Z',
  reportTypes: ['ACH'], patientIds: ['p1'], bypassSubmission: false, regenerate: false,
};
const resourceAcquired: ResourceAcquired = {
  acquisitionComplete: true, patientId: 'p1', queryType: 'Initial', resource: { resourceType: 'Patient', id: 'p1' },
  scheduledReports: ['ACH'], reportableEvent: 'Discharge', reportTrackingId: 'rpt-1',
};
const vsCode: ValidateValueSetCode = { url: 'http://hl7.org/fhir/ValueSet/administrative-gender', code: 'male', system: 'http://hl7.org/fhir/administrative-gender', display: 'Male' };
const csCode: ValidateCodeSystemCode = { url: 'http://loinc.org', coding: { system: 'http://loinc.org', code: '2345-7', extension: [] } };
const facilitiesList: GetFacilitiesList = { search: 'hosp' };
const facilityConfig: GetFacilityConfig = { facilityId: 'Hospital1' };
const serviceInfo: GetServiceInfo = {};
const signClientAssertion: SignClientAssertion = { facilityId: 'Hospital1', connection: 'epic-prod' };
/** As 1.0.0 callers send it: still valid, the values must match a configured connection. */
const legacySignClientAssertion: SignClientAssertion = { facilityId: 'Hospital1', clientId: 'nhsn-link-hospital1', tokenUrl: 'https://ehr.example/oauth2/token' };

export const VALID: { [N in MessageName]: MessagePayloads[N] } = {
  ResourceAcquired: resourceAcquired,
  ReadyForValidation: readyForValidation,
  ValidationComplete: validationComplete,
  AuditableEventOccurred: audit,
  ValidateValueSetCode: vsCode,
  ValidateCodeSystemCode: csCode,
  ReportScheduled: reportScheduled,
  GenerateReportRequested: generateReport,
  ResourceEvaluated: resourceEvaluated,
  MeasureReportGenerated: resourceEvaluated,
  GetFacilitiesList: facilitiesList,
  GetFacilityConfig: facilityConfig,
  GetServiceInfo: serviceInfo,
  SignClientAssertion: signClientAssertion,
};

const without = <T extends object>(o: T, key: keyof T): unknown => { const c = { ...o }; delete c[key]; return c; };

export const INVALID: Record<MessageName, Invalid[]> = {
  ResourceAcquired: [
    { why: 'extra field', payload: { patientId: 'p1', facilityId: 'x' } },
    { why: 'patientId is a number', payload: { patientId: 5 } },
    { why: 'scheduledReports holds a non-string', payload: { scheduledReports: ['a', 1] } },
    { why: 'resource is an array', payload: { resource: [] } },
  ],
  ReadyForValidation: [
    { why: 'facilityId missing', payload: without(readyForValidation, 'facilityId') },
    { why: 'schemaVersion of another major', payload: { ...readyForValidation, schemaVersion: '2.0.0' } },
    { why: 'payloadUri not a URI', payload: { ...readyForValidation, payloadUri: 'not a uri' } },
    { why: 'reportTypes null', payload: { ...readyForValidation, reportTypes: null } },
  ],
  ValidationComplete: [
    { why: 'isValid as string', payload: { ...validationComplete, isValid: 'true' } },
    { why: 'negative count', payload: { ...validationComplete, issueCounts: { ...validationComplete.issueCounts, errors: -1 } } },
    { why: 'validatedAt not UTC', payload: { ...validationComplete, validatedAt: '2026-11-22T04:00:00+01:00' } },
  ],
  AuditableEventOccurred: [
    { why: 'unknown action', payload: { ...audit, action: 'Purge' } },
    { why: 'numeric action as in the original', payload: { ...audit, action: 1 } },
    { why: 'PascalCase property change', payload: { ...audit, propertyChanges: [{ PropertyName: 'x' }] } },
  ],
  ValidateValueSetCode: [
    { why: 'no code, coding or codeableConcept', payload: { url: 'http://vs' } },
    { why: 'url missing', payload: { code: 'x', system: 's' } },
  ],
  ValidateCodeSystemCode: [
    { why: 'no code, coding or codeableConcept', payload: { url: 'http://loinc.org', display: 'x' } },
    { why: 'system is not a field (url is the system)', payload: { url: 'http://loinc.org', code: '1', system: 'http://loinc.org' } },
  ],
  ReportScheduled: [
    { why: 'lower-case frequency', payload: { ...reportScheduled, frequency: 'monthly' } },
    { why: 'PascalCase original field', payload: { ...reportScheduled, ReportTypes: ['ACH'] } },
    { why: 'empty reportTypes', payload: { ...reportScheduled, reportTypes: [] } },
    { why: 'startDate not a date-time', payload: { ...reportScheduled, startDate: '2025-03-01' } },
  ],
  GenerateReportRequested: [
    { why: 'new report without dates', payload: { schemaVersion: '1.0.0', facilityId: 'f', reportId: 'r', bypassSubmission: false, regenerate: false } },
    { why: 'regenerate missing', payload: without(generateReport, 'regenerate') },
  ],
  ResourceEvaluated: [
    { why: 'resource without resourceType', payload: { ...resourceEvaluated, resource: { id: 'x' } } },
    { why: 'patientId empty', payload: { ...resourceEvaluated, patientId: '' } },
  ],
  MeasureReportGenerated: [{ why: 'facilityId missing', payload: without(resourceEvaluated, 'facilityId') }],
  GetFacilitiesList: [{ why: 'unknown filter', payload: { name: 'x' } }, { why: 'not an object', payload: 'hosp' }],
  GetFacilityConfig: [{ why: 'facilityId missing', payload: {} }, { why: 'facilityId empty', payload: { facilityId: '' } }],
  GetServiceInfo: [{ why: 'unexpected parameter', payload: { verbose: true } }],
  SignClientAssertion: [
    { why: 'facilityId missing', payload: without(signClientAssertion, 'facilityId') },
    { why: 'connection empty', payload: { ...signClientAssertion, connection: '' } },
    { why: 'tokenUrl not an http(s) URL', payload: { ...legacySignClientAssertion, tokenUrl: 'ehr.example/token' } },
    { why: 'clientId empty', payload: { ...legacySignClientAssertion, clientId: '' } },
    { why: 'unknown field (aud comes from the configured connection)', payload: { ...signClientAssertion, aud: 'x' } },
  ],
};

const notFound: ErrorReply = { error: { code: 'NOT_FOUND', message: 'Facility Hospital9 not found' } };
const codeResult: ValidateCodeResult = { result: false, message: "Unknown code 'x'", display: 'Male' };
const listResult: GetFacilitiesListResult = { facilities: [{ facilityId: 'Hospital1', facilityName: 'Hospital One' }] };
const configResult: GetFacilityConfigResult = { facility: {
  id: '9b2f3c4e-0000-4000-8000-000000000001', facilityId: 'Hospital1', facilityName: 'Hospital One', timeZone: 'America/Chicago',
  scheduledReports: { daily: [], weekly: [], monthly: ['ACH'] }, isDeleted: false, createdAt: '2026-01-01T00:00:00Z', modifiedAt: null,
  ehrConnections: [{ name: 'epic-prod', clientId: 'nhsn-link-hospital1', tokenUrl: 'https://ehr.example/oauth2/token' }],
} };
const info: ServiceInfo = { name: 'Link Tenant Service', version: '0.1.0' };
const signedAssertion: SignedClientAssertion = {
  clientAssertion: 'eyJhbGciOiJFUzM4NCJ9.eyJpc3MiOiJjIn0.c2ln', clientAssertionType: 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer',
  kid: '0b9e8f3a-1c2d-4e5f-8a9b-0c1d2e3f4a5b', alg: 'ES384', jti: 'f3b1c2d4-0000-4000-8000-000000000009', expiresAt: '2026-11-22T05:04:00Z',
  connection: 'epic-prod', clientId: 'nhsn-link-hospital1', tokenUrl: 'https://ehr.example/oauth2/token',
};

export const VALID_REPLIES: Record<RequestReplyName, unknown[]> = {
  ValidateValueSetCode: [codeResult, { error: { code: 'UNAVAILABLE', message: 'terminology server down' } }],
  ValidateCodeSystemCode: [{ result: true }],
  GetFacilitiesList: [listResult, { facilities: [] }],
  GetFacilityConfig: [configResult, notFound],
  GetServiceInfo: [info],
  SignClientAssertion: [signedAssertion, { error: { code: 'CONFLICT', message: 'Facility Hospital1 has no signing key' } }],
};

export const INVALID_REPLIES: Record<RequestReplyName, Invalid[]> = {
  ValidateValueSetCode: [{ why: 'result missing', payload: { message: 'x' } }, { why: 'unknown error code', payload: { error: { code: 'OOPS', message: 'x' } } }],
  ValidateCodeSystemCode: [{ why: 'result and error together', payload: { result: true, error: { code: 'INTERNAL', message: 'x' } } }],
  GetFacilitiesList: [{ why: 'original map shape', payload: { Hospital1: 'Hospital One' } }],
  GetFacilityConfig: [
    { why: 'facility without timeZone', payload: { facility: { ...configResult.facility, timeZone: undefined } } },
    { why: 'error without message', payload: { error: { code: 'NOT_FOUND' } } },
    { why: 'an EHR connection without token endpoint', payload: { facility: { ...configResult.facility, ehrConnections: [{ name: 'a', clientId: 'c' }] } } },
  ],
  GetServiceInfo: [{ why: 'version missing', payload: { name: 'x' } }],
  SignClientAssertion: [
    { why: 'alg none', payload: { ...signedAssertion, alg: 'none' } },
    { why: 'assertion is not a compact JWS', payload: { ...signedAssertion, clientAssertion: 'not-a-jwt' } },
    { why: 'private key material in the reply', payload: { ...signedAssertion, privateJwk: { d: 'x' } } },
  ],
};
