import {
  ConfigError, cacheSettings, databaseSettings, enumSetting, type ConfigProblem, httpSettings, intSetting, loggingSettings, natsSettings,
  secondsSetting, shutdownSettings, stringSetting, urlSetting, envVarName, type ConfigOf,
} from '#adapters/config/index.js';
import { authSettings } from '#adapters/auth/index.js';
import { DEFAULT_MESSAGE_WORDING, MESSAGE_WORDINGS } from './domain/engine/wording.js';
import { validationApiSettings } from './adapters/http/validation-api-module.js';
import { terminologyCredentialSettings } from './adapters/terminology/credential-settings.js';
import { remoteTerminologyConfigured, TERMINOLOGY_TRANSPORTS } from './adapters/terminology/terminology-endpoint.js';
import { UNAVAILABLE_SEVERITIES } from './adapters/terminology/remote-terminology.js';

/**
 * Configuration of the validation service (docs/configuration.md). Property names follow the
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
  terminologyTransport: enumSetting('terminology.transport', 'How the platform terminology service is asked: http ($validate-code at svc.terminology-service-url + /api/terminology/fhir, with the caller\'s token) or nats '
    + '(the commands ValidateValueSetCode / ValidateCodeSystemCode by request-reply on this service\'s NATS connection, no caller token; svc.terminology-service-url is then not needed). '
    + 'Same timeout, retries and validate-code cache either way; an external svc.fhir-terminology-service-url still wins and is asked over HTTP', TERMINOLOGY_TRANSPORTS).default('http'),
  messageWording: enumSetting('validation.message-wording', 'Wording of the issues\' texts: hapi (the HAPI validator\'s that Link Cloud embeds, which its exported categories match) or hl7 (the newest HL7 validator\'s). '
    + 'The message id an issue carries is the same in both, so categories that select by MESSAGE_ID work with either; see docs/message-wording.md', MESSAGE_WORDINGS).default(DEFAULT_MESSAGE_WORDING),
  terminologyUnavailableSeverity: enumSetting('terminology.unavailable-severity', 'Severity of the issue a code gets when the terminology server could not answer for it (down, timing out, failing, or its circuit open after repeated failures): '
    + 'the issue says the submission is not fully checked. The bundled category terminology_service_error (not acceptable) fails such a submission either way; where categories accept or drop it, '
    + 'warning (default) lets it pass with the issue in its outcome (fail open, said so) and error fails it (fail closed). The text never names the server', UNAVAILABLE_SEVERITIES).default('warning'),
  terminologyTimeoutMs: intSetting('svc.terminology-timeout-ms', 'Timeout of one remote $validate-code call (one attempt, HTTP or NATS)', { min: 100, max: 120_000 }).default(5_000),
  // svc.fhir-terminology-service.*: our own credentials for the external server (never the caller's token).
  ...terminologyCredentialSettings(),
  reportServiceUrl: urlSetting('svc.report-service-url', 'Base URL of the report service').default('http://127.0.0.1:5110'),
  reportServicePath: stringSetting('svc.report-service.patient-path', 'Path template of a patient submission at the report service (the original system\'s route by default); {facilityId}, {patientId}, {reportId} are substituted, URL-encoded')
    .default('/api/Report/Bundle/Patient?facilityId={facilityId}&patientId={patientId}&reportScheduleId={reportId}'),
  reportServiceReportPath: stringSetting('svc.report-service.report-path', 'Path template of a report\'s summary (measures, reporting period) at the report service, shown by the pre-qualification report (the original system\'s route by default); {facilityId}, {reportId} are substituted, URL-encoded')
    .default('/api/Report/schedule?facilityId={facilityId}&reportScheduleId={reportId}'),
  reportServiceTimeoutMs: intSetting('svc.report-service.timeout-ms', 'Timeout of one report-service call', { min: 100, max: 600_000 }).default(30_000),
  reportServiceToken: stringSetting('svc.report-service.token', 'Service bearer token sent to the report service when no caller token is passed on').secret().optional(),
  validationWorkers: intSetting('validation.workers', 'Worker threads that validate resources (0 = one per core); every validation runs in one of them, never in the main thread, so one that passes its deadline can be stopped', { min: 0, max: 64 }).default(0),
  validationResourceTimeoutMs: intSetting('validation.resource-timeout-ms', 'Longest one resource may take to validate, waits for the terminology server included: its worker thread is then terminated and replaced, and the resource gets a fatal issue "Validation of this resource did not finish within N ms" ($validate answers 422). Also the whole budget of a $validate, $validate-and-categorize or $categorize request from its arrival: reading its body and waiting for a worker count, and its answer leaves within it (422 when the budget is spent). With a terminology server, more than 3 x svc.terminology-timeout-ms + 4 s (its three attempts), so that an unreachable server is reported as unavailable rather than as timeouts', { min: 100, max: 600_000 }).default(20_000),
  validationWorkerHeapMb: intSetting('validation.worker-heap-mb', 'Heap limit of each validation worker in MB (its old generation): a worker that passes it is replaced and the resource it was validating gets a fatal issue "Validation of this resource needed more than N MB of memory" ($validate answers 422), as for a deadline. '
    + '0 = derived: 60% of the pod\'s memory (its cgroup limit, else the machine\'s) split between the workers, at least 512 and at most 4096', { min: 0, max: 65_536 }).default(0),
  validationMaxIssuesPerResource: intSetting('validation.max-issues-per-resource', 'Issues kept per validated resource (HL7\'s max-validation-messages): the rest are counted, not built, and one information issue says how many were dropped; a $validate setting maxValidationMessages may lower it, never raise it. '
    + 'A submission keeps at most 100,000 issues in all, then one issue with the number omitted and their worst severity', { min: 1, max: 1_000_000 }).default(10_000),
  validationSubmissionTimeoutMs: intSetting('validation.submission-timeout-ms', 'Worker time all resources of one submission may take together (busy time: waiting for a worker or for the terminology server does not count; a resource stopped at its deadline counts in full); the resources not validated by then get a fatal issue', { min: 100, max: 3_600_000 }).default(60_000),
  validationQueueLimit: intSetting('validation.queue-limit', 'Validation tasks that may wait for a worker, in each of two lanes ($validate, the ReadyForValidation flow; neither can fill the other\'s): beyond it $validate answers 503 with Retry-After, and the ReadyForValidation consumer fetches no more messages until there is room', { min: 1, max: 100_000 }).default(64),
  validationMaxMbInFlight: intSetting('validation.max-mb-in-flight', 'MB of submissions and resource texts queued or running in the validation workers: beyond it $validate answers 503 with Retry-After and the ReadyForValidation consumer fetches no more messages until some finish (one always runs, whatever its size); admission by memory, not by the number of tasks', { min: 1, max: 65_536 }).default(256),
  validationStallTimeoutMs: intSetting('validation.stall-timeout-ms', 'A worker pool that has work but finishes nothing for this long is reported not ready and not live (/health/ready and /health answer 503, so Kubernetes restarts the pod); at least twice validation.resource-timeout-ms', { min: 1_000, max: 3_600_000 }).default(60_000),
  validationConsumerConcurrency: intSetting('validation.consumer-concurrency', 'ReadyForValidation messages handled at once by this instance (0 = twelve per validation worker)', { min: 0, max: 256 }).default(0),
  validationMaxDeliveries: intSetting('validation.max-deliveries', 'Deliveries of one ReadyForValidation before it is dead-lettered when it fails for a reason other than an outage (an outage of the database or report service is retried in place and uses up none)', { min: 1, max: 100 }).default(5),
  validationOutageRetryHorizon: secondsSetting('validation.outage-retry-horizon', 'How long a ReadyForValidation is held and retried in place while the database or the report service is unavailable, before it is dead-lettered', { min: 1 }).default(3_600),
  validationOutageRetryMaxDelay: secondsSetting('validation.outage-retry-max-delay', 'Longest wait between two in-place retries during an outage (the waits double from 1 s up to this)', { min: 1 }).default(30),
  artifactCheckInterval: secondsSetting('validation.artifact-check-interval', 'How often each instance compares the generation of the stored artifacts with the one its engine was built from, and rebuilds when they differ (a missed "artifacts changed" notice is made good within this)', { min: 1, max: 3_600 }).default(30),
  referenceServerUrl: urlSetting('validation.reference-server-url', 'A FHIR server base the engine may read referenced resources from (GET [base]/Type/id, no caller token) when a validation\'s reference policy checks that references exist (setting referencePolicy); absent = references resolve only inside the submission and the stored RESOURCE artifacts, nothing is fetched from the network').optional(),
  referenceServerTimeoutMs: intSetting('validation.reference-server-timeout-ms', 'Timeout of one read from validation.reference-server-url (one retry)', { min: 100, max: 60_000 }).default(5_000),
  definitionCacheDir: stringSetting('validation.definition-cache-dir', 'Directory of the start-up cache of parsed FHIR definitions').default('.cache/fhir-definitions'),
};

/** What the terminology client may wait for one answer: three attempts, and two waits of at most 2 s between them. */
export function terminologyWorstCaseMs(terminologyTimeoutMs: number): number {
  return 3 * terminologyTimeoutMs + 4_000;
}

/**
 * What the settings must satisfy together (each is checked on its own by the schema). A pool must
 * have the time to stop a stuck resource and start a replacement worker before it counts as
 * stalled. A resource's budget must outlast the terminology client's attempts: otherwise a
 * terminology server that stops answering turns every resource that needs it into a timeout (a
 * fatal issue) instead of a terminology-unavailable warning. Throws ConfigError (exit code 78).
 */
export function checkValidationSettings(config: Pick<ConfigOf<typeof validationSchema>,
  'validationResourceTimeoutMs' | 'validationStallTimeoutMs' | 'terminologyTimeoutMs' | 'fhirTerminologyServiceUrl' | 'terminologyServiceUrl' | 'terminologyTransport'>): void {
  const problems: ConfigProblem[] = [];
  const problem = (property: string, message: string) => problems.push({ property, envVar: envVarName(property), message });
  if (config.validationStallTimeoutMs < 2 * config.validationResourceTimeoutMs) {
    problem('validation.stall-timeout-ms', `must be at least twice validation.resource-timeout-ms (${config.validationResourceTimeoutMs}); got ${config.validationStallTimeoutMs}`);
  }
  const terminologyMs = terminologyWorstCaseMs(config.terminologyTimeoutMs);
  const remote = remoteTerminologyConfigured({
    fhirTerminologyServiceUrl: config.fhirTerminologyServiceUrl, terminologyServiceUrl: config.terminologyServiceUrl, transport: config.terminologyTransport,
  });
  if (remote && config.validationResourceTimeoutMs <= terminologyMs) {
    problem('validation.resource-timeout-ms', `must be more than 3 x svc.terminology-timeout-ms + 4000 (${terminologyMs}) while a terminology server is configured; got ${config.validationResourceTimeoutMs}`);
  }
  if (problems.length > 0) throw new ConfigError(problems);
}
