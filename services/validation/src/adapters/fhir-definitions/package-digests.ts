/**
 * The SHA-256 of package files without reading them when they have not changed: the start-up
 * cache's key is made of the packages' digests, and reading and hashing nine packages (tens of MB)
 * was a good part of a cold start that then needed none of their bytes (a cache hit). The digests
 * are remembered in the cache folder with each file's size, modification time and inode; a file
 * whose three are unchanged keeps its digest, any other is read and hashed again.
 *
 * A file rewritten in place with the same size within the same millisecond would keep its old
 * digest: tools that replace packages (npm, the artifact store's temporary files) write new
 * files, which get a new inode and time. Only the latest MAX_ENTRIES files are remembered.
 */
import { createHash } from 'node:crypto';
import { mkdir, readFile, rename, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';

interface Remembered {
  readonly size: number;
  readonly mtimeMs: number;
  readonly ino: number;
  readonly sha256: string;
}

const FILE_NAME = 'package-digests.json';
const MAX_ENTRIES = 64;

/** The digest of each path (in order), and the bytes of those that had to be read. */
export async function packageDigests(paths: readonly string[], cacheDir: string | undefined): Promise<{ sha256: string[]; read: Map<string, Buffer> }> {
  const remembered = cacheDir ? await readRemembered(cacheDir) : new Map<string, Remembered>();
  const read = new Map<string, Buffer>();
  let changed = false;
  const sha256 = await Promise.all(paths.map(async (p) => {
    const info = await stat(p);
    const known = remembered.get(p);
    if (known && known.size === info.size && known.mtimeMs === info.mtimeMs && known.ino === info.ino) return known.sha256;
    const bytes = await readFile(p);
    read.set(p, bytes);
    const digest = createHash('sha256').update(bytes).digest('hex');
    remembered.delete(p);
    remembered.set(p, { size: info.size, mtimeMs: info.mtimeMs, ino: info.ino, sha256: digest });
    changed = true;
    return digest;
  }));
  if (cacheDir && changed) await writeRemembered(cacheDir, remembered).catch(() => undefined);
  return { sha256, read };
}

/** One `[path, {size, mtimeMs, ino, sha256}]` of the file; anything else is forgotten (the file is hashed again). */
function isRememberedEntry(entry: unknown): entry is [string, Remembered] {
  if (!Array.isArray(entry) || typeof entry[0] !== 'string') return false;
  const remembered: unknown = entry[1];
  return typeof remembered === 'object' && remembered !== null
    && 'sha256' in remembered && typeof remembered.sha256 === 'string' && 'size' in remembered && typeof remembered.size === 'number'
    && 'mtimeMs' in remembered && typeof remembered.mtimeMs === 'number' && 'ino' in remembered && typeof remembered.ino === 'number';
}

async function readRemembered(cacheDir: string): Promise<Map<string, Remembered>> {
  try {
    const entries: unknown = JSON.parse(await readFile(path.join(cacheDir, FILE_NAME), 'utf8'));
    return new Map(Array.isArray(entries) ? entries.filter(isRememberedEntry) : []);
  } catch {
    return new Map();
  }
}

/** Newest last; written to a temporary file and renamed, so a reader never sees half a file. */
async function writeRemembered(cacheDir: string, remembered: Map<string, Remembered>): Promise<void> {
  await mkdir(cacheDir, { recursive: true });
  const entries = [...remembered.entries()].slice(-MAX_ENTRIES);
  const file = path.join(cacheDir, FILE_NAME);
  const temporary = `${file}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`;
  await writeFile(temporary, JSON.stringify(entries));
  await rename(temporary, file);
}
