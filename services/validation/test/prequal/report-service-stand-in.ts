/**
 * The report service as the pre-qualification report's metadata tests need it (report-metadata.spec.ts
 * and, in headless Chromium, report-metadata.int.spec.ts): a real HTTP server speaking the original
 * system's report schedule summary route, and the page wired like main.ts.
 */
import http from 'node:http';
import type { Express } from 'express';
import type { AddressInfo } from 'node:net';
import { createHttpApp, OpenApiBuilder } from '#adapters/http/index.js';
import { silentLogger } from '#adapters/observability/logger.js';
import { preQualRoutes } from '#validation/adapters/prequal/index.js';
import { HttpReportMetadata } from '#validation/adapters/report-service/http-report-metadata.js';
import { CATEGORIES, sampleIssues } from './fixtures.js';

export const SUMMARY = {
  reportId: 'report 1/2026-10', facilityId: 'facility-1',
  startDate: '2026-10-01T00:00:00Z', endDate: '2026-10-31T23:59:59Z', submitReportDateTime: '2026-11-02T08:15:00Z',
  measures: ['NHSNdQMAcuteCareHospitalInitialPopulation', 'NHSNGlycemicControlHypoglycemicInitialPopulation'],
};

/** The report service: knows one report; answers 500 for facility "broken" and slowly for facility "slow". */
export class ReportServiceStandIn {
  readonly requests: { url: string; authorization?: string }[] = [];
  private server: http.Server | undefined;
  origin = '';

  async start(): Promise<void> {
    this.server = http.createServer((req, res) => {
      this.requests.push({ url: req.url ?? '', authorization: req.headers.authorization });
      const url = new URL(req.url ?? '/', 'http://stand-in');
      if (url.pathname !== '/api/Report/schedule') return void res.writeHead(404).end();
      const facilityId = url.searchParams.get('facilityId');
      if (facilityId === 'broken') return void res.writeHead(500, { 'content-type': 'text/plain' }).end('boom');
      if (facilityId === 'slow') return void setTimeout(() => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(SUMMARY)), 1_500);
      if (facilityId === 'garbled') return void res.writeHead(200, { 'content-type': 'application/json' }).end('{"measures": "all of them"}');
      if (facilityId !== SUMMARY.facilityId || url.searchParams.get('reportScheduleId') !== SUMMARY.reportId) {
        return void res.writeHead(404, { 'content-type': 'application/json' }).end('{"message":"Report schedule not found"}');
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(SUMMARY));
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.origin = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }
}

/** The validation service's page, wired as main.ts wires it: the HTTP adapter behind the route. */
export function pageApp(metadata: HttpReportMetadata): Express {
  const openApi = new OpenApiBuilder({ title: 'Validation', version: 'test' });
  const app = createHttpApp({ serviceName: 'prequal-metadata-test', logger: silentLogger(), openApi });
  app.app.use(preQualRoutes(openApi, {
    results: { async *pages() { yield sampleIssues(); } },
    categories: { list: async () => CATEGORIES },
    reportMetadata: metadata,
  }));
  return app.finish();
}

/**
 * A stand-in report service started around the enclosing suite (mocha hooks), and a factory of the
 * HTTP adapter pointed at it with a service token.
 */
export function reportServiceForSuite(): {
  reportService: ReportServiceStandIn;
  adapter: (options?: Partial<ConstructorParameters<typeof HttpReportMetadata>[0]>) => HttpReportMetadata;
} {
  const reportService = new ReportServiceStandIn();
  before(() => reportService.start());
  after(() => reportService.stop());
  const adapter = (options: Partial<ConstructorParameters<typeof HttpReportMetadata>[0]> = {}) =>
    new HttpReportMetadata({ baseUrl: reportService.origin, serviceToken: 'svc-token', logger: silentLogger(), ...options });
  return { reportService, adapter };
}
