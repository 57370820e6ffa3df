/**
 * The IG packages embedded in the service (`services/validation/artifacts/packages/`): US Core,
 * QI-Core, DEQM, the NHSN measures and what they build on, as published. `$initialize` and the
 * start-up initialization load them, so a fresh installation validates NHSN submissions against
 * their profiles without anyone uploading packages first.
 *
 * `manifest.json` in that folder lists each file with the package name, version, FHIR version,
 * licence and SHA-256 it must have. A file is offered only when its bytes have that hash: a
 * truncated or swapped file is reported by the initialization instead of being stored.
 * Regenerate the manifest after changing the folder: `npx tsx scripts/artifacts/embedded-manifest.ts`.
 *
 * The folder is found by walking up from this module to the directory holding
 * `services/validation/artifacts/packages/manifest.json`: the repository when running from source or
 * from `dist/`, `/app` in the container image (the Dockerfile copies the folder there).
 */
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  InitialArtifactSourceError, type InitialArtifactFile, type InitialArtifactSource,
} from '../../domain/ports/artifact-repository.js';
import { readPackageArchive } from '../../domain/engine/definitions/package-archive.js';
import { isArray, isObject } from '../../domain/engine/json/json-value.js';

/** Where the folder sits below the project (or image) root. */
export const EMBEDDED_PACKAGES_PATH = path.join('services', 'validation', 'artifacts', 'packages');
export const EMBEDDED_MANIFEST_FILE = 'manifest.json';

export interface EmbeddedPackageEntry {
  /** File name in the folder. */
  readonly file: string;
  /** `name` of the package's package.json (not always the file name: hl7.terminology.r4.tgz holds hl7.terminology). */
  readonly name: string;
  readonly version: string;
  /** The package's first `fhirVersions` entry (hl7.fhir.uv.extensions 1.0.0 is an R5 package). */
  readonly fhirVersion: string;
  /** SPDX licence id from the package's package.json. */
  readonly license: string;
  readonly canonical?: string;
  /** Lower-case hex SHA-256 of the file. */
  readonly sha256: string;
  readonly bytes: number;
}

export interface EmbeddedPackageManifest {
  readonly description: string;
  readonly packages: readonly EmbeddedPackageEntry[];
}

/** The embedded packages folder, or undefined when this installation has none. */
export function embeddedPackagesDirectory(from: string = path.dirname(fileURLToPath(import.meta.url))): string | undefined {
  for (let dir = from; ; dir = path.dirname(dir)) {
    const candidate = path.join(dir, EMBEDDED_PACKAGES_PATH);
    if (existsSync(path.join(candidate, EMBEDDED_MANIFEST_FILE))) return candidate;
    if (path.dirname(dir) === dir) return undefined;
  }
}

export function sha256Hex(bytes: Buffer): string {
  return createHash('sha256').update(bytes).digest('hex');
}

export async function readEmbeddedManifest(directory: string): Promise<EmbeddedPackageManifest> {
  const file = path.join(directory, EMBEDDED_MANIFEST_FILE);
  let parsed: unknown;
  try {
    parsed = JSON.parse(await readFile(file, 'utf8'));
  } catch (error) {
    throw new InitialArtifactSourceError(`The embedded package manifest ${file} cannot be read: ${error instanceof Error ? error.message : String(error)}`);
  }
  const packages = isObject(parsed) ? parsed.packages : undefined;
  if (!isObject(parsed) || !isArray(packages) || !packages.every(isEntry)) {
    throw new InitialArtifactSourceError(`The embedded package manifest ${file} does not list packages as {file, name, version, fhirVersion, license, sha256, bytes}`);
  }
  return { description: typeof parsed.description === 'string' ? parsed.description : '', packages };
}

function isEntry(value: unknown): value is EmbeddedPackageEntry {
  if (!isObject(value)) return false;
  const entry = value;
  return ['file', 'name', 'version', 'fhirVersion', 'license', 'sha256'].every((key) => typeof entry[key] === 'string' && entry[key] !== '')
    && typeof entry.bytes === 'number' && typeof entry.file === 'string' && path.basename(entry.file) === entry.file;
}

/** What a package says about itself in `package/package.json` (read with the engine's defensive archive reader). */
export async function describePackage(bytes: Buffer): Promise<Omit<EmbeddedPackageEntry, 'file' | 'sha256' | 'bytes'>> {
  const entries = await readPackageArchive(bytes, { keep: (entryPath) => entryPath === 'package/package.json' });
  const manifest = entries.find((entry) => entry.path === 'package/package.json');
  if (!manifest) throw new Error('The archive has no package/package.json');
  const json: unknown = JSON.parse(manifest.data.toString('utf8'));
  if (!isObject(json)) throw new Error('The package/package.json of the archive is not a JSON object');
  const fhirVersions = isArray(json.fhirVersions) ? json.fhirVersions : isArray(json['fhir-version-list']) ? json['fhir-version-list'] : [];
  return {
    name: String(json.name ?? ''),
    version: String(json.version ?? ''),
    fhirVersion: firstText(fhirVersions),
    license: String(json.license ?? ''),
    ...(typeof json.canonical === 'string' ? { canonical: json.canonical } : {}),
  };
}

/** The embedded packages as an initial artifact source, each file checked against its manifest hash when read. */
export class EmbeddedPackageSource implements InitialArtifactSource {
  readonly name = 'embedded';

  /** `directory` undefined: this installation has no embedded packages (listing them fails, saying so). */
  constructor(private readonly directory: string | undefined) {}

  /** The packages shipped with this installation. */
  static ofInstallation(): EmbeddedPackageSource {
    return new EmbeddedPackageSource(embeddedPackagesDirectory());
  }

  async list(): Promise<InitialArtifactFile[]> {
    if (!this.directory) {
      throw new InitialArtifactSourceError(`No embedded packages: ${EMBEDDED_PACKAGES_PATH}/${EMBEDDED_MANIFEST_FILE} is not part of this installation`);
    }
    const directory = this.directory;
    const manifest = await readEmbeddedManifest(directory);
    return manifest.packages.map((entry) => ({
      fileName: entry.file,
      package: { name: entry.name, version: entry.version },
      read: async () => {
        const bytes = await readFile(path.join(directory, entry.file));
        const actual = sha256Hex(bytes);
        if (actual !== entry.sha256) {
          throw new InitialArtifactSourceError(`${entry.file} has SHA-256 ${actual}, the manifest says ${entry.sha256}: the file is damaged or was replaced`);
        }
        return bytes;
      },
    }));
  }
}

/** The first FHIR version a package.json lists (they are texts such as `4.0.1`), or ''. */
function firstText(values: readonly unknown[]): string {
  const [first] = values;
  return typeof first === 'string' ? first : '';
}
