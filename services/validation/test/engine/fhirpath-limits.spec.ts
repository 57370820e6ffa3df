/**
 * FHIRPath evaluation has an item budget (issue 28): an expression whose steps produce more than
 * MAX_FHIRPATH_ITEMS items in all is stopped and reported as too costly, instead of growing the
 * worker's heap by a gigabyte; ordinary expressions are unaffected.
 */
import { expect } from 'chai';
import { InvariantEvaluator, MAX_FHIRPATH_ITEMS } from '#validation/domain/engine/checks/invariants.js';
import type { ValidationOutcome } from '#validation/domain/engine/outcome/issue.js';
import { Validator } from '#validation/domain/engine/validator.js';
import { LocalTerminology } from '#validation/domain/terminology/local-terminology.js';
import { coreSource } from './support/core-definitions.js';
import { engineKeyOf } from './support/helpers.js';
import { responseWithEnableWhen } from './support/enable-when-response.js';

const tooCostly = (o: ValidationOutcome) => o.issue.filter((i) => engineKeyOf(i) === 'FHIRPATH_TOO_COSTLY');

describe('engine: FHIRPath item budget', function () {
  this.timeout(120_000);
  let validator: Validator;
  let evaluator: InvariantEvaluator;
  before(async () => {
    const source = await coreSource();
    validator = new Validator(source);
    evaluator = new InvariantEvaluator(new LocalTerminology(source), { maxItems: 10_000 });
  });

  it('a nested descendants().select(...) enableWhenExpression is stopped with one error; the item counts as enabled', async () => {
    const expression = 'descendants().select(%resource.descendants().select(%resource.descendants())).exists()';
    const outcome = await validator.validateAsync(responseWithEnableWhen(expression, 60));
    const issues = tooCostly(outcome);
    expect(issues).to.have.length(1);
    expect(issues[0]).to.include({ severity: 'error', code: 'too-costly' });
    expect(issues[0]!.details.text).to.equal(`The FHIRPath expression '${expression}' was not evaluated to its end: it produced more than ${MAX_FHIRPATH_ITEMS} items`);
    expect(outcome.issue.filter((i) => engineKeyOf(i) === 'QR_ITEM_NOT_ENABLED')).to.deep.equal([]);
  });

  it('an ordinary enableWhenExpression is evaluated as before', async () => {
    const disabled = await validator.validateAsync(responseWithEnableWhen("item.where(linkId = 'q0').answer.value = 'other'", 60));
    expect(tooCostly(disabled)).to.deep.equal([]);
    expect(disabled.issue.filter((i) => engineKeyOf(i) === 'QR_ITEM_NOT_ENABLED')).to.have.length(1);
  });

  it('an invariant past the budget is too costly (not a pass, not an error of the expression); under it, evaluated', () => {
    const plan = (expression: string) => ({ key: 'test-1', severity: 'error' as const, human: 'test', expression, bestPractice: false, base: 'Basic', source: undefined });
    const basic = { resourceType: 'Basic', code: { coding: Array.from({ length: 50 }, (_, i) => ({ system: 'http://example.org', code: `c${i}` })) } };
    const env = { resource: basic, rootResource: basic };
    expect(evaluator.evaluate(plan('descendants().count() > 100'), basic, env)).to.equal('pass');
    expect(evaluator.evaluate(plan('descendants().select(%resource.descendants()).count() > 100'), basic, env)).to.deep.equal({
      error: `The FHIRPath expression 'descendants().select(%resource.descendants()).count() > 100' was not evaluated to its end: it produced more than 10000 items`, tooCostly: true,
    });
    // the budget is per evaluation: the next one starts from zero
    expect(evaluator.evaluate(plan('code.coding.count() = 50'), basic, env)).to.equal('pass');
    expect(evaluator.evaluate(plan('code.coding.count() = 49'), basic, env)).to.equal('fail');
  });
});
