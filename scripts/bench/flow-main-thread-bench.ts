/**
 * The flow's main-thread step between validation and commit, alone:
 *
 *   npx tsx scripts/bench/flow-main-thread-bench.ts [--submissions 500] [--passes 20]
 *
 * What validation-flow.ts does on its own thread for each submission once the worker handed back the
 * outcome's text: decode it (outcomeIssues), categorize with the current categorizer (one, long-lived,
 * as the category service keeps it across submissions), the verdict, the compact categorization
 * (categorizeIssues) and the outcome's hash. The submissions are flow-bench.ts's: the NHSN sample
 * Bundles as MeasureReports with contained resources, copy n with every resource id suffixed `-n`, so
 * expressions naming a resource differ from copy to copy as they do in the flow bench (and every pass has new copies).
 *
 * Prints this thread's CPU µs per submission (process.cpuUsage; the process runs nothing else), per
 * step and in all, the median of `--passes` passes over the submissions after as many warm-up passes.
 * CPU, not wall time: the machine is shared.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { sharedDir } from '#test-support/shared-dir.js';
import { loadDefinitions } from '#validation/adapters/fhir-definitions/definition-cache.js';
import { validateSubmissionTask } from '#validation/adapters/worker-pool/submission-task.js';
import { distinctOutcomeHash } from '#validation/application/validation-flow/completion.js';
import { defaultCategories } from '#validation/application/default-categories.js';
import { Categorizer } from '#validation/domain/categorization/categorizer.js';
import { parseMatcher } from '#validation/domain/categorization/matcher.js';
import { assessValidity } from '#validation/domain/categorization/validity.js';
import { LayeredConformanceSource } from '#validation/domain/engine/layered-source.js';
import { Validator } from '#validation/domain/engine/validator.js';
import { joinedOutcomeJson, outcomeIssues } from '#validation/domain/flow/entry-outcome.js';
import { categorizeIssues } from '#validation/domain/results/submission-categorization.js';
import { LocalTerminology } from '#validation/domain/terminology/local-terminology.js';
import { median } from './statistics.js';

const { values } = parseArgs({ options: { submissions: { type: 'string', default: '500' }, passes: { type: 'string', default: '20' } } });
const SUBMISSIONS = Number(values.submissions);
const PASSES = Number(values.passes);

interface Sample {
  /** The sample's outcome text as the worker hands it back. */
  readonly outcome: string;
  /** The ids flow-bench.ts suffixes per copy. */
  readonly ids: readonly string[];
}

/**
 * The samples as flow-bench.ts submits them (MeasureReports with contained resources), each validated
 * once as the worker validates it (validateSubmissionTask, joinedOutcomeJson).
 */
async function samples(): Promise<Sample[]> {
  const loaded = await loadDefinitions({ packages: [sharedDir('fhir-packages')] });
  const source = new LayeredConformanceSource([], loaded.index);
  const validator = new Validator(source, new LocalTerminology(source));
  const dir = sharedDir('samples', 'nhsn-ach');
  const found: Sample[] = [];
  for (const file of readdirSync(dir).filter((f) => f.startsWith('patient-') && f.endsWith('.json')).sort()) {
    const bundle: unknown = JSON.parse(readFileSync(path.join(dir, file), 'utf8'));
    if (!isRecord(bundle) || bundle.resourceType !== 'Bundle' || !Array.isArray(bundle.entry)) continue;
    const resources = bundle.entry.flatMap((e: unknown) => (isRecord(e) && isRecord(e.resource) ? [e.resource] : []));
    const report = resources.find((r) => r.resourceType === 'MeasureReport');
    if (report === undefined) continue;
    const ids = [...new Set(resources.map((r) => r.id).filter((id): id is string => typeof id === 'string' && id.length >= 8))];
    const bytes = Buffer.from(JSON.stringify({ ...report, contained: resources.filter((r) => r !== report) }));
    const shared = new SharedArrayBuffer(bytes.length);
    new Uint8Array(shared).set(bytes);
    const result = await validateSubmissionTask(validator, { bytes: shared });
    if (result.kind !== 'validated') throw new Error(`unreadable sample ${file}: ${result.message}`);
    found.push({ outcome: joinedOutcomeJson(result.issues), ids });
  }
  return found;
}

/**
 * Copy n's outcome text: the sample's, every id suffixed `-n`. The worker's outcome for copy n of the
 * submission is exactly this (the ids reach the outcome only as text: `where(id = '...')` in expressions),
 * so it needs no validation per copy, and every pass can have copies no earlier pass saw, as the flow does.
 */
function copyOutcome(sample: Sample, n: number): string {
  let text = sample.outcome;
  for (const id of sample.ids) text = text.split(id).join(`${id}-${String(n)}`);
  return text;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

const cpuMicros = () => {
  const { user, system } = process.cpuUsage();
  return user + system;
};

async function main(): Promise<void> {
  const sampled = await samples();
  const rules = defaultCategories().map((snapshot) => ({ category: snapshot, matcher: parseMatcher(snapshot.matcher) }));
  const categorizer = new Categorizer(rules);
  const steps = ['decode', 'categorize', 'verdict+summary', 'hash'] as const;
  const perPass: Record<(typeof steps)[number] | 'total', number[]> = { decode: [], categorize: [], 'verdict+summary': [], hash: [], total: [] };
  let issueCount = 0;
  for (let pass = 0; pass < 2 * PASSES; pass++) {
    const outcomes = Array.from({ length: SUBMISSIONS }, (_, i) => {
      const n = pass * SUBMISSIONS + i;
      const sample = sampled[n % sampled.length];
      if (sample === undefined) throw new Error('no sample submissions');
      return copyOutcome(sample, n);
    });
    const spent = { decode: 0, categorize: 0, 'verdict+summary': 0, hash: 0 };
    const started = cpuMicros();
    issueCount = 0;
    for (const outcomeJson of outcomes) {
      let mark = cpuMicros();
      const lap = (step: (typeof steps)[number]) => {
        const now = cpuMicros();
        spent[step] += now - mark;
        mark = now;
      };
      const decoded = outcomeIssues(outcomeJson);
      lap('decode');
      const issues = categorizer.categorize(decoded);
      lap('categorize');
      const verdict = assessValidity(issues);
      const categorization = categorizeIssues(issues);
      const { severities } = categorization;
      const counts = {
        total: severities.issues, errors: severities.errors, warnings: severities.warnings, information: severities.information,
        categorized: issues.length - verdict.uncategorizedIssueCount, uncategorized: verdict.uncategorizedIssueCount, unacceptable: verdict.unacceptableIssueCount,
      };
      lap('verdict+summary');
      distinctOutcomeHash(outcomeJson, verdict.valid, counts, categorization.issueCategories);
      lap('hash');
      issueCount += issues.length;
    }
    if (pass < PASSES) continue; // warm-up
    perPass.total.push((cpuMicros() - started) / SUBMISSIONS);
    for (const step of steps) perPass[step].push(spent[step] / SUBMISSIONS);
  }
  console.log(`${String(SUBMISSIONS)} submissions a pass, ${(issueCount / SUBMISSIONS).toFixed(0)} issues each, ${String(rules.length)} default categories, ${String(PASSES)} timed passes`);
  for (const step of [...steps, 'total'] as const) {
    const sorted = [...perPass[step]].sort((a, b) => a - b);
    console.log(`${step.padEnd(16)} ${median(sorted).toFixed(1).padStart(7)} µs CPU per submission (passes ${(sorted[0] ?? 0).toFixed(1)}–${(sorted.at(-1) ?? 0).toFixed(1)})`);
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
