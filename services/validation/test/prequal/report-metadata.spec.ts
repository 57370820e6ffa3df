/**
 * The pre-qualification report's metadata from the report service: the HTTP adapter against a real
 * HTTP server speaking the original system's report schedule summary route
 * (`GET /api/Report/schedule?facilityId=&reportScheduleId=` → ReportScheduleSummaryModel), then the
 * page wired like main.ts (the adapter behind the pre-qualification route); in headless Chromium in
 * report-metadata.int.spec.ts.
 */
import { expect } from 'chai';
import request from 'supertest';
import {
  DEFAULT_REPORT_METADATA_PATH, ReportMetadataFormatError, reportMetadataPath,
} from '#validation/adapters/report-service/http-report-metadata.js';
import { METADATA_FAILED, METADATA_UNKNOWN_REPORT } from '#validation/domain/prequal/index.js';
import { pageApp, reportServiceForSuite, SUMMARY } from './report-service-stand-in.js';

describe('pre-qualification report: measures and period from the report service', function () {
  this.timeout(60_000);
  const { reportService, adapter } = reportServiceForSuite();

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
});
