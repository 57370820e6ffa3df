import { readdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import {
  InitialArtifactSourceError, type InitialArtifactFile, type InitialArtifactSource,
} from '../../domain/ports/artifact-repository.js';

/**
 * The files of `artifact.init-dir` (deployments mount their IG packages there). Only `.tgz`, `.json` and
 * `.xml` (FHIR XML) files directly in the directory, symbolic links followed (mounted config maps are links).
 * No directory configured offers nothing; a configured directory that does not exist is an
 * InitialArtifactSourceError, which the initialization reports (a mistyped mount path is not silent).
 */
export class DirectoryArtifactSource implements InitialArtifactSource {
  readonly name = 'artifact.init-dir';

  constructor(private readonly directory: string | undefined) {}

  async list(): Promise<InitialArtifactFile[]> {
    if (!this.directory) return [];
    const directory = this.directory;
    let names: string[];
    try {
      names = await readdir(directory);
    } catch (error) {
      const code = error instanceof Error && 'code' in error ? error.code : undefined;
      if (code === 'ENOENT' || code === 'ENOTDIR') throw new InitialArtifactSourceError(`artifact.init-dir ${directory} is not a directory`);
      throw error;
    }
    const files: string[] = [];
    for (const name of names.filter((n) => /\.(tgz|json|xml)$/i.test(n)).sort()) {
      const info = await stat(join(directory, name)).catch(() => undefined);
      if (info?.isFile()) files.push(name);
    }
    return files.map((fileName) => ({ fileName, read: () => readFile(join(directory, fileName)) }));
  }
}
