/**
 * What the API tells about a package (details) and which terminology its profiles need
 * (terminology dependencies). Computed from the package's resources; the reading of the archive
 * itself is behind the PackageInspector port.
 */
import { InvalidInputError } from '#shared-kernel/domain/errors.js';
import type { TerminologyKnowledge } from '../ports/terminology-knowledge.js';
import { isArray, isObject } from '../engine/json/json-value.js';


export interface CanonicalRef {
  readonly url: string;
  readonly version?: string;
  readonly name?: string;
}

export interface ValueSetBinding {
  /** Value set canonical as written (may carry `|version`). */
  readonly valueSet: string;
  readonly strength?: string;
  /** Element path, e.g. `Encounter.class`. */
  readonly path: string;
  /** The profile holding the binding. */
  readonly profile: string;
}

export interface PackageSummary {
  readonly name: string;
  readonly version: string;
  readonly fhirVersion: string;
  /** package id → version, from package.json. */
  readonly dependencies: Readonly<Record<string, string>>;
  /** Every JSON resource found, by resourceType. */
  readonly resourceCounts: Readonly<Record<string, number>>;
  readonly profiles: readonly CanonicalRef[];
  readonly valueSets: readonly CanonicalRef[];
  readonly codeSystems: readonly CanonicalRef[];
  /** Value set bindings of the profiles (required, extensible, preferred, example). */
  readonly bindings: readonly ValueSetBinding[];
  /** value set url → code systems its compose includes, for the value sets of this package. */
  readonly valueSetSystems: Readonly<Record<string, readonly string[]>>;
  readonly warnings: readonly string[];
}

/** A package.tgz that is no readable FHIR package (400 naming the body): the shared vocabulary's InvalidInputError. */
export class PackageRejectedError extends InvalidInputError {
  override readonly name = 'PackageRejectedError';
  constructor(message: string) {
    super(message, [{ field: 'body', message }]);
  }
}

type Json = Record<string, unknown>;

const str = (value: unknown): string | undefined => (typeof value === 'string' && value !== '' ? value : undefined);

function canonicalOf(resource: Json): CanonicalRef | undefined {
  const url = str(resource.url);
  if (!url) return undefined;
  const version = str(resource.version);
  const name = str(resource.name);
  return { url, ...(version ? { version } : {}), ...(name ? { name } : {}) };
}

/** Bindings of a StructureDefinition (snapshot and differential, each path once). */
export function bindingsOf(structureDefinition: Json): ValueSetBinding[] {
  const profile = str(structureDefinition.url) ?? str(structureDefinition.id) ?? '(no url)';
  const seen = new Set<string>();
  const bindings: ValueSetBinding[] = [];
  for (const part of ['snapshot', 'differential']) {
    const holder = structureDefinition[part];
    const elements = isObject(holder) ? holder.element : undefined;
    if (!isArray(elements)) continue;
    for (const element of elements) {
      const binding = isObject(element) ? element.binding : undefined;
      if (!isObject(element) || !isObject(binding)) continue;
      const valueSet = str(binding.valueSet);
      if (!valueSet) continue;
      const path = str(element.id) ?? str(element.path) ?? '';
      const key = `${path}|${valueSet}`;
      if (seen.has(key)) continue;
      seen.add(key);
      const strength = str(binding.strength);
      bindings.push({ valueSet, path, profile, ...(strength ? { strength } : {}) });
    }
  }
  return bindings;
}

/** Code systems a ValueSet's compose includes or excludes. */
export function systemsOfValueSet(valueSet: Json): string[] {
  const compose = isObject(valueSet.compose) ? valueSet.compose : {};
  const systems = new Set<string>();
  for (const list of [compose.include, compose.exclude]) {
    if (!isArray(list)) continue;
    for (const include of list) {
      const system = isObject(include) ? str(include.system) : undefined;
      if (system) systems.add(system);
    }
  }
  return [...systems];
}

/** Builds a summary from a package's manifest fields and its (kept) resources. */
export function summarizePackage(input: {
  name: string; version: string; fhirVersion: string; dependencies: Record<string, string>;
  resourceCounts: Record<string, number>; resources: readonly Json[]; warnings?: readonly string[];
}): PackageSummary {
  const profiles: CanonicalRef[] = [];
  const valueSets: CanonicalRef[] = [];
  const codeSystems: CanonicalRef[] = [];
  const bindings: ValueSetBinding[] = [];
  const valueSetSystems: Record<string, string[]> = {};
  for (const resource of input.resources) {
    const ref = canonicalOf(resource);
    switch (resource.resourceType) {
      case 'StructureDefinition':
        if (ref) profiles.push(ref);
        bindings.push(...bindingsOf(resource));
        break;
      case 'ValueSet':
        if (ref) {
          valueSets.push(ref);
          valueSetSystems[ref.url] = systemsOfValueSet(resource);
        }
        break;
      case 'CodeSystem':
        if (ref) codeSystems.push(ref);
        break;
    }
  }
  return {
    name: input.name, version: input.version, fhirVersion: input.fhirVersion,
    dependencies: input.dependencies, resourceCounts: input.resourceCounts,
    profiles, valueSets, codeSystems, bindings, valueSetSystems, warnings: input.warnings ?? [],
  };
}

export type TerminologyAvailability = 'local' | 'remote' | 'missing';

export interface TerminologyDependency {
  readonly kind: 'ValueSet' | 'CodeSystem';
  /** Canonical without version. */
  readonly url: string;
  readonly availability: TerminologyAvailability;
  /** The artifacts (package ids or resource names) holding it, when local. */
  readonly providedBy: readonly string[];
  /** How many bindings (or value sets, for a code system) need it. */
  readonly usedBy: number;
  /** Strongest binding strength among its uses (ValueSet only). */
  readonly strongestStrength?: string;
}

const STRENGTH_ORDER = ['example', 'preferred', 'extensible', 'required'];

export function withoutVersion(canonical: string): string {
  const bar = canonical.indexOf('|');
  return bar === -1 ? canonical : canonical.slice(0, bar);
}

/**
 * Terminology dependencies of `needing` (the summaries whose profiles' bindings are examined),
 * checked against everything in `available` (every stored artifact) plus `knowledge`.
 * A bound value set's code systems are dependencies too, when its definition is at hand.
 */
export function terminologyDependencies(
  needing: readonly { readonly source: string; readonly summary: Pick<PackageSummary, 'bindings'> }[],
  available: readonly { readonly source: string; readonly summary: Pick<PackageSummary, 'valueSets' | 'codeSystems' | 'valueSetSystems'> }[],
  knowledge: TerminologyKnowledge,
): TerminologyDependency[] {
  const vsProviders = new Map<string, string[]>();
  const csProviders = new Map<string, string[]>();
  const vsSystems = new Map<string, readonly string[]>();
  for (const { source, summary } of available) {
    for (const vs of summary.valueSets) push(vsProviders, vs.url, source);
    for (const cs of summary.codeSystems) push(csProviders, cs.url, source);
    for (const [url, systems] of Object.entries(summary.valueSetSystems)) vsSystems.set(url, systems);
  }
  const valueSets = new Map<string, { usedBy: number; strength?: string }>();
  for (const { summary } of needing) {
    for (const binding of summary.bindings) {
      const url = withoutVersion(binding.valueSet);
      const entry = valueSets.get(url) ?? { usedBy: 0 };
      entry.usedBy++;
      if (binding.strength && STRENGTH_ORDER.indexOf(binding.strength) > STRENGTH_ORDER.indexOf(entry.strength ?? '')) entry.strength = binding.strength;
      valueSets.set(url, entry);
    }
  }
  const codeSystems = new Map<string, number>();
  for (const url of valueSets.keys()) {
    for (const system of vsSystems.get(url) ?? []) codeSystems.set(system, (codeSystems.get(system) ?? 0) + 1);
  }
  const availability = (kind: 'ValueSet' | 'CodeSystem', url: string, providers: readonly string[]): TerminologyAvailability => {
    if (providers.length > 0 || knowledge.isBuiltIn(kind, url)) return 'local';
    return knowledge.isAvailableRemotely?.(kind, url) ? 'remote' : 'missing';
  };
  const result: TerminologyDependency[] = [];
  for (const [url, { usedBy, strength }] of valueSets) {
    const providedBy = vsProviders.get(url) ?? [];
    result.push({ kind: 'ValueSet', url, availability: availability('ValueSet', url, providedBy), providedBy, usedBy, ...(strength ? { strongestStrength: strength } : {}) });
  }
  for (const [url, usedBy] of codeSystems) {
    const providedBy = csProviders.get(url) ?? [];
    result.push({ kind: 'CodeSystem', url, availability: availability('CodeSystem', url, providedBy), providedBy, usedBy });
  }
  return result.sort((a, b) => a.kind.localeCompare(b.kind) || a.url.localeCompare(b.url));
}

function push(map: Map<string, string[]>, key: string, value: string): void {
  const list = map.get(key);
  if (!list) map.set(key, [value]);
  else if (!list.includes(value)) list.push(value);
}
