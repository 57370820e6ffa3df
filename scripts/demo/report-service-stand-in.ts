/**
 * A stand-in for the platform's report service, for the demo and for trying the event flow by hand.
 * It speaks the two routes the validation service calls (the original system's, link-cloud §1.5):
 *
 *   GET /api/Report/Bundle/Patient?facilityId=&patientId=&reportScheduleId=   the patient's submission
 *   GET /api/Report/schedule?facilityId=&reportScheduleId=                    ReportScheduleSummaryModel
 *                                                                             {reportId, facilityId, startDate, endDate, submitReportDateTime, measures}
 *
 * and serves each submission at `/payloads/{facilityId}/{reportId}/{patientId}.ndjson` too (one
 * resource per line), the kind of address a ReadyForValidation payloadUri names. Everything is held
 * in memory; unknown ids answer 404.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface StandInReport {
  readonly facilityId: string;
  readonly reportId: string;
  readonly measures: readonly string[];
  readonly period: { readonly start: string; readonly end: string };
  readonly submittedAt?: string;
}

const key = (...parts: string[]) => parts.join('\u0000');

export class ReportServiceStandIn {
  private readonly submissions = new Map<string, Record<string, unknown>>();
  private readonly reports = new Map<string, StandInReport>();
  private server: http.Server | undefined;
  /** Requests served, newest last: `GET /api/...` lines for the demo's log. */
  readonly requests: string[] = [];
  url = '';

  addReport(report: StandInReport): void {
    this.reports.set(key(report.facilityId, report.reportId), report);
  }

  addSubmission(facilityId: string, reportId: string, patientId: string, body: Record<string, unknown>): void {
    this.submissions.set(key(facilityId, reportId, patientId), body);
  }

  /** Where this stand-in serves the submission as NDJSON (for a payloadUri). */
  payloadUri(facilityId: string, reportId: string, patientId: string): string {
    return `${this.url}/payloads/${[facilityId, reportId, patientId].map(encodeURIComponent).join('/')}.ndjson`;
  }

  async start(port = 0, host = '127.0.0.1'): Promise<void> {
    this.server = http.createServer((req, res) => this.answer(req, res));
    await new Promise<void>((resolve, reject) => {
      this.server!.once('error', reject);
      this.server!.listen(port, host, () => resolve());
    });
    this.url = `http://${host}:${(this.server.address() as AddressInfo).port}`;
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }

  private answer(req: http.IncomingMessage, res: http.ServerResponse): void {
    const url = new URL(req.url ?? '/', 'http://stand-in');
    this.requests.push(`${req.method ?? 'GET'} ${url.pathname}${url.search}`);
    const query = (name: string) => url.searchParams.get(name) ?? '';
    const json = (status: number, body: unknown, type = 'application/json'): void => {
      res.writeHead(status, { 'content-type': type }).end(JSON.stringify(body));
    };
    if (req.method !== 'GET') return json(405, { message: 'only GET' });

    if (url.pathname === '/api/Report/Bundle/Patient') {
      const body = this.submissions.get(key(query('facilityId'), query('reportScheduleId'), query('patientId')));
      return body ? json(200, body, 'application/fhir+json') : json(404, { message: 'No submission for this patient' });
    }
    if (url.pathname.toLowerCase() === '/api/report/schedule') {
      const report = this.reports.get(key(query('facilityId'), query('reportScheduleId')));
      if (!report) return json(404, { message: 'Report schedule not found' });
      return json(200, {
        reportId: report.reportId, facilityId: report.facilityId, startDate: report.period.start, endDate: report.period.end,
        submitReportDateTime: report.submittedAt ?? null, measures: report.measures,
      });
    }
    const payload = /^\/payloads\/([^/]+)\/([^/]+)\/([^/]+)\.ndjson$/.exec(url.pathname);
    if (payload) {
      const [facilityId, reportId, patientId] = payload.slice(1).map(decodeURIComponent) as [string, string, string];
      const body = this.submissions.get(key(facilityId, reportId, patientId));
      if (!body) return json(404, { message: 'No submission for this patient' });
      res.writeHead(200, { 'content-type': 'application/fhir+ndjson' }).end(toNdjson(body));
      return;
    }
    json(404, { message: `No route ${url.pathname}` });
  }
}

/** A Bundle's entries (or a MeasureReport's contained resources, then the report) one per line. */
function toNdjson(body: Record<string, unknown>): string {
  let resources: unknown[];
  if (body.resourceType === 'Bundle') {
    resources = ((body.entry as { resource?: unknown }[] | undefined) ?? []).map((entry) => entry.resource).filter(Boolean);
  } else {
    const { contained, ...report } = body;
    resources = [...(Array.isArray(contained) ? contained : []), report];
  }
  return `${resources.map((resource) => JSON.stringify(resource)).join('\n')}\n`;
}
