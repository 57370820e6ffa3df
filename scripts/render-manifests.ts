/**
 * Renders the generated Kubernetes manifests from the message catalog: the NACK Stream resources
 * (deploy/nats/streams.yaml) and the NATS users with their subject permissions
 * (deploy/nats-accounts/accounts.yaml).
 *
 *     npx tsx scripts/render-manifests.ts           # write both
 *     npx tsx scripts/render-manifests.ts --check   # exit 1 when a committed file is stale
 */
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { catalog } from '#contracts/catalog.js';
import { renderNackStreamsYaml } from './deploy/nack-streams.js';
import { renderNatsAccountsYaml } from './deploy/nats-accounts.js';

const repositoryRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const STREAMS_MANIFEST = path.join(repositoryRoot, 'deploy', 'nats', 'streams.yaml');
export const NATS_ACCOUNTS_MANIFEST = path.join(repositoryRoot, 'deploy', 'nats-accounts', 'accounts.yaml');

const GENERATED: ReadonlyArray<{ file: string; render: () => string }> = [
  { file: STREAMS_MANIFEST, render: () => renderNackStreamsYaml(catalog) },
  { file: NATS_ACCOUNTS_MANIFEST, render: () => renderNatsAccountsYaml(catalog) },
];

async function main(args: string[]): Promise<number> {
  let stale = 0;
  for (const { file, render } of GENERATED) {
    const rendered = render();
    const relative = path.relative(process.cwd(), file);
    if (args.includes('--check')) {
      const committed = await readFile(file, 'utf8').catch(() => '');
      if (committed === rendered) {
        console.log(`${relative} is up to date`);
      } else {
        console.error(`${relative} differs from the catalog; run: npx tsx scripts/render-manifests.ts`);
        stale += 1;
      }
      continue;
    }
    await writeFile(file, rendered);
    console.log(`wrote ${relative}`);
  }
  return stale === 0 ? 0 : 1;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  process.exitCode = await main(process.argv.slice(2));
}
