/**
 * Where an extension definition says it may be used: its contexts (StructureDefinition.context,
 * each possibly limited to a range of FHIR versions), its context invariants, and the range of
 * FHIR versions the extension as a whole is for. Both ranges come from the
 * `version-specific-use` extension (sub-extensions `startFhirVersion` / `endFhirVersion`,
 * values as "4.0"), as the HL7 validator reads them.
 */
import { isArray } from '../json/json-value.js';

export const EXT_VERSION_SPECIFIC_USE = 'http://hl7.org/fhir/StructureDefinition/version-specific-use';

/** FHIR versions as major.minor ("4.0"); either end may be open. */
export interface FhirVersionRange {
  start: string | undefined;
  end: string | undefined;
}

export interface ExtensionContext {
  /** `element`, `fhirpath` or `extension`. */
  type: string;
  expression: string;
  /** The FHIR versions this context applies to (all when absent). */
  versions: FhirVersionRange | undefined;
}

export interface ExtensionUsage {
  contexts: ExtensionContext[];
  /** StructureDefinition.contextInvariant: FHIRPath expressions that must be true on the element the extension sits on. */
  contextInvariants: string[];
  /** The FHIR versions the extension may be used in at all (all when absent). */
  versions: FhirVersionRange | undefined;
}

type Json = Record<string, unknown>;

const isJson = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

function versionRange(holder: unknown): FhirVersionRange | undefined {
  if (!isJson(holder) || !Array.isArray(holder.extension)) return undefined;
  const use = holder.extension.find((e) => isJson(e) && e.url === EXT_VERSION_SPECIFIC_USE);
  const parts = isJson(use) ? use.extension : undefined;
  if (!isArray(parts)) return undefined;
  const part = (name: string): string | undefined => {
    const e = parts.find((x) => isJson(x) && x.url === name);
    if (!isJson(e)) return undefined;
    const v = e.valueCode ?? e.valueString ?? e.valueId;
    return typeof v === 'string' ? v : undefined;
  };
  const range = { start: part('startFhirVersion'), end: part('endFhirVersion') };
  return range.start === undefined && range.end === undefined ? undefined : range;
}

export function extensionUsage(sd: Json): ExtensionUsage {
  const contexts: ExtensionContext[] = [];
  if (Array.isArray(sd.context)) {
    for (const c of sd.context) {
      if (!isJson(c) || typeof c.type !== 'string' || typeof c.expression !== 'string') continue;
      contexts.push({ type: c.type, expression: c.expression, versions: versionRange(c) });
    }
  }
  const contextInvariants = Array.isArray(sd.contextInvariant) ? sd.contextInvariant.filter((x): x is string => typeof x === 'string') : [];
  return { contexts, contextInvariants, versions: versionRange(sd) };
}

/** major.minor of a FHIR version ("4.0.1" → "4.0"). */
export function majorMinor(version: string): string {
  return version.split('.').slice(0, 2).join('.');
}

/** Compares two major.minor versions numerically, part by part. */
export function compareFhirVersions(a: string, b: string): number {
  const pa = majorMinor(a).split('.').map(Number);
  const pb = majorMinor(b).split('.').map(Number);
  for (let i = 0; i < 2; i++) {
    const d = (pa[i] || 0) - (pb[i] || 0);
    if (d) return d;
  }
  return 0;
}

/** Whether `version` lies within the range (both ends inclusive, compared as major.minor). */
export function inVersionRange(version: string, range: FhirVersionRange | undefined): boolean {
  if (!range) return true;
  if (range.start !== undefined && compareFhirVersions(version, range.start) < 0) return false;
  if (range.end !== undefined && compareFhirVersions(version, range.end) > 0) return false;
  return true;
}
