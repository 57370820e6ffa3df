/**
 * The report service over HTTP (the SubmissionSource port).
 *
 * URL = `svc.report-service-url` + `svc.report-service.patient-path` with `{facilityId}`,
 * `{patientId}` and `{reportId}` substituted (URL-encoded). The default path is the original
 * system's submission route (link-cloud §1.5):
 *   `/api/Report/Bundle/Patient?facilityId={facilityId}&patientId={patientId}&reportScheduleId={reportId}`
 *
 * Authorization: the caller's header when one is passed, else inside an HTTP request the incoming
 * one (the report service is a platform service: its client propagates the caller's token), else
 * `svc.report-service.token` as a bearer token.
 *
 * Answers: 200 → the body (MeasureReport, Bundle or PatientSubmissionModel; the flow reads it);
 * 404 → a definite NotFound; 5xx/429/network/timeout (after the client's own short retries) and any
 * other status → SubmissionUnavailableError, which the consumer retries with backoff and finally
 * dead-letters.
 */
import type { Logger } from '../../../../../adapters/observability/logger.js';
import { createHttpClient, staticBearer, UpstreamError, type HttpClient } from '../../../../../adapters/outbound-http/index.js';
import {
  SubmissionUnavailableError,
  type FetchSubmissionOptions, type SubmissionFetch, type SubmissionKey, type SubmissionSource,
} from '../../domain/flow/submission.js';

export const DEFAULT_REPORT_SERVICE_PATH = '/api/Report/Bundle/Patient?facilityId={facilityId}&patientId={patientId}&reportScheduleId={reportId}';

export interface HttpReportServiceOptions {
  /** svc.report-service-url */
  readonly baseUrl: string;
  /** svc.report-service.patient-path */
  readonly pathTemplate?: string;
  /** svc.report-service.timeout-ms (per attempt) */
  readonly timeoutMs?: number;
  /** svc.report-service.token */
  readonly serviceToken?: string;
  /** Extra attempts inside one delivery (the consumer's redelivery is the long-term retry); default 1. */
  readonly retries?: number;
  readonly retryBaseDelayMs?: number;
  readonly logger: Logger;
  /** Replaces the HTTP client (tests). */
  readonly http?: HttpClient;
}

const PLACEHOLDER = /\{(facilityId|patientId|reportId)\}/g;

/** The path of one submission: every placeholder substituted and URL-encoded. */
export function submissionPath(template: string, key: SubmissionKey): string {
  return template.replace(PLACEHOLDER, (_, name: keyof SubmissionKey) => encodeURIComponent(key[name]));
}

export class HttpReportService implements SubmissionSource {
  private readonly http: HttpClient;
  private readonly template: string;

  constructor(options: HttpReportServiceOptions) {
    this.template = options.pathTemplate ?? DEFAULT_REPORT_SERVICE_PATH;
    const token = options.serviceToken;
    this.http = options.http ?? createHttpClient({
      baseUrl: options.baseUrl,
      timeoutMs: options.timeoutMs ?? 30_000,
      retries: options.retries ?? 1,
      retryBaseDelayMs: options.retryBaseDelayMs ?? 200,
      propagateCallerAuthorization: true,
      credentials: token ? staticBearer(token) : undefined,
      logger: options.logger,
    });
  }

  async fetch(key: SubmissionKey, options: FetchSubmissionOptions = {}): Promise<SubmissionFetch> {
    const path = submissionPath(this.template, key);
    let response;
    try {
      response = await this.http.get(path, {
        headers: {
          accept: 'application/fhir+json, application/json;q=0.9',
          ...(options.authorization ? { authorization: options.authorization } : {}),
        },
        signal: options.signal,
      });
    } catch (error) {
      if (error instanceof UpstreamError) {
        const why = error.status === undefined ? (error.timedOut ? 'timed out' : 'could not be reached') : `answered ${error.status}`;
        throw new SubmissionUnavailableError(`The report service ${why} after ${error.attempts} attempt(s)`, { cause: error });
      }
      throw new SubmissionUnavailableError(`The report service call failed: ${(error as Error).message}`, { cause: error });
    }
    if (response.status === 404) {
      return { kind: 'not-found', detail: `The report service has no submission for patient ${key.patientId} of report ${key.reportId} (facility ${key.facilityId}): 404` };
    }
    if (response.status < 200 || response.status >= 300) {
      throw new SubmissionUnavailableError(`The report service answered ${response.status} for the submission`);
    }
    const body = Buffer.isBuffer(response.body) ? response.body.toString('utf8') : response.body;
    return { kind: 'found', body };
  }
}
