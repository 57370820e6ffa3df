/**
 * Packages the CLI loads without being asked, as the HL7 validator does: the core extension
 * pack (`hl7.fhir.uv.extensions`), whose extensions the HL7 validator knows by default. The CLI
 * takes it from the packages embedded in the service (`services/validation/artifacts/packages/`,
 * see its manifest), so it works offline and validates with the same definitions as the service.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { embeddedPackagesDirectory, readEmbeddedManifest, sha256Hex } from '../adapters/artifacts/embedded-packages.js';

/** The package name of the core extension pack (the R4 build is `hl7.fhir.uv.extensions.r4`; the service embeds `hl7.fhir.uv.extensions`). */
export const EXTENSION_PACK_NAMES: readonly string[] = ['hl7.fhir.uv.extensions.r4', 'hl7.fhir.uv.extensions'];

export interface DefaultPackages {
  /** Package files to load. */
  files: string[];
  /** Why a default package is not loaded (no embedded packages, a damaged file). */
  warnings: string[];
}

/**
 * The embedded extension pack's file, when this installation has it and its bytes are the ones
 * the manifest lists (a damaged file is left out with a warning, as the service refuses it).
 */
export async function defaultPackageFiles(directory: string | undefined = embeddedPackagesDirectory()): Promise<DefaultPackages> {
  if (!directory) return { files: [], warnings: ['no embedded packages in this installation: the core extension pack is not loaded'] };
  try {
    const manifest = await readEmbeddedManifest(directory);
    const entry = manifest.packages.find((p) => EXTENSION_PACK_NAMES.includes(p.name));
    if (!entry) return { files: [], warnings: ['the embedded packages have no core extension pack (hl7.fhir.uv.extensions)'] };
    const file = path.join(directory, entry.file);
    const actual = sha256Hex(await readFile(file));
    if (actual !== entry.sha256) {
      return { files: [], warnings: [`${entry.file} has SHA-256 ${actual}, the manifest says ${entry.sha256}: the core extension pack is not loaded`] };
    }
    return { files: [file], warnings: [] };
  } catch (e) {
    return { files: [], warnings: [`the core extension pack is not loaded: ${e instanceof Error ? e.message : String(e)}`] };
  }
}
