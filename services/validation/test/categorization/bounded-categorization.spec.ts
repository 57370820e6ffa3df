import { expect } from 'chai';
import { categorizeBounded, matchingCost, MAX_TRIAL_COST } from '#validation/domain/categorization/bounded-categorization.js';
import { parseCategorySnapshots } from '#validation/domain/categorization/category.js';

const category = (id: string, matcher: unknown) => ({ id, title: id, severity: 'ERROR', acceptable: false, guidance: 'g', matcher });
/** The hostile trial of issue 28: leaves like `[\p{L}\d]{900}` (distinct, so none is shared). */
const hostile = (leaves: number) => Array.from({ length: leaves }, (_, i) => category(`c${i}`, { field: 'MESSAGE', regex: `[\\p{L}\\d]{900}${i}` }));
const messages = (count: number, length: number) => Array.from({ length: count }, (_, i) => ({ message: `${i}é`.repeat(length).slice(0, length) }));
const rulesOf = (categories: unknown) => parseCategorySnapshots(categories).map(({ snapshot, matcher }) => ({ category: snapshot, matcher }));

describe('validation: categorization of given results, priced before matching (bounded-categorization)', () => {
  it('refuses the hostile trial (40 leaves of [\\p{L}\\d]{900} over 20 messages of 2 KB) as too costly, without matching', () => {
    const started = performance.now();
    const answer = categorizeBounded({ issues: messages(20, 2048), categories: hostile(40), rules: 'caller' });
    expect(answer.kind).to.equal('too-costly');
    if (answer.kind !== 'too-costly') return;
    expect(answer.limit).to.equal(MAX_TRIAL_COST);
    expect(answer.cost).to.be.greaterThan(MAX_TRIAL_COST * 20);
    // compiling the 40 patterns is all it did (matching them took 16 s on the development machine); a hang check, not a speed test
    expect(performance.now() - started).to.be.below(10_000);
  });

  it('prices a value only for the leaves whose texts let it reach the regex engine', () => {
    const rules = rulesOf([category('prefix', { field: 'MESSAGE', regex: '^Wrong Display [A-Za-z]{200}' }), category('literal', { field: 'MESSAGE', regex: 'exactly this' })]);
    const other = { message: 'x'.repeat(1000) };
    const wrong = { message: `Wrong Display ${'x'.repeat(986)}` };
    // neither leaf runs the engine on `other`: a step a character each
    expect(matchingCost(rules, [other])).to.equal(2 * 1000);
    // the prefix leaf runs it on `wrong`: its program size a character
    expect(matchingCost(rules, [wrong])).to.be.greaterThan(100 * 1000);
    // a value given twice is matched once
    expect(matchingCost(rules, [wrong, wrong])).to.equal(matchingCost(rules, [wrong]));
    // another field's values cost these leaves nothing
    expect(matchingCost(rules, [{ expression: 'x'.repeat(1000) }])).to.equal(0);
  });

  it('categorizes within the price: per result the indexes of its categories, none for uncategorized', () => {
    const answer = categorizeBounded({
      issues: [{ message: 'Patient.gender: minimum required = 1' }, { message: 'something else' }, { severity: 'error', message: 'gender again' }],
      categories: [category('gender', { field: 'MESSAGE', regex: 'gender' }), category('errors', { field: 'SEVERITY', regex: '^error$' })],
      rules: 'caller',
    });
    expect(answer).to.deep.include({ kind: 'categorized', matches: [[0], [], [0, 1]] });
    if (answer.kind === 'categorized') expect(answer.categories.map((c) => c.id)).to.deep.equal(['gender', 'errors']);
  });

  it("a caller's rule that does not compile is refused naming it; a stored one is skipped", () => {
    const categories = [category('ok', { field: 'MESSAGE', regex: 'x' }), category('bad', { field: 'MESSAGE', regex: '(' })];
    const refused = categorizeBounded({ issues: [{ message: 'x' }], categories, rules: 'caller' });
    expect(refused.kind).to.equal('invalid');
    if (refused.kind === 'invalid') expect(refused.problems[0]!.field).to.equal('[1].matcher.regex');
    const stored = categorizeBounded({ issues: [{ message: 'x' }], categories, rules: 'stored' });
    expect(stored).to.deep.include({ kind: 'categorized', matches: [[0]] });
  });

  it('stored rules are not priced: the deadline of the worker they run in bounds them', () => {
    const answer = categorizeBounded({ issues: messages(1, 300), categories: hostile(2), rules: 'stored' });
    expect(answer.kind).to.equal('categorized');
  });
});
