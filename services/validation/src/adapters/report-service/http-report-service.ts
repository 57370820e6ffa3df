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
 * payloadUri (ReadyForValidation): read first when it lies within the report service (same scheme,
 * host and port, under the base path: payload-uri.ts), as JSON or NDJSON (as bytes either way); refused, failing or
 * unreadable, it is logged and the submission route below is used, as the contract says. The client
 * follows no redirects, so an allowed URL cannot lead elsewhere.
 *
 * Answers: 200 → the body's bytes as received (MeasureReport, Bundle or PatientSubmissionModel; read
 * where they are validated, in a worker: nothing is parsed on this thread);
 * 404 → a definite NotFound; 5xx/429/network/timeout (after the client's own short retries) and any
 * other status → SubmissionUnavailableError, which the consumer retries with backoff and finally
 * dead-letters.
 */
import type { Logger } from '#adapters/observability/logger.js';
import { createHttpClient, staticBearer, UpstreamError, type HttpClient } from '#adapters/outbound-http/index.js';
import { payloadBytes, payloadLocation } from './payload-uri.js';
import {
  SubmissionUnavailableError,
  type FetchSubmissionOptions, type SubmissionFetch, type SubmissionKey, type SubmissionSource,
} from '../../domain/ports/submission-source.js';

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
  private readonly baseUrl: string;
  private readonly logger: Logger;

  constructor(options: HttpReportServiceOptions) {
    this.baseUrl = options.baseUrl;
    this.logger = options.logger;
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
    if (options.payloadUri) {
      const atPayload = await this.fetchPayload(options.payloadUri, options);
      if (atPayload) return atPayload;
    }
    const path = submissionPath(this.template, key);
    let response;
    try {
      response = await this.http.get<Uint8Array>(path, {
        headers: {
          accept: 'application/fhir+json, application/json;q=0.9',
          ...(options.authorization ? { authorization: options.authorization } : {}),
        },
        signal: options.signal,
        rawBody: true,
      });
    } catch (error) {
      if (error instanceof UpstreamError) {
        const why = error.status === undefined ? (error.timedOut ? 'timed out' : 'could not be reached') : `answered ${error.status}`;
        throw new SubmissionUnavailableError(`The report service ${why} after ${error.attempts} attempt(s)`, { cause: error });
      }
      throw new SubmissionUnavailableError(`The report service call failed: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
    }
    if (response.status === 404) {
      return { kind: 'not-found', detail: `The report service has no submission for patient ${key.patientId} of report ${key.reportId} (facility ${key.facilityId}): 404` };
    }
    if (response.status < 200 || response.status >= 300) {
      throw new SubmissionUnavailableError(`The report service answered ${response.status} for the submission`);
    }
    // The bytes as received: the engine reads them where it validates them (a worker), not here.
    return { kind: 'found', body: response.body };
  }

  /**
   * The submission at payloadUri, or undefined to use the submission route instead. Log lines give
   * the reason and the origin only: the path may carry a patient id (logged at debug at most).
   */
  private async fetchPayload(payloadUri: string, options: FetchSubmissionOptions): Promise<SubmissionFetch | undefined> {
    const location = payloadLocation(this.baseUrl, payloadUri);
    if (!location.allowed) {
      this.logger.warn({ reason: location.reason }, 'payloadUri refused (not within the report service); using the submission route');
      return undefined;
    }
    try {
      const response = await this.http.get<Uint8Array>(location.url.href, {
        headers: { accept: 'application/fhir+json, application/json;q=0.9, application/fhir+ndjson;q=0.8, application/x-ndjson;q=0.8', ...(options.authorization ? { authorization: options.authorization } : {}) },
        signal: options.signal,
        rawBody: true,
      });
      if (response.status < 200 || response.status >= 300) {
        this.logger.warn({ status: response.status, origin: location.url.origin }, 'payloadUri answered without the submission; using the submission route');
        return undefined;
      }
      const raw = response.body;
      const body = Buffer.isBuffer(raw) ? payloadBytes(raw.toString('utf8')) : undefined;
      if (body === undefined) {
        this.logger.warn({ origin: location.url.origin }, 'payloadUri holds neither JSON nor NDJSON; using the submission route');
        return undefined;
      }
      return { kind: 'found', body };
    } catch (error) {
      this.logger.warn({ err: error, origin: location.url.origin }, 'payloadUri could not be read; using the submission route');
      return undefined;
    }
  }
}
