/**
 * TypeScript shapes of the contract payloads, written by hand to match contracts/schemas (the JSON
 * Schemas are the source of truth; contracts/test/fixtures.ts types its valid fixtures with these
 * interfaces, so a drift between the two shows up as a failing fixture test).
 */

export interface ResourceAcquired {
  acquisitionComplete?: boolean | null;
  patientId?: string | null;
  queryType?: string | null;
  resource?: Record<string, unknown> | null;
  scheduledReports?: string[] | null;
  reportableEvent?: string | null;
  reportTrackingId?: string | null;
}

export interface ReadyForValidation {
  schemaVersion: string;
  facilityId: string;
  patientId: string;
  reportTrackingId: string;
  reportTypes: string[];
  payloadUri?: string;
}

export interface ValidationIssueCounts {
  total: number;
  errors: number;
  warnings: number;
  information: number;
  categorized: number;
  uncategorized: number;
  unacceptable: number;
}

export interface ValidationComplete {
  schemaVersion: string;
  facilityId: string;
  patientId: string;
  reportTrackingId: string;
  isValid: boolean;
  validationRunId: string;
  outcomeReference?: string;
  issueCounts: ValidationIssueCounts;
  validatedAt: string;
}

export interface Coding {
  system?: string;
  version?: string;
  code?: string;
  display?: string;
  userSelected?: boolean;
  [fhirElement: string]: unknown;
}

export interface CodeableConcept {
  coding?: Coding[];
  text?: string;
  [fhirElement: string]: unknown;
}

export interface ValidateValueSetCode {
  url: string;
  valueSetVersion?: string;
  code?: string;
  system?: string;
  version?: string;
  display?: string;
  coding?: Coding;
  codeableConcept?: CodeableConcept;
}

export interface ValidateCodeSystemCode {
  url: string;
  version?: string;
  code?: string;
  display?: string;
  coding?: Coding;
  codeableConcept?: CodeableConcept;
}

export interface ValidateCodeResult {
  result: boolean;
  message?: string;
  display?: string;
  code?: string;
  system?: string;
}

export interface ResourceEvaluated {
  schemaVersion: string;
  facilityId: string;
  patientId: string;
  reportTrackingId: string;
  measureReportId?: string;
  isReportable?: boolean;
  resource: { resourceType: string; [element: string]: unknown };
}

export type ReportFrequency = 'Daily' | 'Weekly' | 'Monthly';

export interface ReportScheduled {
  schemaVersion: string;
  facilityId: string;
  reportTypes: string[];
  frequency: ReportFrequency;
  startDate: string;
  endDate: string;
  scheduledAt: string;
  timeZone: string;
}

export type AuditAction = 'Create' | 'Update' | 'Delete' | 'SoftDelete' | 'Restore' | 'Query' | 'Submit';

export interface PropertyChange {
  propertyName: string;
  initialPropertyValue?: string | null;
  newPropertyValue?: string | null;
}

export interface AuditableEventOccurred {
  schemaVersion: string;
  facilityId: string;
  serviceName: string;
  correlationId: string;
  eventDate: string;
  userId?: string | null;
  user?: string | null;
  action: AuditAction;
  resource: string;
  propertyChanges?: PropertyChange[];
  notes?: string;
}

export interface GenerateReportRequested {
  schemaVersion: string;
  facilityId: string;
  reportId: string;
  startDate?: string;
  endDate?: string;
  reportTypes?: string[];
  patientIds?: string[];
  bypassSubmission: boolean;
  regenerate: boolean;
}

export interface GetFacilitiesList {
  search?: string;
  includeDeleted?: boolean;
}

export interface FacilitySummary {
  facilityId: string;
  facilityName: string;
}

export interface GetFacilitiesListResult {
  facilities: FacilitySummary[];
}

export interface GetFacilityConfig {
  facilityId: string;
  includeDeleted?: boolean;
}

/** A facility's registration at an EHR token endpoint (GetFacilityConfig 1.1.0). */
export interface EhrConnectionConfig {
  name: string;
  clientId: string;
  tokenUrl: string;
}

export interface FacilityConfig {
  id: string;
  facilityId: string;
  facilityName: string;
  timeZone: string;
  scheduledReports: { daily: string[]; weekly: string[]; monthly: string[] };
  isDeleted: boolean;
  /** Since 1.1.0. */
  ehrConnections?: EhrConnectionConfig[];
  createdAt?: string;
  modifiedAt?: string | null;
}

export interface GetFacilityConfigResult {
  facility: FacilityConfig;
}

export type GetServiceInfo = Record<string, never>;

export interface ServiceInfo {
  name: string;
  version: string;
  instanceId?: string;
  startedAt?: string;
}

/**
 * The client id and audience come from the facility's configured EHR connections; a caller only
 * picks one (`connection`, or the deprecated 1.0.0 members, which must match a configured one).
 */
export interface SignClientAssertion {
  facilityId: string;
  /** Since 1.1.0; optional when the facility has exactly one connection. */
  connection?: string;
  /** Deprecated: must equal the chosen connection's client id. */
  clientId?: string;
  /** Deprecated: picks the configured connection with this token endpoint. */
  tokenUrl?: string;
}

export type ClientAssertionAlgorithm = 'RS384' | 'ES384' | 'RS256' | 'ES256' | 'PS384' | 'EdDSA';

export interface SignedClientAssertion {
  clientAssertion: string;
  clientAssertionType: 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer';
  kid: string;
  alg: ClientAssertionAlgorithm;
  jti: string;
  expiresAt: string;
  /** Since 1.1.0: the configured connection the assertion was signed for. */
  connection?: string;
  clientId?: string;
  tokenUrl?: string;
}

export type ErrorCode = 'BAD_REQUEST' | 'NOT_FOUND' | 'CONFLICT' | 'FORBIDDEN' | 'UNAVAILABLE' | 'INTERNAL';

/** The typed error every request-reply message may answer with instead of its result. */
export interface ErrorReply {
  error: { code: ErrorCode; message: string; details?: string[] };
}

/** Payload type per message name (the request, for request-reply messages). */
export interface MessagePayloads {
  ResourceAcquired: ResourceAcquired;
  ReadyForValidation: ReadyForValidation;
  ValidationComplete: ValidationComplete;
  AuditableEventOccurred: AuditableEventOccurred;
  ValidateValueSetCode: ValidateValueSetCode;
  ValidateCodeSystemCode: ValidateCodeSystemCode;
  ReportScheduled: ReportScheduled;
  GenerateReportRequested: GenerateReportRequested;
  ResourceEvaluated: ResourceEvaluated;
  MeasureReportGenerated: ResourceEvaluated;
  GetFacilitiesList: GetFacilitiesList;
  GetFacilityConfig: GetFacilityConfig;
  GetServiceInfo: GetServiceInfo;
  SignClientAssertion: SignClientAssertion;
}

/** Successful reply type per request-reply message name. */
export interface ReplyPayloads {
  ValidateValueSetCode: ValidateCodeResult;
  ValidateCodeSystemCode: ValidateCodeResult;
  GetFacilitiesList: GetFacilitiesListResult;
  GetFacilityConfig: GetFacilityConfigResult;
  GetServiceInfo: ServiceInfo;
  SignClientAssertion: SignedClientAssertion;
}

export type MessageName = keyof MessagePayloads;
export type RequestReplyName = keyof ReplyPayloads;
/** What a responder sends back: the result or a typed error. */
export type ReplyOf<N extends RequestReplyName> = ReplyPayloads[N] | ErrorReply;

export function isErrorReply(reply: unknown): reply is ErrorReply {
  return typeof reply === 'object' && reply !== null && 'error' in reply;
}
