/**
 * `npm start`'s build step (`prestart`): builds (`npm run build`: tsc, then dist/package.json) only when
 * a build input changed since the last successful build, so a restart with nothing changed skips the
 * ~25-50 s of tsc. The inputs are every source, JSON and config file tsc reads for dist/ (the folders
 * of tsconfig.json's `include`, the tsconfig files, package.json and the lockfile, which pins tsc); their
 * SHA-256 over path and content is the stamp, kept in dist/.build-stamp. Content, not mtimes: a
 * checkout that touches files without changing them does not cost a build, and an edit with an old
 * mtime is not missed. No stamp or no dist/ means a build.
 *
 *   node scripts/build/build-if-changed.ts            # build when needed (Node 24 strips the types)
 *   node scripts/build/build-if-changed.ts --force    # build anyway
 *
 * Plain Node, not tsx: it runs before every start, and tsx's own start-up cost seconds on a busy
 * machine. So this file uses only type syntax Node can strip, and imports only node: modules.
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const STAMP_FILE = path.join('dist', '.build-stamp');
const INPUT_FOLDERS = ['adapters', 'contracts', 'services', 'scripts', 'test'];
const INPUT_FILES = ['package.json', 'package-lock.json', 'tsconfig.json', 'tsconfig.build.json'];
const INPUT_EXTENSION = /\.(?:[cm]?ts|[cm]?js|json)$/;
const SKIPPED_FOLDERS = new Set(['node_modules', 'dist', '.cache']);

/** The build inputs under `root`, as sorted relative paths. */
export function buildInputs(root: string): string[] {
  const found: string[] = INPUT_FILES.filter((file) => existsSync(path.join(root, file)));
  const walk = (relative: string): void => {
    for (const entry of readdirSync(path.join(root, relative), { withFileTypes: true })) {
      const child = path.join(relative, entry.name);
      if (entry.isDirectory()) {
        if (!SKIPPED_FOLDERS.has(entry.name)) walk(child);
      } else if (entry.isFile() && INPUT_EXTENSION.test(entry.name)) {
        found.push(child);
      }
    }
  };
  for (const folder of INPUT_FOLDERS) if (existsSync(path.join(root, folder))) walk(folder);
  return found.sort();
}

/** The stamp of the build inputs: one hash over each input's path and content. */
export function sourceStamp(root: string): string {
  const hash = createHash('sha256');
  for (const file of buildInputs(root)) {
    hash.update(`${file}\0`);
    hash.update(readFileSync(path.join(root, file)));
    hash.update('\0');
  }
  return hash.digest('hex');
}

export interface BuildDecision { readonly built: boolean; readonly reason: string }

/**
 * Runs `build` unless dist/ holds the stamp of the current inputs; writes the stamp after a build
 * that succeeded (the stamp of the inputs as they were when it started, so an edit made during the
 * build is built next time). Throws when the build fails.
 */
export function buildIfChanged(root: string, build: () => boolean, force = false): BuildDecision {
  const stamp = sourceStamp(root);
  const stampFile = path.join(root, STAMP_FILE);
  const previous = existsSync(stampFile) ? readFileSync(stampFile, 'utf8').trim() : undefined;
  if (!force && previous === stamp && existsSync(path.join(root, 'dist', 'package.json'))) {
    return { built: false, reason: 'sources unchanged since the last build' };
  }
  if (!build()) throw new Error('the build failed');
  writeFileSync(stampFile, `${stamp}\n`);
  return { built: true, reason: force ? 'forced' : previous === undefined ? 'no earlier build' : 'sources changed' };
}

if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) {
  const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
  const started = Date.now();
  try {
    const decision = buildIfChanged(root, () => spawnSync('npm', ['run', '--silent', 'build'], { cwd: root, stdio: 'inherit' }).status === 0, process.argv.includes('--force'));
    process.stderr.write(`[build] ${decision.built ? `built (${decision.reason})` : `skipped: ${decision.reason}`} in ${((Date.now() - started) / 1000).toFixed(1)} s\n`);
  } catch (error) {
    process.stderr.write(`[build] ${(error as Error).message}\n`);
    process.exit(1);
  }
}
