/**
 * A StructureDefinition compiled once into the shape the validator walks: an element tree
 * (children indexed by their JSON property names, choice types expanded), slices attached to
 * the element they slice, constraints ready for FHIRPath compilation, values pre-extracted.
 * Plans are immutable after compilation and shared by every validation.
 */
import type { CanonicalResource } from '../../ports/conformance-resources.js';
import type { BindingStrength } from '../../ports/terminology.js';
import { isArray, isObject, str } from '../json/json-value.js';
import { EXT_NARRATIVE_LANGUAGE_CONTROL } from '../checks/narrative-languages.js';
import { extensionUsage, type ExtensionContext, type FhirVersionRange } from './extension-usage.js';

export interface TypeRef {
  code: string;
  profiles: readonly string[];
  targetProfiles: readonly string[];
  /** A Reference's aggregation modes (contained, referenced, bundled), when the definition restricts them. */
  aggregation?: readonly string[];
}

export interface ConstraintPlan {
  key: string;
  severity: 'error' | 'warning';
  human: string;
  expression: string | undefined;
  bestPractice: boolean;
  /** The StructureDefinition path the expression is evaluated against (fhirpath `base`). */
  base: string;
  source: string | undefined;
}

export interface SlicingPlan {
  discriminators: { type: string; path: string }[];
  rules: 'open' | 'closed' | 'openAtEnd';
  ordered: boolean;
}

export interface BindingPlan {
  /** Undefined for a strength that is not one of FHIR's four (the binding then reports nothing itself). */
  strength: BindingStrength | undefined;
  valueSet: string | undefined;
  /** Additional bindings (R5 ElementDefinition.binding.additional, as an R4 extension) that the codes must meet. */
  additional: { purpose: string; valueSet: string }[];
  /** elementdefinition-maxValueSet: codes must come from it whatever the strength. */
  maxValueSet: string | undefined;
}

// Linear: fixed words (on extension URLs of definitions).
const ADDITIONAL_BINDING = /(ElementDefinition\.binding\.additional|additional-binding)$/;

/**
 * Snapshot JSON as the compiler reads it (RawStructureDefinition, RawElement and their parts).
 * Definitions come from loaded packages and artifacts and are read as the ElementDefinition type
 * says; values checked at run time (a number here, a boolean there) are left `unknown`.
 */
interface RawExtension {
  url?: string;
  extension?: RawExtension[];
  valueCode?: string;
  valueCanonical?: string;
  valueUri?: string;
  valueUrl?: string;
  valueString?: string;
  valueBoolean?: unknown;
  valueInteger?: unknown;
}

interface RawType {
  code?: string;
  profile?: string[];
  targetProfile?: string[];
  aggregation?: string[];
  extension?: RawExtension[];
}

interface RawElement {
  id?: string;
  path?: string;
  min?: unknown;
  max?: unknown;
  base?: { max?: unknown };
  type?: RawType[];
  constraint?: ({ key?: string; severity?: string; human?: string; expression?: string; source?: string; extension?: RawExtension[] } | null)[];
  extension?: (RawExtension | null)[];
  contentReference?: string;
  maxLength?: unknown;
  binding?: { strength: string; valueSet?: string; extension?: (RawExtension | null)[] };
  slicing?: { discriminator?: { type: string; path: string }[]; rules?: SlicingPlan['rules']; ordered?: unknown };
  sliceName?: string;
  isModifier?: unknown;
  [key: string]: unknown;
}


/**
 * A snapshot's element list as the compiler reads it: objects whose id and path, when present, are
 * texts. Their other parts are read as the ElementDefinition type says (the definitions come from
 * loaded packages and artifacts; see RawElement).
 */
function isRawElementList(list: unknown): list is RawElement[] {
  return isArray(list) && list.every((e) => isObject(e) && (e.id === undefined || typeof e.id === 'string') && (e.path === undefined || typeof e.path === 'string'));
}

function additionalBindings(binding: RawElement['binding']): { purpose: string; valueSet: string }[] {
  const out: { purpose: string; valueSet: string }[] = [];
  for (const e of binding?.extension ?? []) {
    if (typeof e?.url !== 'string' || !ADDITIONAL_BINDING.test(e.url)) continue;
    const parts = e.extension ?? [];
    const purpose = parts.find((x) => x.url === 'purpose')?.valueCode;
    const valueSet = parts.find((x) => x.url === 'valueSet');
    const vs = valueSet?.valueCanonical ?? valueSet?.valueUri;
    if (typeof purpose === 'string' && typeof vs === 'string') out.push({ purpose, valueSet: vs });
  }
  return out;
}

export interface ElementPlan {
  id: string;
  path: string;
  /** The JSON property name (without [x]); '' for the root. */
  name: string;
  min: number;
  max: number;
  /** The max of the base definition: decides whether JSON must carry an array. */
  baseMax: number;
  isChoice: boolean;
  types: readonly TypeRef[];
  ownChildren: ChildIndex | undefined;
  contentReference: string | undefined;
  fixed: unknown;
  pattern: unknown;
  maxLength: number | undefined;
  minValue: { type: string; value: unknown } | undefined;
  maxValue: { type: string; value: unknown } | undefined;
  binding: BindingPlan | undefined;
  constraints: readonly ConstraintPlan[];
  slicing: SlicingPlan | undefined;
  slices: ElementPlan[];
  sliceName: string | undefined;
  isModifier: boolean;
  structure: StructurePlan;
  /** A profile's regex the value must match whole (the `regex` extension on the element or its type). */
  regex: string | undefined;
  /** Written as an XML attribute (ElementDefinition.representation `xmlAttr`: ids, Extension.url, primitive values). */
  xmlAttr: boolean;
  /** R5's mustHaveValue (as an R4 extension): a primitive here must have a value, extensions do not stand in for it. */
  mustHaveValue: boolean;
  /** R5's valueAlternatives: without a value, one of these extensions must be present. */
  valueAlternatives: readonly string[];
  /** The minLength extension: a shorter string value is an error. */
  minLength: number | undefined;
  /** A Narrative element's narrative-language-control (`_yes`, `_no` or languages), when the profile sets one. */
  languageControl: string | undefined;
}

/**
 * A property name an element takes in JSON, with the names the walk derives from it made once,
 * here: strings built per object (`'_' + key`) are new strings on every lookup, which V8 must
 * search its string table for; these are the same string each time.
 */
export interface JsonProperty {
  /** `valueQuantity`, `code`. */
  readonly jsonName: string;
  readonly element: ElementPlan;
  /** For a choice, the type the name selects (`Quantity`). */
  readonly type: string | undefined;
  /** The primitive's companion property (`_code`). */
  readonly companionKey: string;
  /** The element as FHIRPath names it (`value.ofType(Quantity)`, `code`). */
  readonly pathName: string;
}

function jsonProperty(jsonName: string, element: ElementPlan, type: string | undefined): JsonProperty {
  return { jsonName, element, type, companionKey: '_' + jsonName, pathName: type === undefined ? jsonName : `${element.name}.ofType(${type})` };
}

export interface ChildIndex {
  list: ElementPlan[];
  /** JSON name → element and, for choice types, the type the name selects. */
  byJsonName: Map<string, JsonProperty>;
  /** Choice elements, to recognise a choice name with a type that is not allowed. */
  choices: ElementPlan[];
}

export interface StructurePlan {
  url: string;
  version: string | undefined;
  /** `url|version`, as the HL7 validator names a profile in messages. */
  label: string;
  name: string;
  type: string;
  kind: string;
  abstract: boolean;
  derivation: string | undefined;
  baseDefinition: string | undefined;
  /** The snapshot's first element; undefined for a definition without a snapshot. */
  root: ElementPlan | undefined;
  byId: Map<string, ElementPlan>;
  /** For extension definitions: where the extension may be used (contexts, context invariants, FHIR versions). */
  contexts: ExtensionContext[];
  contextInvariants: string[];
  fhirVersions: FhirVersionRange | undefined;
  hasSnapshot: boolean;
}

const FHIRPATH_SYSTEM = 'http://hl7.org/fhirpath/System.';
const EXT_FHIR_TYPE = 'http://hl7.org/fhir/StructureDefinition/structuredefinition-fhir-type';
const EXT_REGEX = 'http://hl7.org/fhir/StructureDefinition/regex';
const EXT_MIN_LENGTH = 'http://hl7.org/fhir/StructureDefinition/minLength';
const EXT_MUST_HAVE_VALUE = 'http://hl7.org/fhir/5.0/StructureDefinition/extension-ElementDefinition.mustHaveValue';
const EXT_VALUE_ALTERNATIVES = 'http://hl7.org/fhir/5.0/StructureDefinition/extension-ElementDefinition.valueAlternatives';
const EXT_BEST_PRACTICE = 'http://hl7.org/fhir/StructureDefinition/elementdefinition-bestpractice';

const SYSTEM_TYPES: Record<string, string> = {
  String: 'string', Boolean: 'boolean', Integer: 'integer', Decimal: 'decimal', Date: 'date', DateTime: 'dateTime', Time: 'time',
};

export const PRIMITIVE_TYPES: ReadonlySet<string> = new Set([
  'boolean', 'integer', 'integer64', 'string', 'decimal', 'uri', 'url', 'canonical', 'base64Binary', 'instant', 'date', 'dateTime',
  'time', 'code', 'oid', 'id', 'markdown', 'unsignedInt', 'positiveInt', 'uuid', 'xhtml',
]);

function parseMax(max: unknown): number {
  if (max === '*' || max === undefined) return Infinity;
  const n = Number(max);
  return Number.isFinite(n) ? n : Infinity;
}

function typeCodeOf(t: RawType | undefined): string {
  const code: string = t?.code ?? '';
  if (t && code.startsWith(FHIRPATH_SYSTEM)) {
    const ext = (t.extension ?? []).find((e) => e.url === EXT_FHIR_TYPE);
    const v = ext?.valueUrl ?? ext?.valueUri ?? ext?.valueString;
    return v ?? SYSTEM_TYPES[code.slice(FHIRPATH_SYSTEM.length)] ?? 'string';
  }
  return code;
}

function prefixedValue(ed: RawElement, prefix: string): { type: string; value: unknown } | undefined {
  for (const k in ed) {
    const first = k.charAt(prefix.length);
    if (k.startsWith(prefix) && k.length > prefix.length && first >= 'A' && first <= 'Z') {
      const type = k.slice(prefix.length);
      const lowered = first.toLowerCase() + type.slice(1);
      return { type: PRIMITIVE_TYPES.has(lowered) ? lowered : type, value: ed[k] };
    }
  }
  return undefined;
}

/** The id of an element's parent ("A.b:s.c" → "A.b:s"); ids carry slice names, paths do not. */
function parentId(id: string): string | undefined {
  const dot = id.lastIndexOf('.');
  return dot < 0 ? undefined : id.slice(0, dot);
}

function lastSegment(id: string): string {
  const dot = id.lastIndexOf('.');
  return dot < 0 ? id : id.slice(dot + 1);
}

export class StructurePlanError extends Error {}

export function compileStructurePlan(sd: CanonicalResource): StructurePlan {
  const snapshot = isObject(sd.snapshot) ? sd.snapshot.element : undefined;
  const url = sd.url ?? '';
  const plan: StructurePlan = {
    url,
    version: sd.version,
    label: sd.version ? `${url}|${sd.version}` : url,
    name: sd.name ?? url,
    type: str(sd.type) ?? '',
    kind: str(sd.kind) ?? '',
    abstract: sd.abstract === true,
    derivation: str(sd.derivation),
    baseDefinition: str(sd.baseDefinition),
    root: undefined,
    byId: new Map(),
    ...extensionFields(sd),
    hasSnapshot: isArray(snapshot) && snapshot.length > 0,
  };
  if (!plan.hasSnapshot) return plan;
  if (!isRawElementList(snapshot)) {
    plan.hasSnapshot = false;
    return plan;
  }
  for (const [i, ed] of snapshot.entries()) {
    const path: string = ed.path ?? '';
    const id: string = ed.id ?? path;
    const segment = lastSegment(path);
    const isChoice = segment.endsWith('[x]');
    const name = i === 0 ? '' : (isChoice ? segment.slice(0, -3) : segment);
    const types: TypeRef[] = (ed.type ?? []).map((t) => ({
      code: typeCodeOf(t),
      profiles: t.profile ?? [],
      targetProfiles: t.targetProfile ?? [],
      ...(Array.isArray(t.aggregation) && t.aggregation.length > 0 ? { aggregation: t.aggregation.filter((m) => typeof m === 'string') } : {}),
    }));
    const constraints: ConstraintPlan[] = [];
    for (const c of ed.constraint ?? []) {
      if (!c?.key) continue;
      const bestPractice = (c.extension ?? []).some((e) => e.url === EXT_BEST_PRACTICE && e.valueBoolean === true);
      constraints.push({
        key: c.key,
        severity: c.severity === 'error' && !bestPractice ? 'error' : 'warning',
        human: c.human ?? '',
        expression: c.expression,
        bestPractice,
        base: path,
        source: c.source,
      });
    }
    // a profile's regex for the value: the element's own extension, else one on its type. The primitive
    // types' own definitions are left out: primitives.ts checks their syntax natively (and linearly).
    let regex: string | undefined = (ed.extension ?? []).find((e) => e?.url === EXT_REGEX)?.valueString;
    for (const t of ed.type ?? []) {
      const r = (t.extension ?? []).find((e) => e.url === EXT_REGEX);
      if (r && regex === undefined) regex = r.valueString;
    }
    if (plan.kind === 'primitive-type' || typeof regex !== 'string') regex = undefined;
    const el: ElementPlan = {
      id,
      path,
      name,
      min: typeof ed.min === 'number' ? ed.min : 0,
      max: parseMax(ed.max),
      baseMax: parseMax(ed.base?.max ?? ed.max),
      isChoice,
      types,
      ownChildren: undefined,
      contentReference: ed.contentReference,
      fixed: undefined,
      pattern: undefined,
      maxLength: typeof ed.maxLength === 'number' ? ed.maxLength : undefined,
      minValue: prefixedValue(ed, 'minValue'),
      maxValue: prefixedValue(ed, 'maxValue'),
      binding: ed.binding ? {
        strength: bindingStrength(ed.binding.strength),
        valueSet: ed.binding.valueSet,
        additional: additionalBindings(ed.binding),
        maxValueSet: (ed.binding.extension ?? []).find((e) => e?.url === 'http://hl7.org/fhir/StructureDefinition/elementdefinition-maxValueSet')?.valueCanonical,
      } : undefined,
      constraints,
      slicing: ed.slicing ? {
        discriminators: (ed.slicing.discriminator ?? []).map((d) => ({ type: d.type, path: d.path })),
        rules: ed.slicing.rules ?? 'open',
        ordered: ed.slicing.ordered === true,
      } : undefined,
      slices: [],
      sliceName: ed.sliceName,
      isModifier: ed.isModifier === true,
      structure: plan,
      regex,
      xmlAttr: Array.isArray(ed.representation) && ed.representation.includes('xmlAttr'),
      mustHaveValue: (ed.extension ?? []).some((x) => x?.url === EXT_MUST_HAVE_VALUE && x.valueBoolean === true),
      valueAlternatives: (ed.extension ?? []).flatMap((x) => (x?.url === EXT_VALUE_ALTERNATIVES && typeof x.valueCanonical === 'string' ? [x.valueCanonical] : [])),
      minLength: (() => {
        const e = (ed.extension ?? []).find((x) => x?.url === EXT_MIN_LENGTH);
        return typeof e?.valueInteger === 'number' ? e.valueInteger : undefined;
      })(),
      languageControl: (() => {
        const e = (ed.extension ?? []).find((x) => x?.url === EXT_NARRATIVE_LANGUAGE_CONTROL);
        return e?.valueCode ?? e?.valueString;
      })(),
    };
    const fixed = prefixedValue(ed, 'fixed');
    if (fixed) el.fixed = fixed.value;
    const pattern = prefixedValue(ed, 'pattern');
    if (pattern) el.pattern = pattern.value;
    if (i === 0) {
      plan.root = el;
      plan.byId.set(id, el);
      continue;
    }
    plan.byId.set(id, el);
    // A slice: its id ends with ":sliceName" in the last segment; it belongs to the element it slices.
    const seg = lastSegment(id);
    const colon = seg.lastIndexOf(':');
    if (ed.sliceName !== undefined && colon > 0) {
      const slicedId = id.slice(0, id.length - seg.length) + seg.slice(0, colon);
      // re-slices are written "a:s/t": the parent slice is "a:s"
      const slash = seg.lastIndexOf('/');
      const ownerId = slash > colon ? id.slice(0, id.length - seg.length) + seg.slice(0, slash) : slicedId;
      const owner = plan.byId.get(ownerId) ?? plan.byId.get(slicedId);
      if (owner) {
        owner.slices.push(el);
        continue;
      }
    }
    const pid = parentId(id);
    const parent = (pid !== undefined ? plan.byId.get(pid) : undefined) ?? findParentByPath(plan, path);
    if (!parent) continue;
    addChild(parent, el);
  }
  if (!plan.root) plan.hasSnapshot = false;
  return plan;
}

function extensionFields(sd: CanonicalResource): Pick<StructurePlan, 'contexts' | 'contextInvariants' | 'fhirVersions'> {
  const usage = extensionUsage(sd);
  return { contexts: usage.contexts, contextInvariants: usage.contextInvariants, fhirVersions: usage.versions };
}

function findParentByPath(plan: StructurePlan, path: string): ElementPlan | undefined {
  const p = parentId(path);
  return p === undefined ? undefined : plan.byId.get(p);
}

function emptyChildIndex(): ChildIndex {
  return { list: [], byJsonName: new Map(), choices: [] };
}

function addChild(parent: ElementPlan, el: ElementPlan): void {
  const idx = (parent.ownChildren ??= emptyChildIndex());
  idx.list.push(el);
  indexChild(idx, el);
}

export function indexChild(idx: ChildIndex, el: ElementPlan): void {
  if (el.isChoice) {
    idx.choices.push(el);
    for (const t of el.types) {
      const code = t.code;
      if (!code) continue;
      const jsonName = el.name + code.charAt(0).toUpperCase() + code.slice(1);
      idx.byJsonName.set(jsonName, jsonProperty(jsonName, el, code));
    }
  } else {
    idx.byJsonName.set(el.name, jsonProperty(el.name, el, undefined));
  }
}

/** Build a child index for a list of elements (used when elements come from elsewhere). */
export function childIndexOf(list: ElementPlan[]): ChildIndex {
  const idx = emptyChildIndex();
  for (const el of list) {
    idx.list.push(el);
    indexChild(idx, el);
  }
  return idx;
}

function bindingStrength(code: string): BindingStrength | undefined {
  return code === 'required' || code === 'extensible' || code === 'preferred' || code === 'example' ? code : undefined;
}
