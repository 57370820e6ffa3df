/**
 * The pre-qualification report's metadata from the report service: the HTTP adapter against a real
 * HTTP server speaking the original system's report schedule summary route
 * (`GET /api/Report/schedule?facilityId=&reportScheduleId=` → ReportScheduleSummaryModel), then the
 * page wired like main.ts (the adapter behind the pre-qualification route), in headless Chromium,
 * with a screenshot saved to test-artifacts/prequal-report-with-report-service.png.
 */
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import { chromium, type BrowserContext } from 'playwright-core';
import request from 'supertest';
import { createHttpApp, OpenApiBuilder } from '#adapters/http/index.js';
import { silentLogger } from '#adapters/observability/logger.js';
import { preQualRoutes } from '#validation/adapters/prequal/index.js';
import {
  DEFAULT_REPORT_METADATA_PATH, HttpReportMetadata, ReportMetadataFormatError, reportMetadataPath,
} from '#validation/adapters/report-service/http-report-metadata.js';
import { METADATA_FAILED, METADATA_UNKNOWN_REPORT } from '#validation/domain/prequal/index.js';
import { CATEGORIES, sampleIssues } from './fixtures.js';

const CHROMIUM = '/usr/bin/chromium';
const ARTIFACTS = fileURLToPath(new URL('../../../../test-artifacts/', import.meta.url));

const SUMMARY = {
  reportId: 'report 1/2026-10', facilityId: 'facility-1',
  startDate: '2026-10-01T00:00:00Z', endDate: '2026-10-31T23:59:59Z', submitReportDateTime: '2026-11-02T08:15:00Z',
  measures: ['NHSNdQMAcuteCareHospitalInitialPopulation', 'NHSNGlycemicControlHypoglycemicInitialPopulation'],
};

/** The report service: knows one report; answers 500 for facility "broken" and slowly for facility "slow". */
class ReportServiceStandIn {
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

describe('pre-qualification report: measures and period from the report service', function () {
  this.timeout(60_000);
  const reportService = new ReportServiceStandIn();
  const adapter = (options: Partial<ConstructorParameters<typeof HttpReportMetadata>[0]> = {}) =>
    new HttpReportMetadata({ baseUrl: reportService.origin, serviceToken: 'svc-token', logger: silentLogger(), ...options });

  /** The validation service's page, wired as main.ts wires it: the HTTP adapter behind the route. */
  const pageApp = (metadata: HttpReportMetadata) => {
    const openApi = new OpenApiBuilder({ title: 'Validation', version: 'test' });
    const app = createHttpApp({ serviceName: 'prequal-metadata-test', logger: silentLogger(), openApi });
    app.app.use(preQualRoutes(openApi, {
      results: { async *pages() { yield sampleIssues(); } },
      categories: { list: async () => CATEGORIES },
      reportMetadata: metadata,
    }));
    return app.finish();
  };

  before(() => reportService.start());
  after(() => reportService.stop());

  describe('the HTTP adapter (contract with the report service)', () => {
    it('asks the original system\'s route with both ids URL-encoded, sending the service token, and reads the summary', async () => {
      expect(reportMetadataPath(DEFAULT_REPORT_METADATA_PATH, { facilityId: 'f 1', reportId: 'r/2' })).to.equal('/api/Report/schedule?facilityId=f%201&reportScheduleId=r%2F2');
      reportService.requests.length = 0;
      expect(await adapter().describe(SUMMARY.facilityId, SUMMARY.reportId)).to.deep.equal({
        measures: SUMMARY.measures, periodStart: SUMMARY.startDate, periodEnd: SUMMARY.endDate, submittedAt: SUMMARY.submitReportDateTime,
      });
      expect(reportService.requests).to.deep.equal([{ url: '/api/Report/schedule?facilityId=facility-1&reportScheduleId=report%201%2F2026-10', authorization: 'Bearer svc-token' }]);
    });

    it('404: the report service does not know the report (undefined); 5xx, a timeout or a body that is no summary: an error', async () => {
      expect(await adapter().describe('facility-1', 'unknown-report')).to.equal(undefined);
      await adapter().describe('broken', 'r').then(() => expect.fail('resolved'), (error: Error) => expect(error.message).to.match(/500/));
      const started = Date.now();
      await adapter({ timeoutMs: 300 }).describe('slow', 'r').then(() => expect.fail('resolved'), () => undefined);
      expect(Date.now() - started, 'gave up at the timeout').to.be.below(1_400);
      await adapter().describe('garbled', 'r').then(() => expect.fail('resolved'), (error: unknown) => expect(error).to.be.instanceOf(ReportMetadataFormatError));
    });

    it('takes another route from svc.report-service.report-path', async () => {
      reportService.requests.length = 0;
      expect(await adapter({ pathTemplate: '/api/schedules/{reportId}?tenant={facilityId}' }).describe('f', 'r')).to.equal(undefined);
      expect(reportService.requests.map((r) => r.url)).to.deep.equal(['/api/schedules/r?tenant=f']);
    });
  });

  describe('the pre-qualification route with the adapter', () => {
    it('shows the measures and the period, passing the caller\'s token on to the report service', async () => {
      reportService.requests.length = 0;
      const app = pageApp(adapter());
      const json = await request(app).get(`/api/result/${SUMMARY.facilityId}/${encodeURIComponent(SUMMARY.reportId)}/$pre-qualification-report?format=json`)
        .set('authorization', 'Bearer the-user').expect(200);
      expect(json.body.metadata).to.deep.equal({ measures: SUMMARY.measures, periodStart: SUMMARY.startDate, periodEnd: SUMMARY.endDate, submittedAt: SUMMARY.submitReportDateTime });
      expect(json.body).to.not.have.property('metadataNote');
      expect(reportService.requests.at(-1)!.authorization).to.equal('Bearer the-user');
      const page = await request(app).get(`/api/result/${SUMMARY.facilityId}/${encodeURIComponent(SUMMARY.reportId)}/$pre-qualification-report`).expect(200);
      expect(page.text).to.include('NHSNdQMAcuteCareHospitalInitialPopulation, NHSNGlycemicControlHypoglycemicInitialPopulation');
      expect(page.text).to.include('2026-10-01T00:00:00Z').and.include('2026-10-31T23:59:59Z');
    });

    it('says why they are missing when the report service does not know the report or fails; the report is made anyway', async () => {
      const unknown = await request(pageApp(adapter())).get('/api/result/facility-1/other-report/$pre-qualification-report?format=json').expect(200);
      expect(unknown.body).to.include({ metadataNote: METADATA_UNKNOWN_REPORT });
      const failing = await request(pageApp(adapter())).get('/api/result/broken/r/$pre-qualification-report?format=json').expect(200);
      expect(failing.body).to.include({ metadataNote: METADATA_FAILED });
      const down = await request(pageApp(adapter({ baseUrl: 'http://127.0.0.1:9' }))).get('/api/result/facility-1/r/$pre-qualification-report?format=json').expect(200);
      expect(down.body).to.include({ metadataNote: METADATA_FAILED });
      expect(down.body.verdict.preQualified).to.equal(false);
    });
  });

  describe('in headless Chromium @browser', () => {
    let context: BrowserContext;
    let server: http.Server;
    let userDataDir: string;

    before(async () => {
      if (!existsSync(CHROMIUM)) throw new Error(`Chromium is not installed at ${CHROMIUM}: run \`npm run infra\` (it installs Debian's chromium package) and try again`);
      server = http.createServer(pageApp(adapter()));
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      userDataDir = await mkdtemp(join(tmpdir(), 'prequal-metadata-chromium-'));
      context = await chromium.launchPersistentContext(userDataDir, {
        executablePath: CHROMIUM, headless: true, viewport: { width: 1280, height: 900 },
        args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
      });
    });
    after(async () => {
      await context?.close();
      if (userDataDir) await rm(userDataDir, { recursive: true, force: true });
      await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
    });

    it('renders the measures and the reporting period the report service gave, and saves a screenshot', async () => {
      const page = context.pages()[0] ?? await context.newPage();
      const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      const response = await page.goto(`${origin}/api/result/${SUMMARY.facilityId}/${encodeURIComponent(SUMMARY.reportId)}/$pre-qualification-report`);
      expect(response?.status()).to.equal(200);
      const metadata = await page.locator('dl.meta').innerText();
      expect(metadata).to.include('NHSNdQMAcuteCareHospitalInitialPopulation, NHSNGlycemicControlHypoglycemicInitialPopulation');
      expect(metadata).to.include('2026-10-01T00:00:00Z to 2026-10-31T23:59:59Z');
      expect(await page.locator('p.note').count(), 'no "not shown" note').to.equal(0);
      await mkdir(ARTIFACTS, { recursive: true });
      const file = join(ARTIFACTS, 'prequal-report-with-report-service.png');
      const png = await page.screenshot({ path: file, fullPage: true });
      expect(png.subarray(1, 4).toString('latin1')).to.equal('PNG');
      expect(existsSync(file)).to.equal(true);
    });
  });
});
