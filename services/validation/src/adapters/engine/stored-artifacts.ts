/**
 * Reads the stored artifacts as engine inputs: PACKAGE bytes written to a private temporary folder
 * (the definition loader and its start-up cache work on files; the cache key is the bytes' hash, so
 * an unchanged set of packages is a cache hit whatever the folder), RESOURCE content parsed as JSON.
 */
import { randomBytes } from 'node:crypto';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { ArtifactRepository } from '../../domain/ports/artifact-repository.js';
import type { CanonicalResource } from '../../domain/ports/conformance-resources.js';

export interface StoredArtifactInputs {
  /** `.tgz` files, one per PACKAGE artifact. */
  readonly packageFiles: string[];
  readonly resources: CanonicalResource[];
  /** RESOURCE artifacts that are not readable JSON resources (skipped). */
  readonly unreadable: string[];
  /** Removes the temporary files. */
  dispose(): Promise<void>;
}

export async function readStoredArtifacts(repository: ArtifactRepository): Promise<StoredArtifactInputs> {
  const dir = path.join(os.tmpdir(), `validation-artifacts-${process.pid}-${randomBytes(4).toString('hex')}`);
  await mkdir(dir, { recursive: true });
  const packageFiles: string[] = [];
  const resources: CanonicalResource[] = [];
  const unreadable: string[] = [];
  try {
    let n = 0;
    await repository.forEachContent('PACKAGE', async (artifact) => {
      const file = path.join(dir, `${String(n++).padStart(4, '0')}.tgz`);
      await writeFile(file, artifact.content);
      packageFiles.push(file);
    });
    await repository.forEachContent('RESOURCE', async (artifact) => {
      try {
        const parsed: unknown = JSON.parse(artifact.content.toString('utf8').replace(/^\uFEFF/, ''));
        if (typeof parsed === 'object' && parsed !== null && typeof (parsed as { resourceType?: unknown }).resourceType === 'string') {
          resources.push(parsed as CanonicalResource);
        } else {
          unreadable.push(artifact.name);
        }
      } catch {
        unreadable.push(artifact.name);
      }
    });
  } catch (error) {
    await rm(dir, { recursive: true, force: true });
    throw error;
  }
  return { packageFiles, resources, unreadable, dispose: () => rm(dir, { recursive: true, force: true }) };
}
