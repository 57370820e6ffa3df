/**
 * Categorization benchmark: `npx tsx scripts/bench/categorize-bench.ts [--rounds N]`
 *
 * Validates the NHSN sample patient Bundles (../shared/samples/nhsn-ach) once, as the flow does
 * (entry by entry, issues rebased into the Bundle and aggregated), then times only
 * `Categorizer.categorize` with the bundled default categories on each submission's issues.
 * Categorizers are built before the clock starts (the flow builds one per rule change, not per
 * submission) and are fresh, so no answer is remembered from an earlier round:
 *   - per submission: a new categorizer for every submission (nothing carried between patients);
 *   - per pass: one categorizer for the whole sample in turn (as the flow reuses it across patients).
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { sharedDir } from '#test-support/shared-dir.js';
import { loadDefinitions } from '#validation/adapters/fhir-definitions/definition-cache.js';
import { defaultCategories } from '#validation/application/default-categories.js';
import { Categorizer } from '#validation/domain/categorization/categorizer.js';
import { parseMatcher } from '#validation/domain/categorization/matcher.js';
import { LayeredConformanceSource } from '#validation/domain/engine/layered-source.js';
import { Validator } from '#validation/domain/engine/validator.js';
import { aggregatedOutcomeJson, encodeEntryIssues, outcomeIssues } from '#validation/domain/flow/entry-outcome.js';
import type { FhirResourceJson } from '#validation/domain/ports/submission-source.js';
import type { ValidationIssue } from '#validation/domain/results/validation-issue.js';
import { LocalTerminology } from '#validation/domain/terminology/local-terminology.js';

const { values } = parseArgs({ options: { rounds: { type: 'string', default: '300' } } });
const ROUNDS = Number(values.rounds);

async function sampleSubmissions(): Promise<ValidationIssue[][]> {
  const dir = sharedDir('samples', 'nhsn-ach');
  const files = readdirSync(dir).filter((f) => /^patient-.*\.json$/.test(f) && f !== 'patient-list.json');
  const loaded = await loadDefinitions({ packages: [sharedDir('fhir-packages')] });
  const source = new LayeredConformanceSource([], loaded.index);
  const validator = new Validator(source, new LocalTerminology(source));
  return files.map((file) => {
    const bundle = JSON.parse(readFileSync(path.join(dir, file), 'utf8')) as { entry: { resource: FhirResourceJson }[] };
    // The issues the flow categorizes: each entry's outcome written as text where it was validated, decoded once.
    const entries = bundle.entry.map(({ resource }, index) => encodeEntryIssues(index, resource, validator.validate(resource)));
    return outcomeIssues(aggregatedOutcomeJson(entries));
  });
}

/** Mean ms per submission over `rounds`, after as many rounds of warm-up (JIT), each round with fresh categorizers. */
function measure(submissions: readonly ValidationIssue[][], fresh: () => Categorizer, perSubmission: boolean, rounds: number): number {
  let elapsed = 0;
  for (let round = 0; round < 2 * rounds; round++) {
    const categorizers = submissions.map((_, i) => (perSubmission || i === 0 ? fresh() : undefined));
    const start = performance.now();
    let categorizer = categorizers[0]!;
    for (let i = 0; i < submissions.length; i++) {
      categorizer = categorizers[i] ?? categorizer;
      categorizer.categorize(submissions[i]!);
    }
    if (round >= rounds) elapsed += performance.now() - start;
  }
  return elapsed / (rounds * submissions.length);
}

async function main(): Promise<void> {
  const submissions = await sampleSubmissions();
  const issues = submissions.reduce((sum, s) => sum + s.length, 0);
  const perSubmissionIssues = issues / submissions.length;
  const rules = defaultCategories().map((snapshot) => ({ category: snapshot, matcher: parseMatcher(snapshot.matcher) }));
  const fresh = () => new Categorizer(rules);
  console.log(`${submissions.length} sample submissions, ${issues} issues (${perSubmissionIssues.toFixed(0)} per submission), ${rules.length} default categories, ${ROUNDS} rounds`);
  for (let i = 0; i < 100; i++) fresh();
  const built = performance.now();
  for (let i = 0; i < 100; i++) fresh();
  console.log(`building a categorizer (rules already parsed, as the category service caches them): ${((performance.now() - built) / 100).toFixed(3)} ms`);
  for (const [label, perSubmission] of [['fresh categorizer per submission', true], ['one fresh categorizer per pass over the sample', false]] as const) {
    const ms = measure(submissions, fresh, perSubmission, ROUNDS);
    console.log(`${label}: ${ms.toFixed(3)} ms per submission, ${((ms * 1000) / perSubmissionIssues).toFixed(2)} µs per issue`);
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
