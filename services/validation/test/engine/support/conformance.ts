/**
 * Runs the HL7 validator conformance checks (../shared/conformance/cases.json, and the XML ones of
 * cases-xml.json) in-process and
 * scores them the way ../shared/conformance/run.mjs does: verdict agreement (errors or not),
 * exact error count, and error locations (issue.expression[0]) matched against the expected.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { sharedDir } from '#test-support/shared-dir.js';
import type { CanonicalResource } from '#validation/domain/ports/conformance-resources.js';
import { LayeredConformanceSource } from '#validation/domain/engine/layered-source.js';
import { PlanRegistry } from '#validation/domain/engine/plan/plan-registry.js';
import { parseResourceText } from '#validation/domain/engine/xml/resource-text.js';
import { Validator } from '#validation/domain/engine/validator.js';
import { HL7_CLI_DEFAULTS, settingsFromManifest } from '#validation/domain/engine/settings-input.js';
import { InMemoryResourceFetcher } from '#validation/domain/ports/resource-fetcher.js';
import { TestRunnerFetcher } from '#validation/cli/test-runner-fetcher.js';
import { harnessProfiles } from '#validation/cli/harness-profiles.js';
import { LocalTerminology } from '#validation/domain/terminology/local-terminology.js';
import type { Issue } from '#validation/domain/engine/outcome/issue.js';
import { cliDefaultSource, coreSource } from './core-definitions.js';
import type { ConformanceResourceSource } from '#validation/domain/ports/conformance-resources.js';

export interface ConformanceCase {
  id: string;
  module: string | null;
  file: string;
  supporting: string[];
  profiles: string[];
  flags: string[];
  /** The check's settings as the HL7 test manifest writes them (the harness's {options}). */
  options?: Record<string, unknown>;
  allJson: boolean;
  expected: { errorCount: number; errors: { expr: string; msg: string }[] };
}

export interface CaseResult {
  id: string;
  module: string | null;
  expected: number;
  actual: number;
  verdictAgree: boolean;
  exact: boolean;
  locMatched: number;
  expectedLocations: number;
  errors: { expr: string; msg: string }[];
  crashed?: string;
}

export interface ConformanceScore {
  checks: number;
  verdictAgree: number;
  exactErrorCount: number;
  expectedErrors: number;
  locationsMatched: number;
  crashed: number;
  results: CaseResult[];
}

const root = () => sharedDir('conformance', 'fhir-test-cases', 'validator');

export function loadCases(): ConformanceCase[] {
  const doc = JSON.parse(readFileSync(sharedDir('conformance', 'cases.json'), 'utf8'));
  return (doc.cases as ConformanceCase[]).filter((c) => c.allJson);
}

/** The checks whose input or supporting files are FHIR XML (cases-xml.json). */
export function loadXmlCases(): ConformanceCase[] {
  const doc = JSON.parse(readFileSync(sharedDir('conformance', 'cases-xml.json'), 'utf8'));
  return doc.cases as ConformanceCase[];
}

/** Supporting files are read as the CLI reads them: JSON, or XML shaped with the core definitions. */
const shapesBySource = new WeakMap<ConformanceResourceSource, PlanRegistry>();
function shapesOf(core: ConformanceResourceSource): PlanRegistry {
  let plans = shapesBySource.get(core);
  if (!plans) shapesBySource.set(core, (plans = new PlanRegistry(core)));
  return plans;
}

// the harness's normalisation: both location styles compare equal
const normExpr = (e: string) => String(e || '').replace(/\s+/g, '').replace(/\/\*.*?\*\//g, '').replace(/\.ofType\(([^)]*)\)/g, '').replace(/\.where\(id=('[^']*'|"[^"]*")\)/g, '');

function multisetMatch(a: string[], b: string[]): number {
  const m = new Map<string, number>();
  for (const x of a) m.set(x, (m.get(x) ?? 0) + 1);
  let n = 0;
  for (const x of b) {
    const k = m.get(x);
    if (k) {
      n++;
      m.set(x, k - 1);
    }
  }
  return n;
}

export function runCase(c: ConformanceCase, core: ConformanceResourceSource): CaseResult {
  const base = { id: c.id, module: c.module, expected: c.expected.errorCount, expectedLocations: c.expected.errors.length };
  try {
    const supporting: CanonicalResource[] = [];
    for (const f of c.supporting) {
      try {
        supporting.push(parseResourceText(readFileSync(path.join(root(), f), 'utf8'), shapesOf(core)) as CanonicalResource);
      } catch {
        // an unreadable supporting file is simply absent, as for the CLI
      }
    }
    const source = new LayeredConformanceSource(supporting, core);
    // The manifest's options, read as the CLI reads `--options` (and the supporting files as the
    // CLI's fetcher), so in-process and CLI scores are the same.
    const manifest = settingsFromManifest(c.options ?? {});
    const validator = new Validator(source, new LocalTerminology(source), {
      ...HL7_CLI_DEFAULTS,
      ...manifest.settings,
      fetcher: manifest.fetcher === 'test-runner' ? new TestRunnerFetcher(supporting) : new InMemoryResourceFetcher(supporting),
    });
    const text = readFileSync(path.join(root(), c.file), 'utf8');
    // the profiles as the CLI's --harness applies them (the HL7 test runner's: from their source file)
    const outcome = validator.validate(text, { profiles: harnessProfiles(c.profiles, supporting) });
    const errs = outcome.issue.filter((i: Issue) => i.severity === 'error' || i.severity === 'fatal');
    const actExprs = errs.map((i) => i.expression?.[0] ?? '');
    const expExprs = c.expected.errors.map((e) => e.expr);
    return {
      ...base,
      actual: errs.length,
      verdictAgree: (c.expected.errorCount === 0) === (errs.length === 0),
      exact: c.expected.errorCount === errs.length,
      locMatched: multisetMatch(expExprs.map(normExpr), actExprs.map(normExpr)),
      errors: errs.map((i) => ({ expr: i.expression?.[0] ?? '', msg: i.details.text })),
    };
  } catch (e) {
    return { ...base, actual: -1, verdictAgree: false, exact: false, locMatched: 0, errors: [], crashed: e instanceof Error ? e.stack ?? e.message : String(e) };
  }
}

/** Runs the checks against the CLI's default definitions (`cli`, with the core extension pack) or R4 core alone. */
export async function runConformance(cases = loadCases(), definitions: 'cli' | 'core' = 'cli'): Promise<ConformanceScore> {
  const core = definitions === 'cli' ? await cliDefaultSource() : await coreSource();
  const results = cases.map((c) => runCase(c, core));
  return {
    checks: results.length,
    verdictAgree: results.filter((r) => r.verdictAgree).length,
    exactErrorCount: results.filter((r) => r.exact).length,
    expectedErrors: results.reduce((s, r) => s + r.expectedLocations, 0),
    locationsMatched: results.reduce((s, r) => s + r.locMatched, 0),
    crashed: results.filter((r) => r.crashed).length,
    results,
  };
}
