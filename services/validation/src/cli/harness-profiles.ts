/**
 * The profiles of a conformance check as the HL7 test runner applies them: it loads each profile
 * from its source file and validates against the StructureDefinition that file holds. The
 * manifest's profile URL can name a resource contained in that StructureDefinition (a value set it
 * binds to) rather than the StructureDefinition itself; such a URL stands for the StructureDefinition
 * that contains it. A URL that is a StructureDefinition's, or that nothing loaded contains, is kept.
 */
interface LoadedResource {
  resourceType?: unknown;
  url?: unknown;
  contained?: unknown;
}

export function harnessProfiles(profiles: readonly string[], loaded: readonly LoadedResource[]): string[] {
  const definitions = loaded.filter((r) => r.resourceType === 'StructureDefinition');
  return profiles.map((url) => {
    if (definitions.some((sd) => sd.url === url)) return url;
    const holders = definitions.filter((sd) => Array.isArray(sd.contained)
      && sd.contained.some((c: unknown) => typeof c === 'object' && c !== null && (c as LoadedResource).url === url));
    return holders.length === 1 && typeof holders[0]!.url === 'string' ? holders[0]!.url : url;
  });
}
