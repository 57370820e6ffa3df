import { expect } from 'chai';
import type { Database } from '../../../../adapters/persistence/database.js';
import { PgArtifactRepository } from '../../src/adapters/persistence/artifact-repository.js';
import { PgCategoryRepository } from '../../src/adapters/persistence/category-repository.js';
import { lockCategoryLinksExclusive, PgResultRepository, replacePatientResultsIn } from '../../src/adapters/persistence/result-repository.js';
import type { ValidationIssue } from '../../src/domain/results/validation-issue.js';
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

  it('replaces the results of a patient instead of duplicating them, with category links', async () => {
    const key = { facilityId: 'f1', reportId: 'r1', patientId: 'p1' };
    await results.replacePatientResults(key, [{ issue: issue('error', 'one'), categoryIds: ['c1'] }, { issue: issue('warning', 'two'), categoryIds: [] }]);
    await results.replacePatientResults(key, [
      { issue: issue('error', 'one'), categoryIds: ['c1', 'imp', 'deleted-meanwhile'] },
      { issue: issue('information', 'three'), categoryIds: [] },
      { issue: issue('fatal', 'four', { expression: 'x'.repeat(5000), location: '3:4', messageId: 'M1' }), categoryIds: ['imp'] },
    ]);
    await results.replacePatientResults({ ...key, patientId: 'p2' }, [{ issue: issue('warning', 'other patient'), categoryIds: ['c1'] }]);

    const page = await results.findResults({ facilityId: 'f1', reportId: 'r1', patientId: 'p1' }, undefined, { offset: 0, limit: 10 });
    expect(page.totalCount).to.equal(3);
    expect(page.records.map((r) => [r.message, r.categoryIds])).to.deep.equal([['one', ['c1', 'imp']], ['three', []], ['four', ['imp']]]);
    expect(page.records[2]!.expression).to.have.length(1000);
    expect(page.records[2]).to.include({ location: '3:4', messageId: 'M1', severity: 'fatal' });

    const errors = await results.findResults({ facilityId: 'f1', reportId: 'r1' }, 'error', { offset: 0, limit: 1 });
    expect(errors.totalCount).to.equal(2);
    expect(errors.records).to.have.length(1);
    expect((await results.findResults({ facilityId: 'f1', reportId: 'r1' }, 'warning', { offset: 0, limit: 10 })).totalCount).to.equal(3);

    expect(await results.countByCategory('f1', 'r1')).to.deep.equal([
      { categoryId: 'c1', count: 2 }, { categoryId: 'imp', count: 2 }, { categoryId: 'uncategorized', count: 1 },
    ]);
    const inImp = await results.findByCategory('f1', 'r1', 'imp', { offset: 0, limit: 10 });
    expect(inImp.records.map((r) => r.message)).to.deep.equal(['one', 'four']);
    expect((await results.findByCategory('f1', 'r1', 'uncategorized', { offset: 0, limit: 10 })).records.map((r) => r.message)).to.deep.equal(['three']);
  });

  it('deleting a category removes its rules and its result links', async () => {
    expect(await categories.delete('imp')).to.equal(true);
    expect(await categories.delete('imp')).to.equal(false);
    expect(await categories.ruleHistory('imp')).to.deep.equal([]);
    expect((await results.countByCategory('f1', 'r1')).find((c) => c.categoryId === 'imp')).to.equal(undefined);
  });

  it('leaves no link without its result or its category (the writers keep result_category consistent without foreign keys)', async () => {
    const key = { facilityId: 'f1', reportId: 'r-links', patientId: 'p1' };
    await results.replacePatientResults(key, [{ issue: issue('error', 'a'), categoryIds: ['c1'] }, { issue: issue('error', 'b'), categoryIds: ['c1'] }]);
    await results.replacePatientResults(key, [{ issue: issue('error', 'c'), categoryIds: ['c1'] }]);
    const orphans = await db.orm.em.fork().execute<{ n: string }[]>(`select count(*)::text as n from result_category rc
      where not exists (select 1 from validation_result r where r.id = rc.result_id) or not exists (select 1 from category c where c.id = rc.category_id)`);
    expect(orphans[0]!.n).to.equal('0');
    expect((await results.countByCategory('f1', 'r-links'))).to.deep.equal([{ categoryId: 'c1', count: 1 }]);
  });

  it('a category deleted while a patient is being written: the delete waits for the write, then removes its links', async () => {
    await categories.save({ id: 'racing', title: 'R', severity: 'ERROR', acceptable: false, guidance: 'g' });
    const key = { facilityId: 'f1', reportId: 'r-race', patientId: 'p1' };
    let release!: () => void;
    const held = new Promise<void>((resolve) => { release = resolve; });
    let written!: () => void;
    const linksWritten = new Promise<void>((resolve) => { written = resolve; });
    const writing = db.orm.em.fork().transactional(async (tx) => {
      await replacePatientResultsIn(tx, key, [{ issue: issue('error', 'x'), categoryIds: ['racing'] }]);
      written();
      await held; // the patient's transaction is still open, holding the category-links lock shared
    });
    await linksWritten;
    let deleteFinished = false;
    const deleting = categories.delete('racing').then((deleted) => { deleteFinished = true; return deleted; });
    await new Promise((resolve) => setTimeout(resolve, 200));
    const waited = !deleteFinished;
    release();
    await writing;
    expect(waited, 'the delete waits for the open patient write').to.equal(true);
    expect(await deleting).to.equal(true);
    const links = await db.orm.em.fork().execute<{ n: string }[]>("select count(*)::text as n from result_category where category_id = 'racing'");
    expect(links[0]!.n).to.equal('0');
  });

  it('a patient written while a category is being deleted links nothing to it once the delete commits', async () => {
    await categories.save({ id: 'going', title: 'G', severity: 'ERROR', acceptable: false, guidance: 'g' });
    const key = { facilityId: 'f1', reportId: 'r-race2', patientId: 'p1' };
    // A deletion in progress, as category deletion does it (the exclusive lock, then the rows).
    const deleter = db.orm.em.fork();
    await deleter.begin();
    await lockCategoryLinksExclusive(deleter);
    await deleter.execute("delete from category where id = 'going'");
    let writeFinished = false;
    const writing = results.replacePatientResults(key, [{ issue: issue('error', 'y'), categoryIds: ['going', 'c1'] }]).then(() => { writeFinished = true; });
    await new Promise((resolve) => setTimeout(resolve, 200));
    const waited = !writeFinished;
    await deleter.commit();
    await writing;
    expect(waited, 'the write waits for the uncommitted delete').to.equal(true);
    const page = await results.findResults({ facilityId: 'f1', reportId: 'r-race2' }, undefined, { offset: 0, limit: 10 });
    expect(page.records.map((r) => r.categoryIds)).to.deep.equal([['c1']]);
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
