import { expect } from 'chai';
import { assessValidity } from '#validation/domain/categorization/validity.js';
import { UNCATEGORIZED } from '#validation/domain/categorization/category.js';
import {
  buildPreQualReport, generatePreQualReport, MAX_EXPRESSION_SAMPLES, METADATA_FAILED, METADATA_NOT_CONFIGURED, METADATA_UNKNOWN_REPORT,
  type PreQualIssue, type ReportResultsSource,
} from '#validation/domain/prequal/index.js';
import { CATEGORIES, CONTEXT, DISPLAY_MISMATCH, IMG_MESSAGE, issue, MISSING_CODE, sampleIssues, SCRIPT_MESSAGE } from './fixtures.js';

function source(pages: PreQualIssue[][]): ReportResultsSource & { reads: number } {
  const result = {
    reads: 0,
    async *pages() {
      for (const page of pages) {
        result.reads++;
        yield page;
      }
    },
  };
  return result;
}

describe('pre-qualification report model', () => {
  it('counts issues per category (an issue in two categories counts in both), most first', () => {
    const report = buildPreQualReport(sampleIssues(), CATEGORIES, CONTEXT);
    expect(report.categories.map((c) => [c.id, c.count])).to.deep.equal([
      ['missing_code', 5], ['display_mismatch', 4], ['uncategorized', 2],
    ]);
    const missing = report.categories[0]!;
    expect(missing).to.include({ title: MISSING_CODE.title, severity: 'ERROR', acceptable: false, guidance: MISSING_CODE.guidance, blocking: true });
    expect(report.categories[1]).to.include({ acceptable: true, blocking: false });
    expect(report.shown).to.deep.equal({ issueCount: 10, messageCount: 5, patientCount: 4 });
  });

  it('groups issues by message with the most severe severity, distinct patients, categories and expression samples', () => {
    const report = buildPreQualReport(sampleIssues(), CATEGORIES, CONTEXT);
    expect(report.issues.map((g) => [g.message, g.count])).to.deep.equal([
      ['Code is missing', 4], ['Display is wrong', 3], [SCRIPT_MESSAGE, 1], ['Display and code are wrong', 1], [IMG_MESSAGE, 1],
    ]);
    const missing = report.issues[0]!;
    expect(missing.severity).to.equal('fatal');
    expect(missing.patientCount).to.equal(3);
    expect(missing.categoryIds).to.deep.equal(['missing_code']);
    expect(missing.expressions).to.deep.equal(['Bundle.entry[0].resource.code', 'Bundle.entry[1].resource.code', 'Bundle.entry[2].resource.code']);
    expect(report.issues.find((g) => g.message === 'Display and code are wrong')!.categoryIds).to.deep.equal(['missing_code', 'display_mismatch']);
  });

  it('keeps at most MAX_EXPRESSION_SAMPLES distinct expressions per message', () => {
    const many = Array.from({ length: 20 }, (_, i) => issue('Same', 'error', ['missing_code'], `p${i}`, `Patient.name[${i % 8}]`));
    const [group] = buildPreQualReport(many, CATEGORIES, CONTEXT).issues;
    expect(group!.count).to.equal(20);
    expect(group!.expressions).to.have.length(MAX_EXPRESSION_SAMPLES);
    expect(new Set(group!.expressions).size).to.equal(MAX_EXPRESSION_SAMPLES);
  });

  it('treats no category, only `uncategorized`, and category ids no longer in the catalog alike: uncategorized', () => {
    const report = buildPreQualReport([
      issue('a', 'warning', []), issue('b', 'warning', ['uncategorized']), issue('c', 'warning', ['deleted_since']),
    ], CATEGORIES, CONTEXT);
    expect(report.categories.map((c) => [c.id, c.count, c.title])).to.deep.equal([['uncategorized', 3, UNCATEGORIZED.title]]);
    expect(report.issues.every((g) => g.categoryIds.join() === 'uncategorized')).to.equal(true);
    expect(report.verdict.uncategorizedIssueCount).to.equal(3);
  });

  it('labels the Uncategorized row with the most severe issue it shows (ERROR for a fatal one, never less than what it holds)', () => {
    const severityOf = (issues: PreQualIssue[], minimum?: 'error') => buildPreQualReport(issues, CATEGORIES, CONTEXT, minimum)
      .categories.find((c) => c.id === 'uncategorized')!.severity;
    expect(severityOf([issue('a', 'information', []), issue('b', 'fatal', [])])).to.equal('ERROR');
    expect(severityOf([issue('a', 'information', []), issue('b', 'warning', [])])).to.equal('WARNING');
    expect(severityOf([issue('a', 'information', [])])).to.equal('INFORMATION');
    expect(severityOf([issue('a', 'warning', []), issue('b', 'error', [])], 'error')).to.equal('ERROR');
  });

  it('takes the verdict from assessValidity: unacceptable categories fail, and so do uncategorized errors, but not uncategorized warnings', () => {
    const failing = buildPreQualReport(sampleIssues(), CATEGORIES, CONTEXT);
    expect(failing.verdict).to.deep.equal({
      preQualified: false, issueCount: 10, unacceptableIssueCount: 5, uncategorizedErrorCount: 0, uncategorizedIssueCount: 2,
    });

    const acceptableOnly = [issue('Display is wrong', 'warning', ['display_mismatch']), issue('odd', 'warning', [])];
    expect(buildPreQualReport(acceptableOnly, CATEGORIES, CONTEXT).verdict.preQualified).to.equal(true);

    const uncategorizedError = [issue('Display is wrong', 'warning', ['display_mismatch']), issue('odd', 'error', [])];
    const verdict = buildPreQualReport(uncategorizedError, CATEGORIES, CONTEXT).verdict;
    expect(verdict).to.include({ preQualified: false, uncategorizedErrorCount: 1 });
    const uncategorizedRow = buildPreQualReport(uncategorizedError, CATEGORIES, CONTEXT).categories.find((c) => c.id === 'uncategorized');
    expect(uncategorizedRow?.blocking).to.equal(true);

    // The same answer as THE rule applied to the issues themselves.
    const direct = assessValidity(uncategorizedError.map((i) => ({
      severity: i.severity, categories: CATEGORIES.filter((c) => i.categoryIds.includes(c.id)),
    })));
    expect(verdict.preQualified).to.equal(direct.valid);
  });

  it('follows the latest categories: a category made acceptable no longer blocks', () => {
    const relaxed = CATEGORIES.map((c) => (c.id === 'missing_code' ? { ...c, acceptable: true } : c));
    const report = buildPreQualReport(sampleIssues(), relaxed, CONTEXT);
    expect(report.verdict.preQualified).to.equal(true);
    expect(report.categories.find((c) => c.id === 'missing_code')?.blocking).to.equal(false);
  });

  it('filters the tables by minimum severity but judges every issue', () => {
    const report = buildPreQualReport(sampleIssues(), CATEGORIES, CONTEXT, 'fatal');
    expect(report.minimumSeverity).to.equal('fatal');
    expect(report.shown).to.deep.equal({ issueCount: 1, messageCount: 1, patientCount: 1 });
    expect(report.categories.map((c) => [c.id, c.count])).to.deep.equal([['missing_code', 1]]);
    expect(report.verdict).to.include({ issueCount: 10, preQualified: false, unacceptableIssueCount: 5 });

    const warnings = buildPreQualReport(sampleIssues(), CATEGORIES, CONTEXT, 'warning');
    expect(warnings.shown.issueCount).to.equal(9);
    expect(warnings.issues.some((g) => g.message === SCRIPT_MESSAGE)).to.equal(false);
  });

  it('counts an unknown severity as an error (an engine that cannot say should not look harmless)', () => {
    const report = buildPreQualReport([issue('weird', 'catastrophic', [])], CATEGORIES, CONTEXT);
    expect(report.issues[0]!.severity).to.equal('error');
    expect(report.verdict).to.include({ preQualified: false, uncategorizedErrorCount: 1 });
  });

  it('generates from the ports, reading every page, with metadata when the report service knows the report', async () => {
    const pages = source([sampleIssues().slice(0, 4), sampleIssues().slice(4)]);
    const metadata = { measures: ['NHSNdQMAcuteCareHospitalInitialPopulation'], periodStart: '2026-10-01', periodEnd: '2026-10-31' };
    const report = await generatePreQualReport({
      results: pages, categories: { list: async () => CATEGORIES }, reportMetadata: { describe: async () => metadata }, now: () => CONTEXT.generatedAt,
    }, { facilityId: 'f', reportId: 'r' });
    expect(pages.reads).to.equal(2);
    expect(report?.verdict.issueCount).to.equal(10);
    expect(report?.metadata).to.deep.equal(metadata);
    expect(report?.metadataNote).to.equal(undefined);
    expect(report?.generatedAt).to.equal('2026-11-22T06:00:00.000Z');
  });

  it('returns undefined when the report has no results', async () => {
    const report = await generatePreQualReport({ results: source([]), categories: { list: async () => CATEGORIES } }, { facilityId: 'f', reportId: 'r' });
    expect(report).to.equal(undefined);
  });

  it('still makes the report, with a note, when the metadata is missing, unknown or fails', async () => {
    const base = { results: source([[issue('x', 'warning', [DISPLAY_MISMATCH.id])]]), categories: { list: async () => CATEGORIES } };
    const request = { facilityId: 'f', reportId: 'r' };
    expect((await generatePreQualReport(base, request))?.metadataNote).to.equal(METADATA_NOT_CONFIGURED);
    const unknown = { ...base, results: source([[issue('x', 'warning', [])]]), reportMetadata: { describe: async () => undefined } };
    expect((await generatePreQualReport(unknown, request))?.metadataNote).to.equal(METADATA_UNKNOWN_REPORT);
    const failures: unknown[] = [];
    const failing = {
      ...base, results: source([[issue('x', 'warning', [])]]),
      reportMetadata: { describe: async () => { throw new Error('connect ECONNREFUSED 10.0.0.1:5110'); } },
      onMetadataError: (error: unknown) => failures.push(error),
    };
    const report = await generatePreQualReport(failing, request);
    expect(report?.metadataNote).to.equal(METADATA_FAILED);
    expect(report?.metadata).to.equal(undefined);
    expect(failures).to.have.length(1);
  });
});
