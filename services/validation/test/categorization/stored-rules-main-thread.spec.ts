/**
 * The stored rules categorize an engine outcome on the main thread only while their regex engine's
 * price over its issues is small (MAX_MAIN_THREAD_MATCHING_COST); messages quoting large submitted
 * values with a dear stored rule go to the categorization runner (a worker under the deadline).
 * The repository and the runner are ports: stubbed/recorded here, real in categorize-in-worker.int.spec.ts.
 */
import { expect } from 'chai';
import sinon from 'sinon';
import { CategoryService } from '#validation/application/category-service.js';
import { ValidationDeadlineError } from '#validation/application/errors.js';
import { MAX_MAIN_THREAD_MATCHING_COST, ValidationApiService } from '#validation/application/validation-api-service.js';
import { inProcessCategorization, type CategorizationRunner } from '#validation/domain/ports/categorization-runner.js';
import type { CategoryRepository } from '#validation/domain/ports/category-repository.js';
import type { ValidationOutcome } from '#validation/domain/ports/resource-validator.js';

const costly = { id: 'costly', title: 'Costly', severity: 'ERROR' as const, acceptable: false, guidance: 'g' };
const rule = { id: 1, categoryId: 'costly', matcher: { field: 'MESSAGE', regex: '[\\p{L}\\d]{900}!' }, timestamp: '2026-01-01T00:00:00.000Z' };

function repository(): CategoryRepository {
  return {
    listWithLatestRules: sinon.stub().resolves([{ category: costly, rule }]),
    // what the worker is given: the stored latest rules as snapshots
    list: sinon.stub().resolves([costly]),
  } as unknown as CategoryRepository;
}

/** An engine outcome of `count` errors whose messages quote a value of `length` letters and digits. */
function outcome(count: number, length: number): ValidationOutcome {
  const unit = `${'é'.repeat(789)}0123456789 `;
  const value = unit.repeat(Math.ceil(length / unit.length)).slice(0, length);
  return {
    resourceType: 'OperationOutcome',
    issue: Array.from({ length: count }, (_, i) => ({ severity: 'error', code: 'invalid', diagnostics: `Not a valid date/time (${i}${value})`, expression: [`Patient.birthDate`] })),
  } as unknown as ValidationOutcome;
}

function service(engineOutcome: ValidationOutcome, runner: CategorizationRunner) {
  const categories = new CategoryService(repository(), { categorizerTtlMs: 0 });
  sinon.stub(categories, 'exportAll').resolves([{ ...costly, matcher: rule.matcher as never }]);
  return new ValidationApiService({ validate: async () => engineOutcome }, categories, undefined, runner);
}

describe('validation: the stored rules on the main thread only while cheap (validation-api-service)', () => {
  it('categorizes an ordinary outcome on this thread, without the runner', async () => {
    const runner = { categorize: sinon.spy(inProcessCategorization.categorize) };
    const answer = await service(outcome(3, 200), runner).validate({ resourceType: 'Patient' }, { categorize: true, summarize: false });
    expect(runner.categorize.callCount).to.equal(0);
    expect(answer.kind).to.equal('issues');
  });

  it('hands messages quoting 1 MB values to the runner when a dear stored rule would scan them, with the same verdicts', async () => {
    const runner = { categorize: sinon.spy(inProcessCategorization.categorize) };
    const answer = await service(outcome(20, 1024 ** 2), runner).validateAndCategorize({ resourceType: 'Patient' });
    expect(runner.categorize.callCount).to.equal(1);
    const task = runner.categorize.firstCall.args[0];
    expect(task.rules).to.equal('stored');
    expect(task.issues).to.have.length(20);
    // 20 values × 4,096 characters × a program of ~900 is above the main thread's budget
    expect(20 * 4096 * 900).to.be.above(MAX_MAIN_THREAD_MATCHING_COST);
    expect(answer.issues.map((issue) => issue.categories.map((c) => c.id))).to.deep.equal(Array.from({ length: 20 }, () => ['uncategorized']));
  });

  it('answers a ValidationDeadlineError when the runner stopped the categorization at its deadline', async () => {
    const runner: CategorizationRunner = { categorize: async () => ({ kind: 'deadline', budgetMs: 2000 }) };
    let error: unknown;
    await service(outcome(20, 1024 ** 2), runner).validate({ resourceType: 'Patient' }, { categorize: true, summarize: true }).catch((e: unknown) => { error = e; });
    expect(error).to.be.instanceOf(ValidationDeadlineError);
    expect((error as Error).message).to.contain('2000 ms');
  });
});
