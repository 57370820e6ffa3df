import {
  cacheSettings, databaseSettings, httpSettings, intSetting, loggingSettings, natsSettings,
  secondsSetting, shutdownSettings, stringSetting, urlSetting,
} from '../../../adapters/config/index.js';
import { authSettings } from '../../../adapters/auth/index.js';
import { validationApiSettings } from './adapters/http/validation-api-module.js';
import { terminologyCredentialSettings } from './adapters/terminology/credential-settings.js';

/**
 * Configuration of the validation service (README, configuration reference). Property names follow the
 * specification where it names them (`artifact.init`, `svc.fhir-terminology-service-url`,
 * `svc.terminology-service-url`, `cache.type`, `cache.validate-code.ttl`, `data.cache-server.*`).
 * The runtime's heap (the specification's "runtime tool options" variable) is Node's own `NODE_OPTIONS`,
 * e.g. `NODE_OPTIONS=--max-old-space-size=2048`; it is read by Node, not by this schema.
 */
export const validationSchema = {
  ...httpSettings({ port: 8081 }),
  ...databaseSettings({ name: 'validation' }),
  ...natsSettings(),
  ...cacheSettings(),
  ...loggingSettings(),
  ...shutdownSettings(),
  ...authSettings(),
  // artifact.init, artifact.init-dir, validate.body-limit: declared once, by the validation API.
  ...validationApiSettings(),
  fhirTerminologyServiceUrl: urlSetting('svc.fhir-terminology-service-url', 'External FHIR terminology server used directly for $validate-code (first priority)').optional(),
  terminologyServiceUrl: urlSetting('svc.terminology-service-url', 'Base URL of the platform terminology service; /api/terminology/fhir is appended (second priority)').optional(),
  terminologyTimeoutMs: intSetting('svc.terminology-timeout-ms', 'Timeout of one remote $validate-code call', { min: 100, max: 120_000 }).default(5_000),
  // svc.fhir-terminology-service.*: our own credentials for the external server (never the caller's token).
  ...terminologyCredentialSettings(),
  reportServiceUrl: urlSetting('svc.report-service-url', 'Base URL of the report service').default('http://127.0.0.1:5110'),
  reportServicePath: stringSetting('svc.report-service.patient-path', 'Path template of a patient submission at the report service (the original system\'s route by default); {facilityId}, {patientId}, {reportId} are substituted, URL-encoded')
    .default('/api/Report/Bundle/Patient?facilityId={facilityId}&patientId={patientId}&reportScheduleId={reportId}'),
  reportServiceTimeoutMs: intSetting('svc.report-service.timeout-ms', 'Timeout of one report-service call', { min: 100, max: 600_000 }).default(30_000),
  reportServiceToken: stringSetting('svc.report-service.token', 'Service bearer token sent to the report service when no caller token is passed on').secret().optional(),
  validationWorkers: intSetting('validation.workers', 'Worker threads that validate resources (0 = one per core)', { min: 0, max: 64 }).default(0),
  validationConsumerConcurrency: intSetting('validation.consumer-concurrency', 'ReadyForValidation messages handled at once by this instance', { min: 1, max: 256 }).default(4),
  validationMaxDeliveries: intSetting('validation.max-deliveries', 'Deliveries of one ReadyForValidation before it is dead-lettered when it fails for a reason other than an outage (an outage of the database or report service is retried in place and uses up none)', { min: 1, max: 100 }).default(5),
  validationOutageRetryHorizon: secondsSetting('validation.outage-retry-horizon', 'How long a ReadyForValidation is held and retried in place while the database or the report service is unavailable, before it is dead-lettered', { min: 1 }).default(3_600),
  validationOutageRetryMaxDelay: secondsSetting('validation.outage-retry-max-delay', 'Longest wait between two in-place retries during an outage (the waits double from 1 s up to this)', { min: 1 }).default(30),
  artifactCheckInterval: secondsSetting('validation.artifact-check-interval', 'How often each instance compares the generation of the stored artifacts with the one its engine was built from, and rebuilds when they differ (a missed "artifacts changed" notice is made good within this)', { min: 1, max: 3_600 }).default(30),
  definitionCacheDir: stringSetting('validation.definition-cache-dir', 'Directory of the start-up cache of parsed FHIR definitions').default('.cache/fhir-definitions'),
};
