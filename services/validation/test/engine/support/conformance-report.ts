/**
 * Developer tool: `npx tsx services/validation/test/engine/support/conformance-report.ts [filter]`
 * prints every conformance check with expected and actual errors, then the scores.
 */
import { loadCases, runConformance } from './conformance.js';

const filter = process.argv[2] ? new RegExp(process.argv[2]) : undefined;
const cases = loadCases().filter((c) => !filter || filter.test(c.id) || filter.test(c.module ?? ''));
const t0 = performance.now();
const score = await runConformance(cases);
const byId = new Map(cases.map((c) => [c.id, c]));
for (const r of score.results) {
  const c = byId.get(r.id)!;
  const mark = r.exact ? 'OK ' : r.verdictAgree ? '~  ' : 'BAD';
  console.log(`${mark} ${r.id} [${r.module}] expected ${r.expected} got ${r.actual} loc ${r.locMatched}/${r.expectedLocations}`);
  if (!r.exact || r.locMatched < r.expectedLocations) {
    for (const e of c.expected.errors) console.log(`     exp ${e.expr} | ${e.msg.slice(0, 160)}`);
    for (const e of r.errors.slice(0, 12)) console.log(`     got ${e.expr} | ${e.msg.slice(0, 160)}`);
    if (r.crashed) console.log('     CRASH ' + r.crashed.split('\n').slice(0, 4).join('\n     '));
  }
}
const pct = (a: number, b: number) => `${a}/${b} = ${((100 * a) / b).toFixed(1)}%`;
console.log(`verdict ${pct(score.verdictAgree, score.checks)}; exact ${pct(score.exactErrorCount, score.checks)}; locations ${pct(score.locationsMatched, score.expectedErrors)}; crashed ${score.crashed}; ${(performance.now() - t0).toFixed(0)} ms`);
