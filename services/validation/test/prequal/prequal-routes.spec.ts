import { expect } from 'chai';
import type { Express } from 'express';
import request from 'supertest';
import { createHttpApp, OpenApiBuilder } from '#adapters/http/index.js';
import { silentLogger } from '#adapters/observability/logger.js';
import type { ResultService } from '#validation/application/result-service.js';
import { UNCATEGORIZED } from '#validation/domain/categorization/category.js';
import { buildPreQualReport, type PreQualIssue, type ReportMetadataSource, type ReportResultsSource } from '#validation/domain/prequal/index.js';
import {
  categoryServiceCatalog, ISSUE_GROUP_EXTENSION, PAGE_CONTENT_SECURITY_POLICY_HEADER, preQualRoutes, renderPreQualOperationOutcome, resultServiceSource,
  VERDICT_EXTENSION,
} from '#validation/adapters/prequal/index.js';
import { CATEGORIES, sampleIssues, SCRIPT_MESSAGE } from './fixtures.js';

/** A fake results store: facility-1/report-1 has the sample issues, everything else nothing. */
function fakeResults(): ReportResultsSource {
  return {
    async *pages(facilityId, reportId) {
      if (facilityId === 'facility-1' && reportId === 'report-1') {
        const issues = sampleIssues();
        yield issues.slice(0, 5);
        yield issues.slice(5);
      }
    },
  };
}

function appWith(reportMetadata?: ReportMetadataSource): { app: Express; openApi: OpenApiBuilder } {
  const openApi = new OpenApiBuilder({ title: 'Validation', version: 'test' });
  const http = createHttpApp({ serviceName: 'validation-test', logger: silentLogger(), openApi });
  http.app.use(preQualRoutes(openApi, {
    results: fakeResults(), categories: { list: async () => CATEGORIES }, logger: silentLogger(),
    ...(reportMetadata ? { reportMetadata } : {}), now: () => new Date('2026-11-22T06:00:00Z'),
  }));
  return { app: http.finish(), openApi };
}

const PATH = '/api/result/facility-1/report-1/$pre-qualification-report';

describe('pre-qualification report route', () => {
  const metadata = { describe: async () => ({ measures: ['NHSNdQMAcuteCareHospitalInitialPopulation'], periodStart: '2026-10-01T00:00:00Z', periodEnd: '2026-10-31T23:59:59Z' }) };
  const { app, openApi } = appWith(metadata);

  it('answers a self-contained HTML page by default, with a strict CSP and no caching', async () => {
    const res = await request(app).get(PATH).expect(200);
    expect(res.headers['content-type']).to.equal('text/html; charset=utf-8');
    expect(res.headers['content-security-policy']).to.equal(PAGE_CONTENT_SECURITY_POLICY_HEADER);
    expect(res.headers['content-security-policy']).to.include("frame-ancestors 'none'");
    expect(res.headers['cache-control']).to.equal('no-store');
    expect(res.headers['x-content-type-options']).to.equal('nosniff');
    expect(res.headers['content-disposition']).to.equal('inline; filename="pre-qualification-facility-1-report-1.html"');
    expect(res.headers.vary).to.match(/Accept/);
    expect(res.text).to.include('Pre-qualified: No');
    expect(res.text).to.include('NHSNdQMAcuteCareHospitalInitialPopulation');
    expect(res.text).to.include('Code &lt;script&gt;alert(1)&lt;/script&gt; is not valid');
    expect(res.text).not.to.include(SCRIPT_MESSAGE);
  });

  it('answers HTML for a browser Accept header and for */*', async () => {
    const browser = await request(app).get(PATH).set('Accept', 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8').expect(200);
    expect(browser.headers['content-type']).to.match(/^text\/html/);
    const any = await request(app).get(PATH).set('Accept', '*/*').expect(200);
    expect(any.headers['content-type']).to.match(/^text\/html/);
  });

  it('answers the JSON model for Accept: application/json', async () => {
    const res = await request(app).get(PATH).set('Accept', 'application/json').expect(200);
    expect(res.headers['content-type']).to.match(/^application\/json/);
    expect(res.body).to.include({ facilityId: 'facility-1', reportId: 'report-1', minimumSeverity: 'information', generatedAt: '2026-11-22T06:00:00.000Z' });
    expect(res.body.verdict).to.deep.equal({ preQualified: false, issueCount: 10, unacceptableIssueCount: 5, uncategorizedErrorCount: 0, uncategorizedIssueCount: 2 });
    expect(res.body.categories.map((c: { id: string; count: number }) => [c.id, c.count])).to.deep.equal([['missing_code', 5], ['display_mismatch', 4], ['uncategorized', 2]]);
    expect(res.body.metadata.measures).to.deep.equal(['NHSNdQMAcuteCareHospitalInitialPopulation']);
    expect(res.body.issues).to.have.length(5);
  });

  it('answers a FHIR OperationOutcome for Accept: application/fhir+json: one issue per message group', async () => {
    const res = await request(app).get(PATH).set('Accept', 'application/fhir+json').expect(200);
    expect(res.headers['content-type']).to.match(/^application\/fhir\+json/);
    const outcome = JSON.parse(res.text);
    expect(outcome.resourceType).to.equal('OperationOutcome');
    expect(outcome.issue).to.have.length(5);
    const first = outcome.issue[0];
    expect(first).to.deep.include({ severity: 'fatal', code: 'code-invalid', details: { text: 'Code is missing' } });
    expect(first.expression).to.deep.equal(['Bundle.entry[0].resource.code', 'Bundle.entry[1].resource.code', 'Bundle.entry[2].resource.code']);
    expect(first.extension).to.deep.equal([{ url: ISSUE_GROUP_EXTENSION, extension: [{ url: 'category', valueCode: 'missing_code' }, { url: 'count', valueInteger: 4 }] }]);
    const both = outcome.issue.find((i: { details: { text: string } }) => i.details.text === 'Display and code are wrong');
    expect(both.extension[0].extension.filter((e: { url: string }) => e.url === 'category').map((e: { valueCode: string }) => e.valueCode))
      .to.deep.equal(['missing_code', 'display_mismatch']);
    expect(outcome.extension[0].url).to.equal(VERDICT_EXTENSION);
    expect(outcome.extension[0].extension).to.deep.include({ url: 'preQualified', valueBoolean: false });
    expect(outcome.extension[0].extension).to.deep.include({ url: 'issueCount', valueInteger: 10 });
  });

  it('lets the format parameter override the Accept header', async () => {
    const oo = await request(app).get(`${PATH}?format=operation-outcome`).set('Accept', 'text/html').expect(200);
    expect(JSON.parse(oo.text).resourceType).to.equal('OperationOutcome');
    const json = await request(app).get(`${PATH}?format=JSON`).set('Accept', 'application/fhir+json').expect(200);
    expect(json.body.verdict.preQualified).to.equal(false);
    const page = await request(app).get(`${PATH}?format=html`).set('Accept', 'application/json').expect(200);
    expect(page.headers['content-type']).to.match(/^text\/html/);
  });

  it('filters by minimum severity (any case) while the verdict still counts every issue', async () => {
    const res = await request(app).get(`${PATH}?severity=ERROR`).set('Accept', 'application/json').expect(200);
    expect(res.body.minimumSeverity).to.equal('error');
    expect(res.body.shown.issueCount).to.equal(5);
    expect(res.body.verdict.issueCount).to.equal(10);
    expect(res.body.issues.map((g: { message: string }) => g.message)).to.deep.equal(['Code is missing', 'Display and code are wrong']);
  });

  it('refuses an unknown severity or format with a 400 Problem naming the parameter', async () => {
    const severity = await request(app).get(`${PATH}?severity=severe`).expect(400);
    expect(severity.headers['content-type']).to.match(/^application\/problem\+json/);
    expect(severity.body.errors).to.deep.equal([{ field: 'severity', message: 'must be one of information, warning, error, fatal' }]);
    expect(severity.body.detail).to.include('Unknown severity "severe"');
    const format = await request(app).get(`${PATH}?format=pdf`).expect(400);
    expect(format.body.errors[0].field).to.equal('format');
    const twice = await request(app).get(`${PATH}?severity=error&severity=fatal`).expect(400);
    expect(twice.body.errors[0].field).to.equal('severity');
  });

  it('answers 406 when the Accept header allows none of the representations', async () => {
    const res = await request(app).get(PATH).set('Accept', 'image/png').expect(406);
    expect(res.body.detail).to.include('text/html, application/json, application/fhir+json');
  });

  it('answers 404 Problem when the report has no results', async () => {
    const res = await request(app).get('/api/result/facility-1/other-report/$pre-qualification-report').expect(404);
    expect(res.headers['content-type']).to.match(/^application\/problem\+json/);
    expect(res.body.detail).to.equal('No results found for facility "facility-1" and report "other-report"');
  });

  it('answers the original path /api/pre-qual/{facilityId}/{reportId} the same way', async () => {
    const legacy = await request(app).get('/api/pre-qual/facility-1/report-1').set('Accept', 'application/json').expect(200);
    const current = await request(app).get(PATH).set('Accept', 'application/json').expect(200);
    expect(legacy.body).to.deep.equal(current.body);
    await request(app).get('/api/pre-qual/facility-1/nothing').expect(404);
  });

  it('still answers, with a note, when the report service fails', async () => {
    const failing = appWith({ describe: async () => { throw new Error('report service down'); } }).app;
    const res = await request(failing).get(PATH).set('Accept', 'application/json').expect(200);
    expect(res.body.metadata).to.equal(undefined);
    expect(res.body.metadataNote).to.match(/could not be reached/);
  });

  it('is registered in the OpenAPI document with its three representations', () => {
    const document = openApi.document();
    const operation = document.paths?.['/api/result/{facilityId}/{reportId}/$pre-qualification-report']?.get;
    expect(operation).to.not.equal(undefined);
    const content = (operation!.responses!['200'] as { content: Record<string, unknown> }).content;
    expect(Object.keys(content)).to.deep.equal(['text/html', 'application/json', 'application/fhir+json']);
    expect(Object.keys(operation!.responses!)).to.include.members(['400', '404', '406']);
    // Link Cloud's own path stays (its admin UI uses it): not deprecated.
    expect(document.paths?.['/api/pre-qual/{facilityId}/{reportId}']?.get?.deprecated).to.equal(undefined);
    expect(document.components?.schemas).to.have.property('PreQualificationReport');
  });
});

describe('pre-qualification ports over the validation API', () => {
  it('reads every page of ResultService.find and passes the category ids on', async () => {
    const calls: { offset: number; limit: number }[] = [];
    const all = Array.from({ length: 5 }, (_, i) => ({
      id: i, facilityId: 'f', reportId: 'r', patientId: `p${i}`, severity: 'error' as const, code: 'required', message: `m${i}`,
      ...(i === 0 ? { expression: 'Patient.name' } : {}),
      categories: i % 2 === 0 ? [CATEGORIES[0]!] : [UNCATEGORIZED],
    }));
    const service: Pick<ResultService, 'find'> = {
      find: async (_scope, minimum, page) => {
        expect(minimum).to.equal(undefined);
        calls.push(page);
        return { records: all.slice(page.offset, page.offset + page.limit), totalCount: all.length };
      },
    };
    const read: PreQualIssue[] = [];
    for await (const page of resultServiceSource(service, 2).pages('f', 'r')) read.push(...page);
    expect(calls).to.deep.equal([{ offset: 0, limit: 2 }, { offset: 2, limit: 2 }, { offset: 4, limit: 2 }]);
    expect(read.map((i) => i.categoryIds)).to.deep.equal([['missing_code'], ['uncategorized'], ['missing_code'], ['uncategorized'], ['missing_code']]);
    expect(read[0]).to.deep.equal({ severity: 'error', code: 'required', message: 'm0', expression: 'Patient.name', patientId: 'p0', categoryIds: ['missing_code'] });
  });

  it('lists the categories of the category service', async () => {
    expect(await categoryServiceCatalog({ list: async () => CATEGORIES }).list()).to.deep.equal(CATEGORIES);
  });
});

describe('pre-qualification OperationOutcome', () => {
  it('still has one (informational) issue when the severity filter leaves none, as FHIR requires', () => {
    const report = buildPreQualReport(sampleIssues().filter((i) => i.severity === 'warning'), CATEGORIES,
      { facilityId: 'f', reportId: 'r', generatedAt: new Date(0) }, 'error');
    const outcome = renderPreQualOperationOutcome(report);
    expect(outcome.issue).to.deep.equal([{ severity: 'information', code: 'informational', details: { text: 'No issues at or above error' } }]);
    expect(outcome.extension[0]!.extension).to.deep.include({ url: 'issueCount', valueInteger: 4 });
  });
});
