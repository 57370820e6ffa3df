/** Writes contracts/asyncapi.json from the catalog: `npx tsx contracts/generate-asyncapi.ts`. */
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { buildAsyncApi } from './asyncapi.js';

const target = fileURLToPath(new URL('./asyncapi.json', import.meta.url));
writeFileSync(target, JSON.stringify(buildAsyncApi(), null, 2) + '\n');
console.log(`wrote ${target}`);
