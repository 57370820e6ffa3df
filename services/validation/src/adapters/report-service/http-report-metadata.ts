/**
 * The report service's description of a report (measures, reporting period, submission time) for
 * the pre-qualification report: the ReportMetadataSource port over HTTP.
 *
 * URL = `svc.report-service-url` + `svc.report-service.report-path` with `{facilityId}` and
 * `{reportId}` substituted (URL-encoded). The default path is the original system's report schedule
 * summary route (link-cloud §1.5, `routes.report-schedule-summary-model`):
 *   `/api/Report/schedule?facilityId={facilityId}&reportScheduleId={reportId}`
 * answering its ReportScheduleSummaryModel
 *   `{reportId, facilityId, startDate, endDate, submitReportDateTime, measures: string[]}`.
 *
 * Authorization as for submissions: inside a request the caller's header is passed on (the report
 * service is a platform service), else `svc.report-service.token`. 200 → the metadata; 404 → undefined (the report service
 * does not know the report); anything else, a timeout or an unreadable body → an error, which the
 * report turns into a note (the verdict never depends on the metadata). The timeout is short: a
 * person is waiting for the page.
 */
import type { Logger } from '#adapters/observability/logger.js';
import { createHttpClient, staticBearer, type HttpClient } from '#adapters/outbound-http/index.js';
import type { ReportMetadata, ReportMetadataSource } from '../../domain/ports/prequal.js';

export const DEFAULT_REPORT_METADATA_PATH = '/api/Report/schedule?facilityId={facilityId}&reportScheduleId={reportId}';

/** The page waits at most this long for the report service (or the configured timeout, when shorter). */
export const REPORT_METADATA_TIMEOUT_MS = 5_000;

export interface HttpReportMetadataOptions {
  /** svc.report-service-url */
  readonly baseUrl: string;
  /** svc.report-service.report-path */
  readonly pathTemplate?: string;
  /** svc.report-service.timeout-ms (capped at REPORT_METADATA_TIMEOUT_MS) */
  readonly timeoutMs?: number;
  /** svc.report-service.token */
  readonly serviceToken?: string;
  readonly logger: Logger;
  readonly http?: HttpClient;
}

/** The report service answered something that is not a report schedule summary. */
export class ReportMetadataFormatError extends Error {
  override readonly name = 'ReportMetadataFormatError';
}

const PLACEHOLDER = /\{(facilityId|reportId)\}/g;

export function reportMetadataPath(template: string, key: { facilityId: string; reportId: string }): string {
  return template.replace(PLACEHOLDER, (_, name: 'facilityId' | 'reportId') => encodeURIComponent(key[name]));
}

/** ReportScheduleSummaryModel → ReportMetadata (dates as given; measures that are not text are left out). */
export function readReportSummary(body: unknown): ReportMetadata {
  if (!isRecord(body)) throw new ReportMetadataFormatError('The report service answer is not a JSON object');
  const summary = body;
  const text = (value: unknown) => (typeof value === 'string' && value.trim() !== '' ? value : undefined);
  if (summary.measures !== undefined && summary.measures !== null && !Array.isArray(summary.measures)) {
    throw new ReportMetadataFormatError('measures is not a list');
  }
  const measures = Array.isArray(summary.measures) ? summary.measures.filter((m): m is string => typeof m === 'string' && m !== '') : [];
  const periodStart = text(summary.startDate);
  const periodEnd = text(summary.endDate);
  const submittedAt = text(summary.submitReportDateTime);
  return {
    measures,
    ...(periodStart ? { periodStart } : {}),
    ...(periodEnd ? { periodEnd } : {}),
    ...(submittedAt ? { submittedAt } : {}),
  };
}

export class HttpReportMetadata implements ReportMetadataSource {
  private readonly http: HttpClient;
  private readonly template: string;

  constructor(options: HttpReportMetadataOptions) {
    this.template = options.pathTemplate ?? DEFAULT_REPORT_METADATA_PATH;
    const token = options.serviceToken;
    this.http = options.http ?? createHttpClient({
      baseUrl: options.baseUrl,
      timeoutMs: Math.min(options.timeoutMs ?? REPORT_METADATA_TIMEOUT_MS, REPORT_METADATA_TIMEOUT_MS),
      retries: 0,
      // A platform service: the caller's token goes on (whoever opens the report may read it), else ours.
      propagateCallerAuthorization: true,
      credentials: token ? staticBearer(token) : undefined,
      logger: options.logger,
    });
  }

  async describe(facilityId: string, reportId: string): Promise<ReportMetadata | undefined> {
    const response = await this.http.get(reportMetadataPath(this.template, { facilityId, reportId }), { headers: { accept: 'application/json' } });
    if (response.status === 404) return undefined;
    if (response.status < 200 || response.status >= 300) throw new Error(`The report service answered ${response.status} for the report summary`);
    const body = typeof response.body === 'string' ? parseJson(response.body) : Buffer.isBuffer(response.body) ? parseJson(response.body.toString('utf8')) : response.body;
    return readReportSummary(body);
  }
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw new ReportMetadataFormatError('The report service answer is not JSON');
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
