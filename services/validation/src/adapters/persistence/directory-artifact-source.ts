import { readdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { InitialArtifactSource } from '../../domain/artifacts/artifact-repository.js';

/**
 * The files of `artifact.init-dir` (deployments mount their IG packages there). Only `.tgz` and
 * `.json` files directly in the directory, symbolic links followed (mounted config maps are links);
 * a missing directory offers nothing.
 */
export class DirectoryArtifactSource implements InitialArtifactSource {
  constructor(private readonly directory: string | undefined) {}

  async list(): Promise<{ fileName: string; read(): Promise<Buffer> }[]> {
    if (!this.directory) return [];
    const directory = this.directory;
    let names: string[];
    try {
      names = await readdir(directory);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw error;
    }
    const files: string[] = [];
    for (const name of names.filter((n) => /\.(tgz|json)$/i.test(n)).sort()) {
      const info = await stat(join(directory, name)).catch(() => undefined);
      if (info?.isFile()) files.push(name);
    }
    return files.map((fileName) => ({ fileName, read: () => readFile(join(directory, fileName)) }));
  }
}
