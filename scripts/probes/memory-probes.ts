/**
 * Memory probes of issue 28 (hostile input that grew the service's heap): `npx tsx scripts/probes/memory-probes.ts [name ...]`
 *
 * Each probe runs in a child process of its own, so its figures are its own: wall time and the
 * child's peak RSS (process.resourceUsage().maxRSS) over a baseline child that loads the same
 * modules and does nothing. Probes:
 * - narrative-links: a ~360 KB narrative of nested, unclosed internal links (`<a href="#x">t` ...):
 *   every open link used to receive a copy of every later text;
 * - narrative-deep: a ~360 KB narrative nesting 20,000 `<b>` then 8,000 links: every link used to
 *   build its full element path;
 * - narrative-stray: 30,000 nested `<b>` then 30,000 stray end tags (`</i>`): each used to search the path;
 * - fhirpath-descendants: a contained Questionnaire whose enableWhenExpression nests
 *   `descendants().select(...)`, validated by the engine in this thread (stopped at the item budget);
 * - fhirpath-descendants-unbounded: the same expression evaluated without the budget (as before).
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

interface Probe {
  readonly description: string;
  run(): Promise<string>;
}

/** Two nested selects over the whole response: (nodes)^3 items. */
const NESTED_DESCENDANTS = 'descendants().select(%resource.descendants().select(%resource.descendants())).exists()';

const narrative = (inner: string) => `<div xmlns="http://www.w3.org/1999/xhtml">${inner}</div>`;

async function scan(div: string): Promise<string> {
  const { scanNarrative, unresolvedInternalLinks } = await import('#validation/domain/engine/checks/xhtml.js');
  const scanned = scanNarrative(div);
  const unresolved = unresolvedInternalLinks(div, []);
  const textChars = unresolved.reduce((sum, link) => sum + link.text.length + link.path.length, 0);
  return `${(div.length / 1024).toFixed(0)} KB, ${scanned.internalLinks.length} links, ${unresolved.length} unresolved, ${textChars} chars of link text+path`;
}

const PROBES: Record<string, Probe> = {
  baseline: { description: 'modules loaded, nothing done', run: async () => { await import('#validation/domain/engine/checks/xhtml.js'); return ''; } },
  'fhirpath-descendants': {
    description: 'QuestionnaireResponse (7 KB) whose contained Questionnaire has a nested descendants().select(...) enableWhenExpression, engine in this thread',
    run: async () => {
      const { Validator } = await import('#validation/domain/engine/validator.js');
      const { coreSource } = await import('../../services/validation/test/engine/support/core-definitions.js');
      const { responseWithEnableWhen } = await import('../../services/validation/test/engine/support/enable-when-response.js');
      const validator = new Validator(await coreSource());
      const resource = responseWithEnableWhen(NESTED_DESCENDANTS, 60);
      const started = performance.now();
      const outcome = await validator.validateAsync(resource);
      const stopped = outcome.issue.filter((i) => i.code === 'too-costly').length;
      return `${(JSON.stringify(resource).length / 1024).toFixed(1)} KB, validated in ${(performance.now() - started).toFixed(0)} ms (definitions loaded before), ${stopped} too-costly issue(s)`;
    },
  },
  'fhirpath-descendants-unbounded': {
    description: 'the same expression with no item budget (what it cost before), evaluated directly',
    run: async () => {
      const { InvariantEvaluator } = await import('#validation/domain/engine/checks/invariants.js');
      const { LocalTerminology } = await import('#validation/domain/terminology/local-terminology.js');
      const { coreSource } = await import('../../services/validation/test/engine/support/core-definitions.js');
      const { responseWithEnableWhen } = await import('../../services/validation/test/engine/support/enable-when-response.js');
      const evaluator = new InvariantEvaluator(new LocalTerminology(await coreSource()), { maxItems: Number.POSITIVE_INFINITY });
      const resource = responseWithEnableWhen(NESTED_DESCENDANTS, 60);
      const result = evaluator.select(NESTED_DESCENDANTS, 'QuestionnaireResponse', resource, { resource, rootResource: resource });
      return Array.isArray(result) ? `${result.length} result(s)` : result.error;
    },
  },
  'narrative-links': {
    description: '360 KB narrative, 24,000 nested unclosed links',
    run: () => scan(narrative('<a href="#x">t'.repeat(24_000 + 1).slice(0, 360 * 1024 - 60))),
  },
  'narrative-deep': {
    description: '360 KB narrative, 20,000 nested <b> then 8,000 links',
    run: () => scan(narrative('<b>'.repeat(20_000) + '<a href="#x">t</a>'.repeat(8_000) + '</b>'.repeat(20_000))),
  },
  'narrative-stray': {
    description: '30,000 nested <b> then 30,000 stray </i>',
    run: () => scan(narrative('<b>'.repeat(30_000) + '</i>'.repeat(30_000))),
  },
};

async function runOne(name: string): Promise<void> {
  await import('#validation/domain/engine/checks/xhtml.js'); // loading is not the probe's time
  const started = performance.now();
  const summary = await PROBES[name]!.run();
  const ms = performance.now() - started;
  process.stdout.write(JSON.stringify({ ms, maxRssMb: process.resourceUsage().maxRSS / 1024, summary }));
}

function child(name: string): { ms: number; maxRssMb: number; summary: string } | { failed: string } {
  const run = spawnSync(process.execPath, [...process.execArgv, fileURLToPath(import.meta.url), '--one', name], { encoding: 'utf8', timeout: 300_000 });
  if (run.status !== 0) return { failed: `${run.signal ?? run.status}: ${(run.stderr || '').split('\n').find((l) => /error/i.test(l)) ?? ''}` };
  return JSON.parse(run.stdout) as { ms: number; maxRssMb: number; summary: string };
}

if (process.argv[2] === '--one') {
  await runOne(process.argv[3]!);
} else {
  const names = process.argv.length > 2 ? process.argv.slice(2) : Object.keys(PROBES).filter((n) => n !== 'baseline');
  const base = child('baseline');
  const baseRss = 'failed' in base ? 0 : base.maxRssMb;
  console.log(`baseline: peak RSS ${baseRss.toFixed(0)} MB`);
  for (const name of names) {
    const result = child(name);
    if ('failed' in result) console.log(`${name} (${PROBES[name]!.description}): FAILED ${result.failed}`);
    else console.log(`${name} (${PROBES[name]!.description}): ${result.ms.toFixed(0)} ms, peak RSS +${(result.maxRssMb - baseRss).toFixed(0)} MB; ${result.summary}`);
  }
}
