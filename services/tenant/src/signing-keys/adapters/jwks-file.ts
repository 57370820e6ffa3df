import { randomBytes } from 'node:crypto';
import { mkdir, rename, rm, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { JwksDocument } from '../domain/jwks.js';

/**
 * Writes the document so that a reader (the proxy, the JWKS route) sees either the old or the new
 * file, never a half-written one: write a temp file in the same directory, then rename over the target.
 */
export async function writeJwksFile(path: string, document: JwksDocument): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  const temp = `${path}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  try {
    await writeFile(temp, JSON.stringify(document, null, 2) + '\n', { mode: 0o644 });
    await rename(temp, path);
  } catch (error) {
    await rm(temp, { force: true });
    throw error;
  }
}
