/**
 * Which initial artifact sources `$initialize` and the start-up initialization load, from
 * `artifact.init-mode` and `artifact.init-dir`:
 *
 * - `add` (default): the embedded packages, then the files of `artifact.init-dir` when set. A
 *   package of the directory with the name of an embedded one replaces it (it is stored later
 *   under the same artifact name), so a deployment can pin another version.
 * - `replace`: only `artifact.init-dir` (a deployment that manages its own package set); the
 *   directory is then required.
 */
import { ConfigError, envVarName } from '#adapters/config/index.js';
import type { InitialArtifactSource } from '../../domain/ports/artifact-repository.js';
import { DirectoryArtifactSource } from '../persistence/directory-artifact-source.js';
import { EmbeddedPackageSource } from './embedded-packages.js';

export const ARTIFACT_INIT_MODES = ['add', 'replace'] as const;
export type ArtifactInitMode = (typeof ARTIFACT_INIT_MODES)[number];

export interface InitialSourceSettings {
  readonly artifactInitMode: ArtifactInitMode;
  readonly artifactInitDir?: string;
}

/** Throws a ConfigError (exit code 78 at start-up) for `replace` without a directory. */
export function checkInitialSourceSettings(settings: InitialSourceSettings): void {
  if (settings.artifactInitMode === 'replace' && !settings.artifactInitDir) {
    throw new ConfigError([{
      property: 'artifact.init-mode', envVar: envVarName('artifact.init-mode'),
      message: `is replace, which loads only artifact.init-dir (${envVarName('artifact.init-dir')}), but no directory is set`,
    }]);
  }
}

export function initialArtifactSources(settings: InitialSourceSettings, embedded: InitialArtifactSource = EmbeddedPackageSource.ofInstallation()): InitialArtifactSource[] {
  checkInitialSourceSettings(settings);
  const directory = settings.artifactInitDir ? [new DirectoryArtifactSource(settings.artifactInitDir)] : [];
  return settings.artifactInitMode === 'replace' ? directory : [embedded, ...directory];
}
