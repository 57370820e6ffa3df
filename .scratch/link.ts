import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { embeddedPackagesDirectory } from '#validation/adapters/artifacts/embedded-packages.js';
import { main as validateCli } from '#validation/cli/validate.js';
import { Categorizer } from '#validation/domain/categorization/categorizer.js';
import { parseCategorySnapshots } from '#validation/domain/categorization/category.js';
import { parseMatcher } from '#validation/domain/categorization/matcher.js';
import { issuesFromOperationOutcome, type OperationOutcomeLike } from '#validation/domain/results/validation-issue.js';
const packages = embeddedPackagesDirectory()!;
const samples = '/work/shared/samples/nhsn-ach';
const igs = readdirSync(packages).filter((f) => f.endsWith('.tgz')).flatMap((f) => ['--ig', join(packages, f)]);
const files = readdirSync(samples).filter((f) => /^patient-.*\.json$/.test(f) && f !== 'patient-list.json');
let output = '';
await validateCli([...igs, '--message-wording', 'hapi', '-display-issues-are-warnings', '--format', 'json', ...files.map((f) => join(samples, f))], (t) => { output += t; }, () => undefined);
const bundle = JSON.parse(output) as { entry: { resource: OperationOutcomeLike }[] };
const issues = bundle.entry.flatMap((e) => issuesFromOperationOutcome(e.resource));
const link = new Categorizer(parseCategorySnapshots(JSON.parse(readFileSync('/work/shared/reference/link-categories.json', 'utf8'))).map(({ snapshot }) => ({ category: snapshot, matcher: parseMatcher(snapshot.matcher) })));
const cat = link.categorize(issues);
const groups = new Map<string, number>();
for (const i of cat) {
  if (i.severity !== 'error' && i.severity !== 'fatal') continue;
  const un = i.categories.length === 1 && i.categories[0]!.id === 'uncategorized';
  const key = `${un ? 'UNCAT' : 'cat  '} ${i.messageId} | ${i.message.replace(/\d+/g,'N').slice(0, 230)} | ${un ? i.expression : i.categories.map(c=>c.id).join(',')}`;
  groups.set(key, (groups.get(key) ?? 0) + 1);
}
for (const [k, n] of [...groups].sort()) console.log(String(n).padStart(4), k);
