/**
 * The content of one FHIR NPM package as the engine needs it: its manifest (package.json) and
 * its conformance resources. Built from archive entries (see package-archive.ts); no I/O here.
 *
 * Only canonical resources the validator can use are kept (StructureDefinition, ValueSet,
 * CodeSystem, ImplementationGuide, NamingSystem, and unless switched off SearchParameter,
 * Measure, Library, which link-cloud also loads). Everything else is only counted.
 */
import type { CanonicalResource } from '../../ports/conformance-resources.js';
import { readPackageArchive, type ArchiveEntry, type ReadPackageArchiveOptions } from './package-archive.js';
import { errorText } from '../error-text.js';
import { isCanonicalResource } from '../../ports/conformance-resources.js';
import { isObject } from '../json/json-value.js';
import type { Readable } from 'node:stream';

/** The resource types an index always keeps. */
export const CANONICAL_TYPES_KEPT: ReadonlySet<string> = new Set(['StructureDefinition', 'ValueSet', 'CodeSystem', 'ImplementationGuide', 'NamingSystem']);
/** Kept unless `includeOptionalTypes: false` (Library can carry large base64 CQL/ELM; the index parses it only when asked for). */
export const OPTIONAL_TYPES: ReadonlySet<string> = new Set(['SearchParameter', 'Measure', 'Library']);

export interface PackageManifest {
  name: string;
  version: string;
  /** From `fhirVersions` (or the legacy `fhir-version-list` / `fhirVersion`). */
  fhirVersions: string[];
  /** name → version (as in package.json). */
  dependencies: Record<string, string>;
  canonical?: string;
  title?: string;
  type?: string;
}

export interface PackageIndexFileEntry {
  filename: string;
  resourceType: string;
  id?: string;
  url?: string;
  version?: string;
  kind?: string;
  type?: string;
}

export interface FhirPackage {
  name: string;
  version: string;
  /** The package's primary FHIR version, e.g. `4.0.1`; `5.0.0` for hl7.fhir.uv.extensions 1.0.0. */
  fhirVersion: string;
  manifest: PackageManifest;
  /** The kept resources, each once, in archive order. */
  resources: CanonicalResource[];
  /** Every distinct JSON resource found (kept or not), by resourceType. */
  resourceCounts: Record<string, number>;
  /** `package/.index.json` files when present (informational; resources are read from the files themselves). */
  indexFile?: PackageIndexFileEntry[];
  /** Problems that did not stop loading (unparseable files, duplicates). */
  warnings: string[];
}

export interface FhirPackageOptions {
  /** Read `package/example/` too. Default false. */
  includeExamples?: boolean;
  /** Keep SearchParameter, Measure and Library resources. Default true (false: they are only counted). */
  includeOptionalTypes?: boolean;
  /**
   * Drop `text` (narrative XHTML) from kept resources: the validator never reads it and it is a
   * large share of the memory and of the start-up cache. Default true.
   */
  stripNarrative?: boolean;
  /**
   * Reads a member in FHIR XML (`*.xml`) into its JSON form, or throws when it cannot. Shaping XML
   * needs the R4 definitions, which the package model does not have: the loader passes a reader
   * built on the core definitions. Without one, XML members are skipped with a warning.
   */
  readXml?: (text: string) => unknown;
}

export class FhirPackageError extends Error {
  override readonly name = 'FhirPackageError';
}

/** Reads a package straight from its `.tgz` bytes or stream. */
export async function readFhirPackage(input: Buffer | Uint8Array | Readable, options: FhirPackageOptions & { archive?: ReadPackageArchiveOptions } = {}): Promise<FhirPackage> {
  const includeExamples = options.includeExamples ?? false;
  const entries = await readPackageArchive(input, {
    ...options.archive,
    keep: (path) => (includeExamples || !path.startsWith('package/example/')) && (options.archive?.keep?.(path) ?? true),
  });
  return buildFhirPackage(entries, options);
}

export function buildFhirPackage(entries: readonly ArchiveEntry[], options: FhirPackageOptions = {}): FhirPackage {
  const includeExamples = options.includeExamples ?? false;
  const stripNarrative = options.stripNarrative ?? true;
  const keepType = (t: string) => CANONICAL_TYPES_KEPT.has(t) || (options.includeOptionalTypes !== false && OPTIONAL_TYPES.has(t));

  const manifestEntry = entries.find((e) => e.path === 'package/package.json');
  if (!manifestEntry) throw new FhirPackageError('not a FHIR package: package/package.json is missing');
  const manifest = parseManifest(manifestEntry.data);

  const warnings: string[] = [];
  const resources: CanonicalResource[] = [];
  const resourceCounts: Record<string, number> = {};
  const seen = new Set<string>();
  const indexEntry = entries.find((e) => e.path === 'package/.index.json');
  const indexFile = indexEntry ? parseIndexFile(indexEntry.data, warnings) : undefined;
  // Files the index says hold a type we do not keep are counted without being parsed (the
  // 700 StructureMaps of uv.extensions, for instance).
  const skippedByIndex = new Map<string, string>();
  for (const f of indexFile ?? []) {
    if (typeof f?.filename === 'string' && typeof f.resourceType === 'string' && !keepType(f.resourceType)) skippedByIndex.set(`package/${f.filename}`, f.resourceType);
  }

  let xmlSkipped = 0;
  for (const entry of entries) {
    const { path } = entry;
    const lower = path.toLowerCase();
    const isXml = lower.endsWith('.xml');
    if (!(lower.endsWith('.json') || isXml) || path === 'package/package.json' || path.endsWith('/.index.json')) continue;
    if (!includeExamples && path.startsWith('package/example/')) continue;
    const skippedType = skippedByIndex.get(path);
    if (skippedType !== undefined) {
      resourceCounts[skippedType] = (resourceCounts[skippedType] ?? 0) + 1;
      continue;
    }
    const read = isXml ? options.readXml : parseJson;
    if (!read) {
      xmlSkipped++;
      continue;
    }
    let json: unknown;
    try {
      json = read(stripBom(entry.data.toString('utf8')));
    } catch (err) {
      warnings.push(`${path}: not ${isXml ? 'readable FHIR XML' : 'valid JSON'}, skipped (${errorText(err)})`);
      continue;
    }
    // Non-resource JSON (openapi documents, ig-r4 fragments, ...) is simply not ours.
    if (!isCanonicalResource(json)) continue;
    const type = json.resourceType;
    const key = `${type}|${json.url ?? `#${json.id ?? path}`}|${json.version ?? ''}`;
    if (seen.has(key)) continue; // e.g. package/ig-r4.json repeats the ImplementationGuide
    seen.add(key);
    resourceCounts[type] = (resourceCounts[type] ?? 0) + 1;
    if (!keepType(type)) continue;
    if (stripNarrative && 'text' in json) delete json.text;
    resources.push(json);
  }
  if (xmlSkipped > 0) warnings.push(`${String(xmlSkipped)} FHIR XML file(s) not read: no XML reader was given to the package loader`);

  return {
    name: manifest.name,
    version: manifest.version,
    fhirVersion: manifest.fhirVersions[0] ?? 'unknown',
    manifest,
    resources,
    resourceCounts,
    indexFile,
    warnings,
  };
}

function parseManifest(data: Buffer): PackageManifest {
  let parsed: unknown;
  try {
    parsed = JSON.parse(stripBom(data.toString('utf8')));
  } catch (err) {
    throw new FhirPackageError(`package/package.json is not valid JSON: ${errorText(err)}`);
  }
  const json = isObject(parsed) ? parsed : undefined;
  if (!json || typeof json.name !== 'string' || typeof json.version !== 'string') {
    throw new FhirPackageError('package/package.json must have a string name and version');
  }
  const fhirVersions: string[] = asStringArray(json.fhirVersions) ?? asStringArray(json['fhir-version-list']) ?? asStringArray(json.fhirVersion) ?? [];
  const dependencies: Record<string, string> = {};
  if (json.dependencies && typeof json.dependencies === 'object') {
    for (const [k, v] of Object.entries(json.dependencies)) if (typeof v === 'string') dependencies[k] = v;
  }
  return {
    name: json.name,
    version: json.version,
    fhirVersions,
    dependencies,
    canonical: typeof json.canonical === 'string' ? json.canonical : undefined,
    title: typeof json.title === 'string' ? json.title : undefined,
    type: typeof json.type === 'string' ? json.type : undefined,
  };
}

function parseIndexFile(data: Buffer, warnings: string[]): PackageIndexFileEntry[] | undefined {
  try {
    const json = JSON.parse(stripBom(data.toString('utf8')));
    return Array.isArray(json?.files) ? json.files : undefined;
  } catch {
    warnings.push('package/.index.json: not valid JSON, ignored');
    return undefined;
  }
}

function asStringArray(value: unknown): string[] | undefined {
  if (typeof value === 'string') return [value];
  if (Array.isArray(value) && value.every((v) => typeof v === 'string')) return value.length ? value : undefined;
  return undefined;
}


function parseJson(text: string): unknown {
  return JSON.parse(text);
}

function stripBom(text: string): string {
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}
