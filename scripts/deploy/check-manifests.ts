/**
 * Renders a kustomization with the small renderer and runs every manifest check:
 *
 *     npx tsx scripts/deploy/check-manifests.ts deploy/overlays/production [--print]
 *
 * Exit 0 when the manifests are fine, 1 with one line per problem otherwise. `--print` writes the
 * rendered YAML to stdout (what `kubectl kustomize` would give for the supported feature set).
 */
import { pathToFileURL } from 'node:url';
import { stringify } from 'yaml';
import { renderKustomization } from './kustomize.js';
import { checkManifests } from './manifest-checks.js';
import { ANTICIPATED_SETTINGS, PLATFORM_JOBS, PLATFORM_SERVICES } from './platform-services.js';

async function main(args: string[]): Promise<number> {
  const dir = args.find((arg) => !arg.startsWith('--'));
  if (!dir) {
    console.error('usage: check-manifests <kustomization dir> [--print]');
    return 2;
  }
  const objects = renderKustomization(dir);
  if (args.includes('--print')) process.stdout.write(objects.map((object) => stringify(object, { lineWidth: 0 })).join('---\n'));
  const problems = await checkManifests(objects, PLATFORM_SERVICES, ANTICIPATED_SETTINGS, PLATFORM_JOBS);
  for (const problem of problems) console.error(problem);
  console.error(problems.length ? `${problems.length} problem(s) in ${dir}` : `${dir}: ${objects.length} objects, no problems`);
  return problems.length ? 1 : 0;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  process.exitCode = await main(process.argv.slice(2));
}
