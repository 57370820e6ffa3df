/**
 * Renders the generated Kubernetes manifests (today: the NACK Stream resources from the message catalog).
 *
 *     npx tsx scripts/render-manifests.ts           # write deploy/nats/streams.yaml
 *     npx tsx scripts/render-manifests.ts --check   # exit 1 when the committed file is stale
 */
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { catalog } from '../contracts/catalog.js';
import { renderNackStreamsYaml } from './deploy/nack-streams.js';

const repositoryRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const STREAMS_MANIFEST = path.join(repositoryRoot, 'deploy', 'nats', 'streams.yaml');

async function main(args: string[]): Promise<number> {
  const rendered = renderNackStreamsYaml(catalog);
  const relative = path.relative(process.cwd(), STREAMS_MANIFEST);
  if (args.includes('--check')) {
    const committed = await readFile(STREAMS_MANIFEST, 'utf8').catch(() => '');
    if (committed === rendered) {
      console.log(`${relative} is up to date`);
      return 0;
    }
    console.error(`${relative} differs from the catalog; run: npx tsx scripts/render-manifests.ts`);
    return 1;
  }
  await writeFile(STREAMS_MANIFEST, rendered);
  console.log(`wrote ${relative}`);
  return 0;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  process.exitCode = await main(process.argv.slice(2));
}
