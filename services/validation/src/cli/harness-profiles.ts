/**
 * The profiles of a conformance check as the HL7 test runner applies them: it loads each profile
 * from its source file and validates against the StructureDefinition that file holds. The
 * manifest's profile URL can name a resource contained in that StructureDefinition (a value set it
 * binds to) rather than the StructureDefinition itself; such a URL stands for the StructureDefinition
 * that contains it. A URL that is a StructureDefinition's, or that nothing loaded contains, is kept.
 */
import { isArray, isObject } from '../domain/engine/json/json-value.js';

interface LoadedResource {
  resourceType?: unknown;
  url?: unknown;
  contained?: unknown;
}

export function harnessProfiles(profiles: readonly string[], loaded: readonly LoadedResource[]): string[] {
  const definitions = loaded.filter((r) => r.resourceType === 'StructureDefinition');
  return profiles.map((url) => {
    if (definitions.some((sd) => sd.url === url)) return url;
    const holders = definitions.filter((sd) => isArray(sd.contained) && sd.contained.some((c) => isObject(c) && c.url === url));
    const holder = holders.length === 1 ? holders[0] : undefined;
    return typeof holder?.url === 'string' ? holder.url : url;
  });
}
