import { expect } from 'chai';
import type { Database } from '#adapters/persistence/database.js';
import { PgArtifactRepository } from '#validation/adapters/persistence/artifact-repository.js';
import { PgCategoryRepository } from '#validation/adapters/persistence/category-repository.js';
import { PgResultRepository } from '#validation/adapters/persistence/result-repository.js';
import type { ValidationIssue } from '#validation/domain/results/validation-issue.js';
import { dropValidationTestDatabase, openValidationTestDatabase, uniqueDbName } from './support/database.js';

const issue = (severity: ValidationIssue['severity'], message: string, extra: Partial<ValidationIssue> = {}): ValidationIssue =>
  ({ severity, code: 'structure', message, ...extra });

describe('validation API persistence (PostgreSQL)', () => {
  const dbName = uniqueDbName('persist');
  let db: Database;
  let categories: PgCategoryRepository;
  let results: PgResultRepository;
  let artifacts: PgArtifactRepository;

  before(async () => {
    db = await openValidationTestDatabase(dbName);
    categories = new PgCategoryRepository(db.orm);
    results = new PgResultRepository(db.orm);
    artifacts = new PgArtifactRepository(db.orm);
  });
  after(async () => {
    await db?.close();
    await dropValidationTestDatabase(dbName);
  });

  it('keeps every rule and answers the latest, history newest first', async () => {
    expect(await categories.save({ id: 'c1', title: 'C1', severity: 'ERROR', acceptable: false, guidance: 'g' })).to.deep.equal({ created: true });
    expect(await categories.save({ id: 'c1', title: 'C1b', severity: 'ERROR', acceptable: true, guidance: 'g' })).to.deep.equal({ created: false });
    const first = await categories.addRule('c1', { field: 'MESSAGE', regex: 'a' }, new Date('2026-01-01T00:00:00Z'));
    const second = await categories.addRule('c1', { field: 'MESSAGE', regex: 'b' }, new Date('2026-01-02T00:00:00Z'));
    expect((await categories.latestRule('c1'))?.id).to.equal(second.id);
    expect((await categories.ruleHistory('c1')).map((r) => r.id)).to.deep.equal([second.id, first.id]);
    const listed = await categories.listWithLatestRules();
    expect(listed.find((c) => c.category.id === 'c1')?.rule?.matcher).to.deep.equal({ field: 'MESSAGE', regex: 'b' });
    expect(await categories.deleteRule(second.id)).to.equal(true);
    expect((await categories.latestRule('c1'))?.id).to.equal(first.id);
  });

  it('imports in one transaction, adding a rule only when the matcher changed', async () => {
    const snapshot = { id: 'imp', title: 'T', severity: 'WARNING' as const, acceptable: true, guidance: 'g', matcher: { children: [{ field: 'MESSAGE' as const, regex: 'x' }], requiresAllChildren: true } };
    expect(await categories.importSnapshots([snapshot], new Date())).to.deep.equal({ created: 1, updated: 0, rulesAdded: 1, deleted: 0 });
    expect(await categories.importSnapshots([snapshot], new Date())).to.deep.equal({ created: 0, updated: 1, rulesAdded: 0, deleted: 0 });
    expect((await categories.ruleHistory('imp')).length).to.equal(1);
  });

  it('replaces the results of a patient instead of duplicating them, with their categories', async () => {
    const key = { facilityId: 'f1', reportId: 'r1', patientId: 'p1' };
    await results.replacePatientResults(key, [{ issue: issue('error', 'one'), categoryIds: ['c1'] }, { issue: issue('warning', 'two'), categoryIds: [] }]);
    await results.replacePatientResults(key, [
      { issue: issue('error', 'one'), categoryIds: ['c1', 'imp', 'never-existed'] },
      { issue: issue('information', 'three'), categoryIds: [] },
      { issue: issue('fatal', 'four', { expression: 'x'.repeat(5000), location: '3:4', messageId: 'M1' }), categoryIds: ['imp'] },
    ]);
    await results.replacePatientResults({ ...key, patientId: 'p2' }, [{ issue: issue('warning', 'other patient'), categoryIds: ['c1'] }]);

    const page = await results.findResults({ facilityId: 'f1', reportId: 'r1', patientId: 'p1' }, undefined, { offset: 0, limit: 10 });
    expect(page.totalCount).to.equal(3);
    expect(page.records.map((r) => [r.message, r.categoryIds])).to.deep.equal([['one', ['c1', 'imp']], ['three', []], ['four', ['imp']]]);
    expect(page.records[2]!.expression).to.have.length(1000);
    expect(page.records[2]).to.include({ location: '3:4', messageId: 'M1', severity: 'fatal', patientId: 'p1', facilityId: 'f1', reportId: 'r1' });
    expect(new Set(page.records.map((r) => r.id)).size, 'distinct result ids').to.equal(3);

    const errors = await results.findResults({ facilityId: 'f1', reportId: 'r1' }, 'error', { offset: 0, limit: 1 });
    expect(errors.totalCount).to.equal(2);
    expect(errors.records.map((r) => r.message)).to.deep.equal(['one']);
    expect((await results.findResults({ facilityId: 'f1', reportId: 'r1' }, 'error', { offset: 1, limit: 1 })).records.map((r) => r.message)).to.deep.equal(['four']);
    expect((await results.findResults({ facilityId: 'f1', reportId: 'r1' }, 'fatal', { offset: 0, limit: 10 })).records.map((r) => r.message)).to.deep.equal(['four']);
    expect((await results.findResults({ facilityId: 'f1', reportId: 'r1' }, 'warning', { offset: 0, limit: 10 })).totalCount).to.equal(3);

    expect(await results.countByCategory('f1', 'r1')).to.deep.equal([
      { categoryId: 'c1', count: 2, blockingCount: 1 }, { categoryId: 'imp', count: 2, blockingCount: 2 }, { categoryId: 'uncategorized', count: 1, blockingCount: 0 },
    ]);
    const inImp = await results.findByCategory('f1', 'r1', 'imp', { offset: 0, limit: 10 });
    expect(inImp.totalCount).to.equal(2);
    expect(inImp.records.map((r) => r.message)).to.deep.equal(['one', 'four']);
    expect((await results.findByCategory('f1', 'r1', 'c1', { offset: 1, limit: 5 })).records.map((r) => [r.patientId, r.message])).to.deep.equal([['p2', 'other patient']]);
    expect((await results.findByCategory('f1', 'r1', 'uncategorized', { offset: 0, limit: 10 })).records.map((r) => r.message)).to.deep.equal(['three']);
  });

  it('pages across submissions: every page is the right slice of the report in patient order, whatever the page size', async () => {
    const report = { facilityId: 'f1', reportId: 'r-pages' };
    const expected: string[] = [];
    // Submissions of 0 to 6 issues, written out of patient order.
    for (const n of [3, 0, 6, 1, 4, 2, 5]) {
      const patientId = `p${String(n).padStart(2, '0')}`;
      await results.replacePatientResults({ ...report, patientId }, Array.from({ length: n }, (_, i) => ({
        issue: issue(i % 3 === 0 ? 'error' : 'warning', `${patientId}-${i}`), categoryIds: i % 2 === 0 ? ['c1'] : [],
      })));
    }
    for (const n of [0, 1, 2, 3, 4, 5, 6]) for (let i = 0; i < n; i++) expected.push(`p${String(n).padStart(2, '0')}-${i}`);
    for (const size of [1, 2, 4, 7, 100]) {
      const seen: string[] = [];
      for (let offset = 0; offset < expected.length + size; offset += size) {
        const page = await results.findResults(report, undefined, { offset, limit: size });
        expect(page.totalCount).to.equal(expected.length);
        seen.push(...page.records.map((r) => r.message));
      }
      expect(seen, `page size ${size}`).to.deep.equal(expected);
    }
    const errors = expected.filter((m) => Number(m.split('-')[1]) % 3 === 0);
    const pagedErrors: string[] = [];
    for (let offset = 0; offset < errors.length; offset += 2) pagedErrors.push(...(await results.findResults(report, 'error', { offset, limit: 2 })).records.map((r) => r.message));
    expect(pagedErrors).to.deep.equal(errors);
    const inC1 = expected.filter((m) => Number(m.split('-')[1]) % 2 === 0);
    const pagedC1: string[] = [];
    for (let offset = 0; offset < inC1.length; offset += 3) pagedC1.push(...(await results.findByCategory('f1', 'r-pages', 'c1', { offset, limit: 3 })).records.map((r) => r.message));
    expect(pagedC1).to.deep.equal(inC1);
    expect(await results.validityCounts(report)).to.deep.equal({ unacceptableIssueCount: 0, uncategorizedErrorCount: errors.filter((m) => !inC1.includes(m)).length, uncategorizedIssueCount: expected.length - inC1.length, issueCount: expected.length });
  });

  it('deleting a category removes its rules; its results are uncategorized from then on (counts, pages and validity)', async () => {
    await categories.save({ id: 'doomed', title: 'D', severity: 'ERROR', acceptable: true, guidance: 'g' });
    const key = { facilityId: 'f1', reportId: 'r-delete', patientId: 'p1' };
    await results.replacePatientResults(key, [{ issue: issue('error', 'a'), categoryIds: ['doomed'] }, { issue: issue('error', 'b'), categoryIds: ['doomed', 'c1'] }]);
    expect(await results.validityCounts(key)).to.deep.equal({ unacceptableIssueCount: 0, uncategorizedErrorCount: 0, uncategorizedIssueCount: 0, issueCount: 2 });

    expect(await categories.delete('doomed')).to.equal(true);
    expect(await categories.delete('doomed')).to.equal(false);
    expect(await categories.ruleHistory('doomed')).to.deep.equal([]);
    expect(await results.countByCategory('f1', 'r-delete')).to.deep.equal([{ categoryId: 'c1', count: 1, blockingCount: 1 }, { categoryId: 'uncategorized', count: 1, blockingCount: 1 }]);
    expect((await results.findResults(key, undefined, { offset: 0, limit: 10 })).records.map((r) => [r.message, r.categoryIds])).to.deep.equal([['a', []], ['b', ['c1']]]);
    expect((await results.findByCategory('f1', 'r-delete', 'uncategorized', { offset: 0, limit: 10 })).records.map((r) => r.message)).to.deep.equal(['a']);
    expect((await results.findByCategory('f1', 'r-delete', 'doomed', { offset: 0, limit: 10 })).totalCount).to.equal(0);
    expect(await results.validityCounts(key)).to.deep.equal({ unacceptableIssueCount: 0, uncategorizedErrorCount: 1, uncategorizedIssueCount: 1, issueCount: 2 });
  });

  it('a category made unacceptable counts against validity at once, without re-categorizing', async () => {
    await categories.save({ id: 'tolerated', title: 'T', severity: 'WARNING', acceptable: true, guidance: 'g' });
    const key = { facilityId: 'f1', reportId: 'r-flip', patientId: 'p1' };
    await results.replacePatientResults(key, [{ issue: issue('warning', 'w'), categoryIds: ['tolerated'] }]);
    expect((await results.validityCounts(key))!.unacceptableIssueCount).to.equal(0);
    await categories.save({ id: 'tolerated', title: 'T', severity: 'WARNING', acceptable: false, guidance: 'g' });
    expect((await results.validityCounts(key))!.unacceptableIssueCount).to.equal(1);
  });

  it('two writes of one submission at once leave one row with one of them, whole', async () => {
    const key = { facilityId: 'f1', reportId: 'r-race', patientId: 'p1' };
    const write = (tag: string, n: number) => results.replacePatientResults(key, Array.from({ length: n }, (_, i) => ({ issue: issue('error', `${tag}${i}`), categoryIds: ['c1'] })));
    await Promise.all([write('a', 30), write('b', 40), write('c', 50)]);
    const rows = await db.orm.em.fork().execute<{ n: string }[]>("select count(*)::text as n from validation_outcome where report_id = 'r-race'");
    expect(rows[0]!.n).to.equal('1');
    const page = await results.findResults(key, undefined, { offset: 0, limit: 100 });
    const tags = new Set(page.records.map((r) => r.message[0]));
    expect(tags.size, 'all issues from the same write').to.equal(1);
    expect(page.totalCount).to.equal(page.records.length);
    expect((await results.countByCategory('f1', 'r-race'))).to.deep.equal([{ categoryId: 'c1', count: page.totalCount, blockingCount: page.totalCount }]);
  });

  it('stores artifacts unique by (type, name) and lists them without content', async () => {
    const first = await artifacts.save('RESOURCE', 'vs1', Buffer.from('{"a":1}'), { resourceType: 'ValueSet', url: 'http://vs' });
    expect(first.created).to.equal(true);
    const second = await artifacts.save('RESOURCE', 'vs1', Buffer.from('{"a":22}'), { resourceType: 'ValueSet' });
    expect(second.created).to.equal(false);
    expect(second.artifact.id).to.equal(first.artifact.id);
    const listed = await artifacts.list();
    expect(listed).to.have.length(1);
    expect(listed[0]).to.not.have.property('content');
    expect(listed[0]).to.include({ size: 8, resourceType: 'ValueSet' });
    expect((await artifacts.get('RESOURCE', 'vs1'))!.content.toString()).to.equal('{"a":22}');
    expect(await artifacts.delete('RESOURCE', 'vs1')).to.equal(true);
    expect(await artifacts.count()).to.equal(0);
  });
});
