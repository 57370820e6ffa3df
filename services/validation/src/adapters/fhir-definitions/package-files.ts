/**
 * Reads FHIR IG packages (`*.tgz`) from the file system: a folder of packages (e.g. the
 * `artifact.init-dir`) or single files. Parsing and every safety check are the domain's
 * (fhir-package.ts / package-archive.ts); this module only opens files.
 */
import { createHash } from 'node:crypto';
import { readdir, readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { buildFhirPackage, readFhirPackage, type FhirPackage, type FhirPackageOptions } from '../../domain/engine/definitions/fhir-package.js';
import { readPackageArchive, type ReadPackageArchiveOptions } from '../../domain/engine/definitions/package-archive.js';

export interface PackageFile {
  path: string;
  bytes: Buffer;
  /** sha256 of the bytes, hex: the start-up cache key is made of these. */
  sha256: string;
}

export interface PackageLoadFailure {
  path: string;
  error: Error;
}

export type LoadPackageOptions = FhirPackageOptions & { archive?: ReadPackageArchiveOptions };

/** `*.tgz` files of a folder (sorted by name, not recursive), or the path itself when it is a file. */
export async function listPackageFiles(dirOrFile: string): Promise<string[]> {
  const info = await stat(dirOrFile);
  if (info.isFile()) return [dirOrFile];
  const names = (await readdir(dirOrFile, { withFileTypes: true })).filter((d) => d.isFile() && d.name.endsWith('.tgz')).map((d) => d.name);
  return names.sort().map((n) => path.join(dirOrFile, n));
}

export async function readPackageFiles(paths: readonly string[]): Promise<PackageFile[]> {
  return Promise.all(
    paths.map(async (p) => {
      const bytes = await readFile(p);
      return { path: p, bytes, sha256: createHash('sha256').update(bytes).digest('hex') };
    }),
  );
}

/** One package file. Throws PackageArchiveError / FhirPackageError on a bad package. */
export async function loadPackageFile(file: string, options: LoadPackageOptions = {}): Promise<FhirPackage> {
  return readFhirPackage(await readFile(file), options);
}

/** Parses already-read package bytes; a bad package becomes a failure, the others still load. */
export async function parsePackageFiles(files: readonly PackageFile[], options: LoadPackageOptions = {}): Promise<{ packages: FhirPackage[]; failures: PackageLoadFailure[] }> {
  const packages: FhirPackage[] = [];
  const failures: PackageLoadFailure[] = [];
  const includeExamples = options.includeExamples ?? false;
  for (const file of files) {
    try {
      const entries = await readPackageArchive(file.bytes, {
        ...options.archive,
        keep: (p) => (includeExamples || !p.startsWith('package/example/')) && (options.archive?.keep?.(p) ?? true),
      });
      packages.push(buildFhirPackage(entries, options));
    } catch (err) {
      failures.push({ path: file.path, error: err instanceof Error ? err : new Error(String(err)) });
    }
  }
  return { packages, failures };
}

/** Every `*.tgz` of a folder (or one file); bad packages are reported in `failures`, not thrown. */
export async function loadPackagesFromDirectory(dirOrFile: string, options: LoadPackageOptions = {}): Promise<{ packages: FhirPackage[]; failures: PackageLoadFailure[] }> {
  return parsePackageFiles(await readPackageFiles(await listPackageFiles(dirOrFile)), options);
}
