import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'chai';
import { sharedDir } from '#test-support/shared-dir.js';
import { embeddedPackagesDirectory } from '#validation/adapters/artifacts/embedded-packages.js';
import { defaultCategories } from '#validation/application/default-categories.js';
import { main as validateCli } from '#validation/cli/validate.js';
import { Categorizer, type Categorized } from '#validation/domain/categorization/categorizer.js';
import { CATEGORY_SEVERITIES } from '#validation/domain/categorization/category.js';
import { parseMatcher } from '#validation/domain/categorization/matcher.js';
import { assessValidity } from '#validation/domain/categorization/validity.js';
import { LayeredConformanceSource } from '#validation/domain/engine/layered-source.js';
import { Validator } from '#validation/domain/engine/validator.js';
import type { CanonicalResource } from '#validation/domain/ports/conformance-resources.js';
import { categorySeverityOf } from '#validation/domain/results/uncategorized-label.js';
import { issuesFromOperationOutcome, type OperationOutcomeLike, type ValidationIssue } from '#validation/domain/results/validation-issue.js';
import { LocalTerminology } from '#validation/domain/terminology/local-terminology.js';
import { coreSource } from '../engine/support/core-definitions.js';
import { loadCases } from '../engine/support/conformance.js';

/** The one profile the NHSN samples claim that no published package holds (the package has it under http://www.cdc.gov/nhsn/fhirportal/dqm/ig/). */
const UNPUBLISHED_BUNDLE_PROFILE = 'https://www.cdc.gov/nhsn/nhsn-measures/StructureDefinition/nhsn-measurereport-bundle';

const categorizer = new Categorizer(defaultCategories().map((snapshot) => ({ category: snapshot, matcher: parseMatcher(snapshot.matcher) })));
const rank = (label: string) => CATEGORY_SEVERITIES.length - CATEGORY_SEVERITIES.indexOf(label as (typeof CATEGORY_SEVERITIES)[number]);

/** `category label < issue severity` findings, one line per category and severity. */
function understatedLabels(issues: readonly Categorized<ValidationIssue>[]): string[] {
  const found = new Set<string>();
  for (const issue of issues) {
    for (const category of issue.categories) {
      if (category.id === 'uncategorized') continue;
      if (rank(category.severity) < rank(categorySeverityOf(issue.severity))) found.add(`${category.id} (${category.severity}) holds ${issue.severity}: ${issue.message.slice(0, 100)}`);
    }
  }
  return [...found].sort();
}

/**
 * The acceptance of the default categories on real data: the NHSN sample Bundles validated with the
 * IG packages embedded in the service (what a fresh installation runs with).
 */
describe('validation: default categories on the engine\'s findings for the NHSN samples (embedded packages) @slow', function () {
  this.timeout(180_000);
  const perFile: { file: string; issues: Categorized<ValidationIssue>[] }[] = [];

  before(async () => {
    const packages = embeddedPackagesDirectory()!;
    const samples = sharedDir('samples', 'nhsn-ach');
    const igs = readdirSync(packages).filter((f) => f.endsWith('.tgz')).flatMap((f) => ['--ig', join(packages, f)]);
    const files = readdirSync(samples).filter((f) => /^patient-.*\.json$/.test(f) && f !== 'patient-list.json');
    let output = '';
    await validateCli([...igs, '--format', 'json', ...files.map((f) => join(samples, f))], (text) => { output += text; }, () => undefined);
    const bundle = JSON.parse(output) as { entry: { resource: OperationOutcomeLike }[] };
    expect(bundle.entry).to.have.length(files.length);
    bundle.entry.forEach((entry, i) => perFile.push({ file: files[i]!, issues: categorizer.categorize(issuesFromOperationOutcome(entry.resource)) }));
  });

  it('leaves no issue of the sample patient Bundles uncategorized', () => {
    const issues = perFile.flatMap((f) => f.issues);
    expect(issues.length).to.be.greaterThan(100);
    const uncategorized = issues.filter((i) => i.categories.length === 1 && i.categories[0]!.id === 'uncategorized').map((i) => i.message);
    expect(uncategorized, 'issues without a category').to.deep.equal([]);
  });

  it('finds every profile the samples claim in the embedded packages, except the NHSN Bundle profile under its unpublished URL, which does not block', () => {
    const missing = new Set(perFile.flatMap((f) => f.issues).filter((i) => i.message.startsWith("Can't find profile ")).map((i) => i.message));
    expect([...missing]).to.deep.equal([`Can't find profile ${UNPUBLISHED_BUNDLE_PROFILE}`]);
    for (const { file, issues } of perFile) {
      const bundleProfile = issues.filter((i) => i.message.includes(UNPUBLISHED_BUNDLE_PROFILE));
      expect(bundleProfile.map((i) => i.categories.map((c) => [c.id, c.acceptable])), file).to.deep.equal([[['nhsn_bundle_profile_unpublished_url', true]]]);
      // Without the other issues of the sample (real data is messy), the Bundle profile alone leaves the submission valid.
      expect(assessValidity(bundleProfile).valid, file).to.equal(true);
    }
  });

  it('labels each category at least as severe as every issue it holds', () => {
    expect(understatedLabels(perFile.flatMap((f) => f.issues))).to.deep.equal([]);
  });
});

/**
 * The same label rule over the inputs of the HL7 conformance checks (FHIR core only): they reach
 * messages the NHSN samples do not (XHTML, profile limits, contained references, JSON syntax).
 */
describe('validation: default category labels on the HL7 conformance inputs @slow', function () {
  this.timeout(120_000);

  it('labels each category at least as severe as every issue it holds', async () => {
    const core = await coreSource();
    const root = sharedDir('conformance', 'fhir-test-cases', 'validator');
    const issues: Categorized<ValidationIssue>[] = [];
    for (const check of loadCases()) {
      const supporting: CanonicalResource[] = [];
      for (const file of check.supporting) {
        try {
          supporting.push(JSON.parse(readFileSync(join(root, file), 'utf8')) as CanonicalResource);
        } catch {
          // an unreadable supporting file is absent, as in the conformance runner
        }
      }
      const source = new LayeredConformanceSource(supporting, core);
      const validator = new Validator(source, new LocalTerminology(source));
      const outcome = validator.validate(readFileSync(join(root, check.file), 'utf8'), { profiles: check.profiles });
      issues.push(...categorizer.categorize(issuesFromOperationOutcome(outcome)));
    }
    expect(issues.length).to.be.greaterThan(300);
    expect(understatedLabels(issues)).to.deep.equal([]);
  });
});
