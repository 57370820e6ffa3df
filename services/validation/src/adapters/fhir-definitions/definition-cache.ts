/**
 * Start-up cache of the definition index (R4 core + IG packages + loose resources).
 *
 * Parsing ~80 MB of JSON on every start (and in every worker) is the slow part of a cold start.
 * The merged index state is written to a file named by a hash of every input (package bytes,
 * core package version, loose resources, code version) and read back on the next start:
 *
 *   "FHIRDEF2" | uint32 header length | v8.serialize(header) | resource JSON blob
 *
 * The header (packages, per-resource metadata, offsets) is small and v8-deserialised; the blob
 * is used in place (no copy, no object graph: resources are parsed on first use). A stale or
 * unreadable cache file is just a miss.
 */
import { createHash, randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import v8 from 'node:v8';
import type { CanonicalResource } from '../../domain/ports/conformance-resources.js';
import { DefinitionIndex, type DefinitionIndexState, type DefinitionWarning } from '../../domain/engine/definitions/definition-index.js';
import type { FhirPackage } from '../../domain/engine/definitions/fhir-package.js';
import { PlanRegistry } from '../../domain/engine/plan/plan-registry.js';
import { parseResourceText } from '../../domain/engine/xml/resource-text.js';
import { coreDefinitionsFingerprint, loadCoreDefinitions, locateCoreDefinitions, type CoreDefinitionsLocation } from './core-definitions.js';
import { listPackageFiles, parsePackageFiles, type LoadPackageOptions, type PackageFile, type PackageLoadFailure } from './package-files.js';
import { packageDigests } from './package-digests.js';

/** Bump when the index state format or what loading keeps changes: old cache files become misses. */
export const DEFINITION_CACHE_CODE_VERSION = 7;

export interface LoadDefinitionsOptions {
  /** `*.tgz` files and/or folders of them. */
  packages?: readonly string[];
  /** Loose resources (RESOURCE artifacts), part of the cache key. */
  resources?: readonly CanonicalResource[];
  /** Cache folder; `false` disables the cache. Default `<project>/.cache/fhir-definitions`. */
  cacheDir?: string | false;
  packageOptions?: LoadPackageOptions;
  core?: CoreDefinitionsLocation;
}

export interface LoadedDefinitions {
  index: DefinitionIndex;
  cacheHit: boolean;
  cacheKey: string;
  cacheFile?: string;
  /** Package files that could not be read (the others are loaded). */
  failures: PackageLoadFailure[];
  warnings: readonly DefinitionWarning[];
  timings: { totalMs: number; readInputsMs: number; buildMs: number; cacheReadMs?: number; cacheWriteMs?: number };
}

interface CacheHeader {
  key: string;
  codeVersion: number;
  state: Omit<DefinitionIndexState, 'blob'>;
  failures: { path: string; message: string; name: string }[];
}

const MAGIC = Buffer.from('FHIRDEF2', 'latin1');

export function defaultDefinitionCacheDir(): string {
  return path.join(findProjectRoot(), '.cache', 'fhir-definitions');
}

/** Core + packages + resources as a ready index, from the cache when the inputs are unchanged. */
export async function loadDefinitions(options: LoadDefinitionsOptions = {}): Promise<LoadedDefinitions> {
  const started = performance.now();
  const core = options.core ?? (await locateCoreDefinitions());
  const paths = (await Promise.all((options.packages ?? []).map((p) => listPackageFiles(p)))).flat();
  const cacheDir = options.cacheDir === false ? undefined : (options.cacheDir ?? defaultDefinitionCacheDir());
  // Digests only (unchanged files are not even read): a cache hit needs no package bytes.
  const digests = await packageDigests(paths, cacheDir);
  const key = cacheKey(core, digests.sha256, options);
  const readInputsMs = performance.now() - started;
  const cacheFile = cacheDir ? path.join(cacheDir, `definitions-${key.slice(0, 32)}.v8`) : undefined;

  if (cacheFile && existsSync(cacheFile)) {
    const t = performance.now();
    const cached = await readCache(cacheFile, key);
    if (cached) {
      const cacheReadMs = performance.now() - t;
      const b = performance.now();
      const index = DefinitionIndex.fromState({ ...cached.header.state, blob: cached.blob });
      const buildMs = performance.now() - b;
      const failures = cached.header.failures.map((f) => ({ path: f.path, error: Object.assign(new Error(f.message), { name: f.name }) }));
      return { index, cacheHit: true, cacheKey: key, cacheFile, failures, warnings: index.warnings, timings: { totalMs: performance.now() - started, readInputsMs, buildMs, cacheReadMs } };
    }
  }

  const b = performance.now();
  const corePackage = await loadCoreDefinitions({ location: core, stripNarrative: options.packageOptions?.stripNarrative });
  const files: PackageFile[] = await Promise.all(paths.map(async (p, i) => {
    const sha256 = digests.sha256[i];
    if (sha256 === undefined) throw new Error(`No digest for ${p}`); // not reached: one digest per path
    return { path: p, bytes: digests.read.get(p) ?? await readFile(p), sha256 };
  }));
  const { packages, failures } = await parsePackageFiles(files, { ...options.packageOptions, readXml: xmlReaderOn(corePackage, core.fhirVersion) });
  const index = DefinitionIndex.build({ packages: [corePackage, ...packages], resources: options.resources, fhirVersion: core.fhirVersion });
  const buildMs = performance.now() - b;
  let cacheWriteMs: number | undefined;
  if (cacheDir && cacheFile) {
    const w = performance.now();
    const { blob, ...state } = index.toState();
    await writeCache(cacheDir, cacheFile, {
      key,
      codeVersion: DEFINITION_CACHE_CODE_VERSION,
      state,
      failures: failures.map((f) => ({ path: f.path, message: f.error.message, name: f.error.name })),
    }, blob);
    cacheWriteMs = performance.now() - w;
  }
  return { index, cacheHit: false, cacheKey: key, cacheFile, failures, warnings: index.warnings, timings: { totalMs: performance.now() - started, readInputsMs, buildMs, cacheWriteMs } };
}

/**
 * Reads package members in FHIR XML, shaped by the R4 core definitions (XML needs the definitions
 * to tell arrays, primitives and choice types apart). The core's index is built on the first XML
 * member only: packages in JSON, which is nearly all of them, pay nothing.
 */
function xmlReaderOn(corePackage: FhirPackage, fhirVersion: string): (text: string) => unknown {
  let shapes: PlanRegistry | undefined;
  return (text) => {
    shapes ??= new PlanRegistry(DefinitionIndex.build({ packages: [corePackage], fhirVersion }));
    return parseResourceText(text, shapes);
  };
}

function cacheKey(core: CoreDefinitionsLocation, packageHashes: string[], options: LoadDefinitionsOptions): string {
  const hash = createHash('sha256');
  hash.update(`code:${DEFINITION_CACHE_CODE_VERSION}\n`);
  hash.update(`node-v8:${process.versions.v8}\n`); // v8.serialize output is only guaranteed readable by the same V8
  hash.update(`core:${coreDefinitionsFingerprint(core)}\n`);
  for (const h of packageHashes) hash.update(`pkg:${h}\n`);
  hash.update(`opts:${JSON.stringify(options.packageOptions ?? {}, (k, v) => (k === 'keep' ? undefined : v))}\n`);
  if (options.resources?.length) hash.update(`res:${JSON.stringify(options.resources)}\n`);
  return hash.digest('hex');
}

async function readCache(file: string, key: string): Promise<{ header: CacheHeader; blob: Uint8Array } | undefined> {
  try {
    const bytes = await readFile(file);
    if (bytes.length < MAGIC.length + 4 || !bytes.subarray(0, MAGIC.length).equals(MAGIC)) return undefined;
    const headerLength = bytes.readUInt32LE(MAGIC.length);
    const headerEnd = MAGIC.length + 4 + headerLength;
    if (headerEnd > bytes.length) return undefined;
    const header = v8.deserialize(bytes.subarray(MAGIC.length + 4, headerEnd)) as CacheHeader;
    if (header.key !== key || header.codeVersion !== DEFINITION_CACHE_CODE_VERSION || header.state?.formatVersion !== 2) return undefined;
    const blob = bytes.subarray(headerEnd);
    const offsets = header.state.offsets;
    if (offsets.length !== header.state.resources.length + 1 || offsets[offsets.length - 1] !== blob.length) return undefined;
    return { header, blob };
  } catch {
    return undefined; // truncated or from another V8: rebuild and overwrite
  }
}

async function writeCache(dir: string, file: string, header: CacheHeader, blob: Uint8Array): Promise<void> {
  // Write-then-rename, so a concurrent reader (another worker) never sees half a file.
  const tmp = `${file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  try {
    await mkdir(dir, { recursive: true });
    const headerBytes = v8.serialize(header);
    const length = Buffer.alloc(4);
    length.writeUInt32LE(headerBytes.length);
    await writeFile(tmp, Buffer.concat([MAGIC, length, headerBytes, blob]));
    await rename(tmp, file);
    await pruneOldCacheFiles(dir, file);
  } catch {
    await rm(tmp, { force: true }).catch(() => undefined);
    // A read-only or full disk only costs the next start its speed.
  }
}

/** Keeps the newest few cache files: every package change makes a new one. */
const CACHE_FILES_KEPT = 4;

async function pruneOldCacheFiles(dir: string, keep: string): Promise<void> {
  const names = (await readdir(dir)).filter((n) => /^definitions-[0-9a-f]+\.v8$/.test(n) && path.join(dir, n) !== keep);
  const dated = await Promise.all(names.map(async (n) => ({ n, t: (await stat(path.join(dir, n)).catch(() => undefined))?.mtimeMs ?? 0 })));
  dated.sort((a, b) => b.t - a.t);
  for (const { n } of dated.slice(CACHE_FILES_KEPT - 1)) await rm(path.join(dir, n), { force: true });
}

function findProjectRoot(): string {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  for (;;) {
    if (existsSync(path.join(dir, 'package.json')) && existsSync(path.join(dir, 'node_modules'))) return dir;
    const parent = path.dirname(dir);
    if (parent === dir) return process.cwd();
    dir = parent;
  }
}
