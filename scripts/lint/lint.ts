/**
 * `npm run lint`: ESLint (errors fail), the lint ratchet, and the architecture rules on resolved
 * paths (dependency-cruiser). One command, so CI and a developer run the same checks.
 *
 * The ratchet: the stricter rules of eslint.config.js (RATCHET_RULES: typescript-eslint's
 * strictTypeChecked, no `!` and no `as`, exhaustive switches, files of at most 600 lines) run as
 * warnings over product source. Their count per folder and rule may not rise above
 * lint-baseline.json; when it falls, `npm run lint -- --update-baseline` records the lower figure
 * (commit it with the change that earned it), so it cannot rise again. The update refuses a rise:
 * a new rule in the ratchet, or a rise on purpose, is a hand edit of the file, reviewed in its commit.
 *
 *   npm run lint                          # check
 *   npm run lint -- --update-baseline     # after lowering counts: write the new baseline
 */
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { ESLint } from 'eslint';
import { compareWithBaseline, countByFolder, folderOf, type Baseline } from './ratchet.js';

const root = path.resolve(import.meta.dirname, '../..');
const baselineFile = path.join(root, 'lint-baseline.json');

async function main(argv: readonly string[]): Promise<number> {
  const update = argv.includes('--update-baseline');
  const eslint = new ESLint({ cwd: root });
  const results = await eslint.lintFiles(['.']);
  const errors = results.filter((r) => r.errorCount > 0 || r.fatalErrorCount > 0);
  if (errors.length > 0) {
    const formatter = await eslint.loadFormatter('stylish');
    process.stdout.write(await formatter.format(errors.map((r) => ({ ...r, messages: r.messages.filter((m) => m.severity === 2) }))));
    return 1;
  }

  const counts = countByFolder(results.map((r) => ({ file: path.relative(root, r.filePath), rules: r.messages.filter((m) => m.severity === 1).map((m) => m.ruleId ?? '(none)') })));
  const baseline = JSON.parse(readFileSync(baselineFile, 'utf8')) as Baseline;
  const { rose, fell } = compareWithBaseline(counts, baseline);
  // a rise fails, with or without --update-baseline: the baseline records falls only
  if (rose.length > 0) {
    console.error('lint ratchet: counts rose above lint-baseline.json (fix the new findings; the baseline may only fall):');
    for (const r of rose) console.error(`  ${r.folder}  ${r.rule}: ${String(r.baseline)} → ${String(r.now)}`);
    printFindings(results, rose);
    return 1;
  }
  if (update) {
    writeFileSync(baselineFile, JSON.stringify(counts, null, 2) + '\n');
    console.log(`lint ratchet: baseline written (${String(total(counts))} findings in ${String(Object.keys(counts).length)} folders; ${String(fell.length)} count(s) lowered)`);
  } else {
    console.log(`lint ratchet: ${total(counts)} findings, none above the baseline (${total(baseline)})`);
    if (fell.length > 0) console.log(`lint ratchet: ${fell.length} count(s) fell below the baseline; record them with \`npm run lint -- --update-baseline\``);
  }

  const cruise = spawnSync(process.execPath, [path.join(root, 'node_modules/dependency-cruiser/bin/dependency-cruiser.mjs'), 'services', 'adapters', 'contracts', '--config', '.dependency-cruiser.cjs', '--ignore-known', '--output-type', 'err'], { cwd: root, stdio: 'inherit' });
  return cruise.status ?? 1;
}

function total(counts: Baseline): number {
  return Object.values(counts).reduce((sum, byRule) => sum + Object.values(byRule).reduce((a, b) => a + b, 0), 0);
}

/** The findings behind the counts that rose, so the author sees where they are. */
function printFindings(results: ESLint.LintResult[], rose: { folder: string; rule: string }[]): void {
  const wanted = new Set(rose.map((r) => `${r.folder}|${r.rule}`));
  for (const result of results) {
    const file = path.relative(root, result.filePath);
    for (const m of result.messages) {
      if (m.severity === 1 && wanted.has(`${folderOf(file)}|${m.ruleId ?? '(none)'}`)) console.error(`  ${file}:${m.line}:${m.column} ${m.ruleId ?? ''} ${m.message}`);
    }
  }
}

process.exitCode = await main(process.argv.slice(2));
