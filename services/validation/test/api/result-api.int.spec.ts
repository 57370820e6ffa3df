import { expect } from 'chai';
import { UNCATEGORIZED } from '#validation/domain/categorization/category.js';
import request from 'supertest';
import type { Database } from '#adapters/persistence/database.js';
import type { ValidationIssue } from '#validation/domain/results/validation-issue.js';
import { buildTestApi, type TestApi } from './support/app.js';
import { dropValidationTestDatabase, openValidationTestDatabase, uniqueDbName } from './support/database.js';

const issue = (severity: ValidationIssue['severity'], message: string): ValidationIssue => ({ severity, code: 'structure', message });

describe('validation API: results (HTTP)', () => {
  const dbName = uniqueDbName('res');
  let db: Database;
  let api: TestApi;

  before(async () => {
    db = await openValidationTestDatabase(dbName);
    api = buildTestApi(db);
    await api.module.categories.save('bad', { id: 'bad', title: 'Bad', severity: 'ERROR', acceptable: false, guidance: 'Fix it.' });
    await api.module.categories.save('meh', { id: 'meh', title: 'Meh', severity: 'INFORMATION', acceptable: true, guidance: 'Fine.' });
    const store = (patientId: string, results: { issue: ValidationIssue; categoryIds: string[] }[]) =>
      api.module.results.storePatientResults({ facilityId: 'fac-1', reportId: 'rep-1', patientId }, results);
    await store('p1', [{ issue: issue('error', 'stale'), categoryIds: ['bad'] }]);
    // The second write for p1 replaces the first.
    await store('p1', [
      { issue: issue('fatal', 'f1'), categoryIds: ['bad'] },
      { issue: issue('error', 'e1'), categoryIds: ['bad', 'meh'] },
      { issue: issue('information', 'i1'), categoryIds: ['meh'] },
    ]);
    await store('p2', [{ issue: issue('warning', 'w1'), categoryIds: [] }, { issue: issue('error', 'e2'), categoryIds: ['meh'] }]);
  });
  after(async () => {
    await db?.close();
    await dropValidationTestDatabase(dbName);
  });

  it('pages the results of a report, replaced rather than duplicated', async () => {
    const first = await request(api.app).get('/api/result/fac-1/rep-1?pageSize=2').expect(200);
    expect(first.body.metadata).to.deep.equal({ pageSize: 2, pageNumber: 1, totalCount: 5, totalPages: 3 });
    expect(first.body.records.map((r: { message: string }) => r.message)).to.deep.equal(['f1', 'e1']);
    expect(first.body.records[1].categories.map((c: { id: string }) => c.id)).to.deep.equal(['bad', 'meh']);
    const last = await request(api.app).get('/api/result/fac-1/rep-1?pageSize=2&pageNumber=3').expect(200);
    expect(last.body.records.map((r: { message: string }) => r.message)).to.deep.equal(['e2']);
    await request(api.app).get('/api/result/fac-1/rep-1?pageSize=2&pageNumber=4').expect(204);
    await request(api.app).get('/api/result/fac-1/other-report').expect(204);
    await request(api.app).get('/api/result/fac-1/rep-1?pageSize=0').expect(400);
  });

  it('filters by minimum severity (information < warning < error < fatal), refusing unknown values', async () => {
    const errors = await request(api.app).get('/api/result/fac-1/rep-1?severity=ERROR').expect(200);
    expect(errors.body.records.map((r: { message: string }) => r.message)).to.deep.equal(['f1', 'e1', 'e2']);
    const warnings = await request(api.app).get('/api/result/fac-1/rep-1?severity=warning').expect(200);
    expect(warnings.body.metadata.totalCount).to.equal(4);
    const patient = await request(api.app).get('/api/result/fac-1/rep-1/p2?severity=warning').expect(200);
    expect(patient.body.records.map((r: { message: string; categories: { id: string }[] }) => [r.message, r.categories[0]!.id])).to.deep.equal([['w1', 'uncategorized'], ['e2', 'meh']]);
    const refused = await request(api.app).get('/api/result/fac-1/rep-1?severity=severe').expect(400);
    expect(refused.body.errors[0].field).to.equal('severity');
    await request(api.app).get('/api/result/fac-1/rep-1/p1?severity=nope').expect(400);
    await request(api.app).get('/api/result/fac-1/rep-1/p3').expect(204);
  });

  it('answers the validity verdict of a report and of one patient by the one rule', async () => {
    const report = await request(api.app).get('/api/result/fac-1/rep-1/$validity').expect(200);
    expect(report.body).to.deep.equal({ valid: false, unacceptableIssueCount: 2, uncategorizedErrorCount: 0, uncategorizedIssueCount: 1, issueCount: 5 });
    // p2: a warning without category and an error in an acceptable category: valid.
    const p2 = await request(api.app).get('/api/result/fac-1/rep-1/p2/$validity').expect(200);
    expect(p2.body).to.deep.equal({ valid: true, unacceptableIssueCount: 0, uncategorizedErrorCount: 0, uncategorizedIssueCount: 1, issueCount: 2 });
    await api.module.results.storePatientResults({ facilityId: 'fac-1', reportId: 'rep-2', patientId: 'p9' }, [{ issue: issue('error', 'nobody knows'), categoryIds: [] }]);
    expect((await request(api.app).get('/api/result/fac-1/rep-2/p9/$validity').expect(200)).body).to.include({ valid: false, uncategorizedErrorCount: 1 });
    // Uncategorized is labelled with what it holds: ERROR for the error (per issue and in the counts), WARNING for the warning.
    const p9 = await request(api.app).get('/api/result/fac-1/rep-2/p9').expect(200);
    expect(p9.body.records[0].categories).to.deep.equal([{ ...UNCATEGORIZED, severity: 'ERROR' }]);
    expect((await request(api.app).get('/api/result/fac-1/rep-2/$categories').expect(200)).body[0]).to.include({ id: 'uncategorized', severity: 'ERROR', count: 1 });
    expect((await request(api.app).get('/api/result/fac-1/rep-1/p2?severity=warning').expect(200)).body.records[0].categories[0]).to.include({ id: 'uncategorized', severity: 'WARNING' });
  });

  it('spec, GET of a missing resource is 404: no verdict for a report or patient never validated, a verdict for one validated without issues', async () => {
    const report = await request(api.app).get('/api/result/fac-1/never/$validity').expect(404);
    expect(report.headers['content-type']).to.match(/application\/problem\+json/);
    expect(report.body).to.include({ status: 404 });
    expect(report.body.traceId).to.be.a('string');
    await request(api.app).get('/api/result/fac-1/rep-1/nobody/$validity').expect(404);
    await api.module.results.storePatientResults({ facilityId: 'fac-1', reportId: 'clean', patientId: 'p-clean' }, []);
    expect((await request(api.app).get('/api/result/fac-1/clean/$validity').expect(200)).body).to.include({ valid: true, issueCount: 0 });
    expect((await request(api.app).get('/api/result/fac-1/clean/p-clean/$validity').expect(200)).body).to.include({ valid: true, issueCount: 0 });
  });

  it('spec, Routes: patients with the ids `categories` and `validity` are reachable like any other', async () => {
    for (const patientId of ['categories', 'validity']) {
      await api.module.results.storePatientResults({ facilityId: 'fac-1', reportId: 'odd-ids', patientId }, [{ issue: issue('warning', `of ${patientId}`), categoryIds: [] }]);
    }
    for (const patientId of ['categories', 'validity']) {
      const page = await request(api.app).get(`/api/result/fac-1/odd-ids/${patientId}`).expect(200);
      expect(page.body.records.map((r: { message: string; patientId: string }) => [r.message, r.patientId])).to.deep.equal([[`of ${patientId}`, patientId]]);
      expect((await request(api.app).get(`/api/result/fac-1/odd-ids/${patientId}/$validity`).expect(200)).body).to.include({ valid: true, issueCount: 1 });
    }
  });

  it('keeps the path a patient\'s verdict had before ($-less) for one release, marked deprecated with its successor', async () => {
    const old = await request(api.app).get('/api/result/fac-1/rep-1/p2/validity').expect(200);
    expect(old.body).to.include({ valid: true, issueCount: 2 });
    expect(old.headers.deprecation).to.match(/^@\d+$/);
    const successor = /^<([^>]+)>; rel="successor-version"$/.exec(old.headers.link ?? '')?.[1];
    expect(successor, old.headers.link).to.be.a('string');
    // Relative: right at the service and through the gateway alike.
    expect(new URL(successor!, 'http://service/api/result/fac-1/rep-1/p2/validity').pathname).to.equal('/api/result/fac-1/rep-1/p2/$validity');
    expect(new URL(successor!, 'http://gateway/api/validation/result/fac-1/rep-1/p2/validity').pathname).to.equal('/api/validation/result/fac-1/rep-1/p2/$validity');
    // A category called `validity` is not taken for a patient's verdict.
    await api.module.categories.save('validity', { id: 'validity', title: 'V', severity: 'ERROR', acceptable: false, guidance: 'g' });
    const category = await request(api.app).get('/api/result/fac-1/rep-1/$categories/validity').expect(204);
    expect(category.headers.deprecation).to.equal(undefined);
  });

  it('answers the categories with issues and their counts, and the issues of one category', async () => {
    const categories = await request(api.app).get('/api/result/fac-1/rep-1/$categories').expect(200);
    expect(categories.body.map((c: { id: string; count: number; acceptable: boolean }) => [c.id, c.count, c.acceptable])).to.deep.equal([
      ['meh', 3, true], ['bad', 2, false], ['uncategorized', 1, false],
    ]);
    const bad = await request(api.app).get('/api/result/fac-1/rep-1/$categories/bad').expect(200);
    expect(bad.body.records.map((r: { message: string }) => r.message)).to.deep.equal(['f1', 'e1']);
    const none = await request(api.app).get('/api/result/fac-1/rep-1/$categories/uncategorized').expect(200);
    expect(none.body.records.map((r: { message: string }) => r.message)).to.deep.equal(['w1']);
    await request(api.app).get('/api/result/fac-1/rep-1/$categories/unknown').expect(404);
    await request(api.app).get('/api/result/fac-1/other/$categories').expect(204);
  });
});
