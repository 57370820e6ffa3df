/**
 * The lint ratchet's arithmetic (scripts/lint/ratchet.ts): what `npm run lint` compares with
 * lint-baseline.json. A rise anywhere fails; a fall is reported so the baseline can be lowered.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { compareWithBaseline, countByFolder, folderOf, type Baseline } from '#scripts/lint/ratchet.js';
import { projectRoot } from '#test-support/shared-dir.js';

describe('architecture: the lint ratchet', () => {
  it('counts findings per ring folder and rule', () => {
    expect(folderOf('services/validation/src/domain/engine/walk/value-walker.ts')).to.equal('services/validation/src/domain');
    expect(folderOf('services/tenant/src/composition.ts')).to.equal('services/tenant/src/composition.ts');
    expect(folderOf('adapters/http/app.ts')).to.equal('adapters/http');
    expect(folderOf('contracts/catalog.ts')).to.equal('contracts');
    const counts = countByFolder([
      { file: 'adapters/http/app.ts', rules: ['r1', 'r2', 'r1'] },
      { file: 'adapters/http/problem.ts', rules: ['r1'] },
      { file: 'adapters/cache/keyv.ts', rules: [] },
    ]);
    expect(counts).to.deep.equal({ 'adapters/http': { r1: 3, r2: 1 } });
  });

  it('fails a count that rose, a new rule or a new folder, and reports one that fell', () => {
    const baseline: Baseline = { 'adapters/http': { r1: 3, r2: 1 }, contracts: { r1: 2 } };
    const now: Baseline = { 'adapters/http': { r1: 4, r3: 1 }, contracts: { r1: 1 }, 'adapters/auth': { r1: 1 } };
    const { rose, fell } = compareWithBaseline(now, baseline);
    expect(rose).to.deep.equal([
      { folder: 'adapters/auth', rule: 'r1', baseline: 0, now: 1 },
      { folder: 'adapters/http', rule: 'r1', baseline: 3, now: 4 },
      { folder: 'adapters/http', rule: 'r3', baseline: 0, now: 1 },
    ]);
    expect(fell).to.deep.equal([
      { folder: 'adapters/http', rule: 'r2', baseline: 1, now: 0 },
      { folder: 'contracts', rule: 'r1', baseline: 2, now: 1 },
    ]);
    expect(compareWithBaseline(baseline, baseline)).to.deep.equal({ rose: [], fell: [] });
  });

  it('keeps a baseline in the repository for the ratcheted rules (no `!`, no `as` among them)', () => {
    const baseline = JSON.parse(readFileSync(path.join(projectRoot, 'lint-baseline.json'), 'utf8')) as Baseline;
    const rules = new Set(Object.values(baseline).flatMap((byRule) => Object.keys(byRule)));
    expect([...rules]).to.include.members(['@typescript-eslint/no-non-null-assertion', '@typescript-eslint/consistent-type-assertions']);
  });
});
