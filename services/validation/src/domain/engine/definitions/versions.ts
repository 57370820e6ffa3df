/** Version comparison for packages and canonical resources (semver-ish), and FHIR version families. */

/** `4.0.1` → `4.0`; R4 packages say 4.0.0 or 4.0.1, both are R4. */
export function fhirFamily(version: string): string {
  return version.split('.').slice(0, 2).join('.');
}

/**
 * Semver-ish: numeric parts numerically, others as text; a pre-release (`-cibuild`, `-ballot`)
 * ranks below the release it precedes; a missing version ranks lowest. Returns <0 when a < b.
 */
export function compareVersions(a: string | undefined, b: string | undefined): number {
  if (a === b) return 0;
  if (a === undefined) return -1;
  if (b === undefined) return 1;
  const [aMain, aPre] = splitPre(a);
  const [bMain, bPre] = splitPre(b);
  const byMain = compareParts(aMain, bMain);
  if (byMain) return byMain;
  if (aPre === undefined && bPre !== undefined) return 1;
  if (aPre !== undefined && bPre === undefined) return -1;
  const byPre = compareParts(aPre ?? '', bPre ?? '');
  if (byPre) return byPre;
  return a < b ? -1 : a > b ? 1 : 0;
}

function splitPre(v: string): [string, string | undefined] {
  const i = v.indexOf('-');
  return i === -1 ? [v, undefined] : [v.slice(0, i), v.slice(i + 1)];
}

function compareParts(a: string, b: string): number {
  // linear (these three): one character class; anchored digits
  const pa = a.split(/[.+]/);
  const pb = b.split(/[.+]/);
  for (let i = 0; i < Math.max(pa.length, pb.length); i++) {
    const x = pa[i];
    const y = pb[i];
    if (x === undefined) return -1;
    if (y === undefined) return 1;
    const nx = /^\d+$/.test(x) ? Number(x) : NaN;
    const ny = /^\d+$/.test(y) ? Number(y) : NaN;
    if (!Number.isNaN(nx) && !Number.isNaN(ny)) {
      if (nx !== ny) return nx - ny;
    } else if (x !== y) {
      if (!Number.isNaN(nx)) return 1; // numeric beats text (4.0.1 > 4.0.x)
      if (!Number.isNaN(ny)) return -1;
      return x < y ? -1 : 1;
    }
  }
  return 0;
}

/** The FHIR versions whose definitions a version-specific url (`http://hl7.org/fhir/4.0/StructureDefinition/Patient`) can name. */
const VERSION_URL_FAMILIES = new Set(['1.0', '1.4', '3.0', '4.0', '5.0', '6.0']);

/**
 * A version-specific url as HL7's VersionUtilities.parseVersionUrl reads one: the four characters
 * after the 20th (`http://hl7.org/fhir/` is 20 long) are a FHIR version family and a slash; the
 * url without them is the one the version defines. Like HL7's, the check looks at those positions
 * only, not at the host.
 */
export function parseVersionUrl(url: string): { family: string; url: string } | undefined {
  if (url.length < 24 || url[23] !== '/') return undefined;
  const family = url.slice(20, 23);
  return VERSION_URL_FAMILIES.has(family) ? { family, url: `http://hl7.org/fhir/${url.slice(24)}` } : undefined;
}
