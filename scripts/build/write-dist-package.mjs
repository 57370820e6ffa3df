// After `tsc` (npm run build): gives dist/ its own package.json, so compiled code resolves the
// project's import aliases (package.json `imports`, e.g. `#adapters/*`) to the compiled files in dist/
// rather than to the TypeScript sources the root package.json maps them to. Node picks the nearest
// package.json for `#` imports and for the module type; both are carried over.
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '../..');
const { name, version, type, imports } = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8'));
writeFileSync(path.join(root, 'dist', 'package.json'), JSON.stringify({ name, version, private: true, type, imports }, null, 2) + '\n');
