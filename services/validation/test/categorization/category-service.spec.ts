import { expect } from 'chai';
import sinon from 'sinon';
import { CategoryService } from '#validation/application/category-service.js';
import { InvalidInputError, NotFoundError } from '#shared-kernel/domain/errors.js';
import type { CategoryRepository } from '#validation/domain/ports/category-repository.js';

const category = { id: 'c1', title: 'C1', severity: 'ERROR' as const, acceptable: false, guidance: 'g' };

function stubRepository() {
  return {
    list: sinon.stub().resolves([category]),
    get: sinon.stub().resolves(category),
    save: sinon.stub().resolves({ created: false }),
    delete: sinon.stub().resolves(true),
    count: sinon.stub().resolves(1),
    latestRule: sinon.stub().resolves(undefined),
    ruleHistory: sinon.stub().resolves([]),
    addRule: sinon.stub().callsFake(async (categoryId: string, matcher: unknown) => ({ id: 9, categoryId, matcher, timestamp: '2026-01-01T00:00:00.000Z' })),
    deleteRule: sinon.stub().resolves(true),
    listWithLatestRules: sinon.stub().resolves([{ category, rule: { id: 1, categoryId: 'c1', matcher: { field: 'MESSAGE', regex: 'boom' }, timestamp: '2026-01-01T00:00:00.000Z' } }]),
    importSnapshots: sinon.stub().resolves({ created: 0, updated: 0, rulesAdded: 0, deleted: 0 }),
  } satisfies Record<keyof CategoryRepository, sinon.SinonStub>;
}

describe('validation: CategoryService', () => {
  it('reuses the categorizer within the TTL, reads again after it, and drops it on its own writes', async () => {
    const repository = stubRepository();
    let now = 0;
    const service = new CategoryService(repository, { categorizerTtlMs: 1000, now: () => now });
    const first = await service.currentCategorizer();
    expect(first.categoriesOf({ message: 'boom!' }).map((c) => c.id)).to.deep.equal(['c1']);
    now = 999;
    expect(await service.currentCategorizer()).to.equal(first);
    expect(repository.listWithLatestRules.callCount).to.equal(1);
    now = 1000;
    await service.currentCategorizer();
    expect(repository.listWithLatestRules.callCount).to.equal(2);
    await service.addRule('c1', { field: 'MESSAGE', regex: 'x' });
    await service.currentCategorizer();
    expect(repository.listWithLatestRules.callCount).to.equal(3);
  });

  it('keeps the same categorizer (and what it remembers) while the stored rules are unchanged; a new rule or category change builds a new one', async () => {
    const repository = stubRepository();
    const service = new CategoryService(repository, { categorizerTtlMs: 0 });
    const first = await service.currentCategorizer();
    expect(await service.currentCategorizer()).to.equal(first);
    expect(repository.listWithLatestRules.callCount).to.equal(2);
    repository.listWithLatestRules.resolves([{ category: { ...category, acceptable: true }, rule: { id: 1, categoryId: 'c1', matcher: { field: 'MESSAGE', regex: 'boom' }, timestamp: 't' } }]);
    const second = await service.currentCategorizer();
    expect(second).to.not.equal(first);
    expect(second.categoriesOf({ message: 'boom' })[0]!.acceptable).to.equal(true);
    repository.listWithLatestRules.resolves([{ category: { ...category, acceptable: true }, rule: { id: 2, categoryId: 'c1', matcher: { field: 'MESSAGE', regex: 'bang' }, timestamp: 't' } }]);
    const third = await service.currentCategorizer();
    expect(third).to.not.equal(second);
    expect(third.categoriesOf({ message: 'boom' }).map((c) => c.id)).to.deep.equal(['uncategorized']);
  });

  it('skips a stored rule that no longer compiles and reports it once', async () => {
    const repository = stubRepository();
    repository.listWithLatestRules.resolves([{ category, rule: { id: 5, categoryId: 'c1', matcher: { field: 'MESSAGE', regex: '(?=lookahead)' }, timestamp: 't' } }]);
    const broken = sinon.spy();
    const service = new CategoryService(repository, { categorizerTtlMs: 0, onBrokenRule: broken });
    expect((await service.currentCategorizer()).categoriesOf({ message: 'lookahead' }).map((c) => c.id)).to.deep.equal(['uncategorized']);
    await service.currentCategorizer();
    expect(broken.callCount).to.equal(1);
    expect(broken.firstCall.args[0].id).to.equal(5);
  });

  it('skips a stored rule written before the program size limit, reporting why', async () => {
    const repository = stubRepository();
    repository.listWithLatestRules.resolves([{ category, rule: { id: 6, categoryId: 'c1', matcher: { field: 'MESSAGE', regex: 'a'.repeat(3000) }, timestamp: 't' } }]);
    const broken = sinon.spy();
    const service = new CategoryService(repository, { categorizerTtlMs: 0, onBrokenRule: broken });
    expect((await service.currentCategorizer()).categoriesOf({ message: 'a'.repeat(3000) }).map((c) => c.id)).to.deep.equal(['uncategorized']);
    expect(broken.callCount).to.equal(1);
    expect(broken.firstCall.args[1]).to.match(/program of size 3002; at most 2000/);
  });

  it('turns invalid input into InvalidInputError and missing categories into NotFoundError', async () => {
    const repository = stubRepository();
    const service = new CategoryService(repository);
    await service.addRule('c1', { field: 'NOPE', regex: 'x' }).then(() => expect.fail(), (e) => expect(e).to.be.instanceOf(InvalidInputError));
    expect(repository.addRule.called).to.equal(false);
    repository.get.resolves(undefined);
    await service.addRule('c9', { field: 'MESSAGE', regex: 'x' }).then(() => expect.fail(), (e) => expect(e).to.be.instanceOf(NotFoundError));
    await service.save('c1', { ...category, id: 'c2' }).then(() => expect.fail(), (e) => expect(e).to.be.instanceOf(InvalidInputError));
    repository.deleteRule.resolves(false);
    await service.deleteRule(3).then(() => expect.fail(), (e) => expect(e).to.be.instanceOf(NotFoundError));
  });
});
