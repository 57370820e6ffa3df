import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'chai';
import { sharedDir } from '../../../../test/support/shared-dir.js';
import { defaultCategories } from '../../src/application/default-categories.js';
import { main as validateCli } from '../../src/cli/validate.js';
import { Categorizer } from '../../src/domain/categorization/categorizer.js';
import { parseMatcher } from '../../src/domain/categorization/matcher.js';
import { issuesFromOperationOutcome, type OperationOutcomeLike } from '../../src/domain/results/validation-issue.js';

/**
 * The acceptance of the default categories: every kind of issue the engine reports on the NHSN
 * sample Bundles (validated against the shared IG packages) falls in at least one category.
 * A new kind of engine message makes this fail on purpose: it needs a category.
 */
describe('validation: default categories cover the engine\'s findings on the NHSN samples', () => {
  it('leaves no issue of the sample patient Bundles uncategorized', async function () {
    this.timeout(120_000);
    const packages = sharedDir('fhir-packages');
    const samples = sharedDir('samples', 'nhsn-ach');
    const igs = readdirSync(packages).filter((f) => f.endsWith('.tgz')).flatMap((f) => ['--ig', join(packages, f)]);
    const files = readdirSync(samples).filter((f) => /^patient-.*\.json$/.test(f) && f !== 'patient-list.json').map((f) => join(samples, f));
    let output = '';
    await validateCli([...igs, '--format', 'json', ...files], (text) => { output += text; }, () => undefined);
    const bundle = JSON.parse(output) as { entry: { resource: OperationOutcomeLike }[] };
    expect(bundle.entry).to.have.length(files.length);

    const categorizer = new Categorizer(defaultCategories().map((snapshot) => ({ category: snapshot, matcher: parseMatcher(snapshot.matcher) })));
    const issues = bundle.entry.flatMap((e) => categorizer.categorize(issuesFromOperationOutcome(e.resource)));
    expect(issues.length).to.be.greaterThan(100);
    const uncategorized = issues.filter((i) => i.categories.length === 1 && i.categories[0]!.id === 'uncategorized').map((i) => i.message);
    expect(uncategorized, 'issues without a category').to.deep.equal([]);
  });
});
