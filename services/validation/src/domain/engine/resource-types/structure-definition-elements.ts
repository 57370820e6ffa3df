/**
 * The HL7 StructureDefinitionValidator's rules on a StructureDefinition's contexts and element
 * lists (differential and snapshot): only extensions have a context (and an `element` context
 * names an element that exists; `Element` is warned about), each element's path starts with the
 * structure's type, slicing only on elements that repeat in the base type, and invariants with
 * a key and an expression, which in the differential neither claim another source nor reuse a
 * key of the base with another expression, and in the snapshot keep one expression per key.
 */
import type { NodeContext } from '../context/node-context.js';
import type { JsonNode } from '../json/json-node.js';
import { isArray, isObject } from '../json/json-value.js';
import type { ConformanceResourceSource } from '../../ports/conformance-resources.js';
import type { ChildIndex, ElementPlan } from '../plan/structure-plan.js';

type Obj = Record<string, unknown>;
/** The objects of a list in a loaded definition (read as raw JSON: it has no place in the instance). */
const objects = (v: unknown): Obj[] => (isArray(v) ? v.filter(isObject) : []);

const hasExtension = (node: JsonNode, urls: readonly string[]): boolean => node.objects('extension').some((e) => urls.includes(e.str('url') ?? ''));
const VERSION_SPECIFIC_USE = ['http://hl7.org/fhir/StructureDefinition/structuredefinition-fhir-version-specific-use'];
const JSON_NAME = ['http://hl7.org/fhir/tools/StructureDefinition/json-name', 'http://hl7.org/fhir/StructureDefinition/structuredefinition-json-name'];

/** StructureDefinition.context and contextInvariant. */
export function checkContexts(ctx: NodeContext, sd: JsonNode): void {
  const type = sd.object?.type;
  const contexts = sd.children('context');
  if (type !== 'Extension') {
    // a structure whose root carries a json-name can be used as an extension
    if (!hasJsonName(sd)) for (const c of contexts) c.error('SD_NO_CONTEXT_WHEN_NOT_EXTENSION', [type]);
    // (the HL7 validator reports every context invariant at the first one)
    sd.first('contextInvariant')?.error('SD_NO_CONTEXT_INV_WHEN_NOT_EXTENSION', [type]);
    return;
  }
  for (const c of contexts) {
    const expression = c.str('expression');
    if (expression === undefined) continue;
    // a context for another FHIR version names elements of that version
    if (hasExtension(c, VERSION_SPECIFIC_USE)) continue;
    const contextType = c.str('type');
    if (contextType === 'element') {
      if (!elementExists(ctx, expression)) c.error('SD_CONTEXT_SHOULD_ELEMENT_NOT_FOUND', [expression]);
      if (expression === 'Element') c.warning('SD_CONTEXT_SHOULD_NOT_BE_ELEMENT', [expression, sd.object?.id]);
    } else if (contextType === 'fhirpath' && isOwnElement(ctx, expression)) {
      c.warning('SD_CONTEXT_SHOULD_NOT_BE_FHIRPATH', [expression, sd.object?.id]);
    }
  }
}

function hasJsonName(sd: JsonNode): boolean {
  const first = (list: string) => sd.child(list)?.objects('element')[0];
  const root = first('snapshot') ?? first('differential');
  return root !== undefined && hasExtension(root, JSON_NAME);
}

/** Whether a fhirpath context is just the path of an element of its type's own definition. */
function isOwnElement(ctx: NodeContext, expression: string): boolean {
  const head = expression.includes('.') ? expression.slice(0, expression.indexOf('.')) : expression;
  const plan = ctx.services.plans.typePlan(head);
  if (!plan) return false;
  for (const el of plan.byId.values()) if (el.path === expression) return true;
  return false;
}

/** Whether `Type.a.b` names an element of a known type (children of datatypes and content references followed). */
function elementExists(ctx: NodeContext, expression: string): boolean {
  // linear: anchored, word characters, dots and brackets; anything else (slice names ...) is not judged
  if (!/^[A-Za-z][\w.[\]]*$/.test(expression)) return true;
  const segments = expression.split('.');
  const plan = ctx.services.plans.typePlan(segments[0] ?? '');
  if (!plan?.root) return false;
  let current: ElementPlan | undefined = plan.root;
  for (const name of segments.slice(1)) {
    let children: ChildIndex | undefined = current.ownChildren;
    if (!children && current.contentReference) {
      const ref = current.contentReference;
      children = plan.byId.get(ref.slice(ref.indexOf('#') + 1))?.ownChildren;
    }
    if (!children && current.types.length === 1) children = ctx.services.plans.typeChildren(current.types[0]?.code ?? '');
    const bare = name.endsWith('[x]') ? name.slice(0, -3) : name;
    current = children?.list.find((c) => c.name === bare && c.sliceName === undefined);
    if (!current) return false;
  }
  return true;
}

/** Differential and snapshot element lists. */
export function checkElementLists(ctx: NodeContext, sd: JsonNode): void {
  const typeName = structureTypeName(sd);
  const owner: Owner = { url: sd.str('url'), version: sd.str('version'), base: sd.str('baseDefinition') };
  const hasSnapshot = (sd.child('snapshot')?.objects('element').length ?? 0) > 0;
  for (const list of ['differential', 'snapshot'] as const) {
    const holder = sd.child(list);
    if (holder?.isObject !== true) continue;
    const snapshot = list === 'snapshot';
    const elements: ElementList = { snapshot, checkBindings: snapshot || hasSnapshot, seenKeys: new Map<string, string>(), owner };
    for (const ed of holder.objects('element')) {
      const edPath = ed.str('path');
      if (typeName !== undefined && edPath !== undefined && edPath !== typeName && !edPath.startsWith(`${typeName}.`)) {
        ed.error('SD_PATH_TYPE_MISMATCH', [typeName, edPath]);
      }
      const slicing = ed.child('slicing');
      if (edPath !== undefined && slicing?.isObject === true && !canSlice(ctx, edPath)) slicing.error('SD_PATH_NO_SLICING', [edPath]);
      // a differential-only profile's bindings are judged by the differential check (checks/structure-definition.ts)
      if (edPath !== undefined) checkCharacteristics(ctx, ed, edPath, elements);
      for (const inv of ed.objects('constraint')) checkInvariant(ctx, inv, elements);
    }
  }
}

/** The structure's type as element paths start with it (a logical model's type url loses its namespace). */
function structureTypeName(sd: JsonNode): string | undefined {
  const t = sd.str('type');
  if (t === undefined) return undefined;
  return sd.str('kind') === 'logical' && t.includes('/') ? t.slice(t.lastIndexOf('/') + 1) : t;
}

/** Slicing is for elements that repeat in the base type (or choices); unknown elements are left alone. */
function canSlice(ctx: NodeContext, path: string): boolean {
  if (path.includes('[x]')) return true;
  const head = path.includes('.') ? path.slice(0, path.indexOf('.')) : path;
  const plan = ctx.services.plans.typePlan(head);
  if (!plan) return true;
  let found: ElementPlan | undefined;
  for (const el of plan.byId.values()) {
    if (el.path === path && el.sliceName === undefined) {
      found = el;
      break;
    }
  }
  return found === undefined || found.max !== 1;
}

interface Owner {
  url: string | undefined;
  version: string | undefined;
  base: string | undefined;
}

/**
 * One of a StructureDefinition's element lists (differential or snapshot) as its elements are
 * checked: whether it is the snapshot, whether bindings are judged here (a differential-only
 * profile's are judged by checks/structure-definition.ts), the invariant keys met so far in it
 * (a key must keep its expression) and the structure that owns its invariants.
 */
interface ElementList {
  readonly snapshot: boolean;
  readonly checkBindings: boolean;
  readonly seenKeys: Map<string, string>;
  readonly owner: Owner;
}

function checkInvariant(ctx: NodeContext, inv: JsonNode, list: ElementList): void {
  const { snapshot, seenKeys, owner } = list;
  const nonEmpty = (name: string) => (inv.str(name) === '' ? undefined : inv.str(name));
  const key = nonEmpty('key');
  const expression = nonEmpty('expression');
  if (key === undefined) {
    inv.warning('ED_INVARIANT_NO_KEY', []);
    return;
  }
  if (expression === undefined) {
    inv.information('ED_INVARIANT_NO_EXPRESSION', [key]);
    return;
  }
  if (snapshot) {
    const earlier = seenKeys.get(key);
    if (earlier === undefined) seenKeys.set(key, expression);
    else if (earlier !== expression && key !== 'ele-1') inv.error('ED_INVARIANT_EXPRESSION_CONFLICT', [key, expression, earlier]);
    return;
  }
  const source = inv.str('source');
  if (source !== undefined && source !== owner.url && !(owner.version !== undefined && source === `${String(owner.url)}|${owner.version}`)) {
    inv.error('ED_INVARIANT_DIFF_NO_SOURCE', [key, source, owner.url]);
    return;
  }
  const inBase = baseInvariant(ctx, owner.base, key);
  if (inBase && inBase.expression !== expression) {
    inv.error('ED_INVARIANT_KEY_ALREADY_USED', [key, inBase.url, inBase.expression]);
    return;
  }
  const earlier = seenKeys.get(key);
  if (earlier === undefined) seenKeys.set(key, expression);
  else if (earlier !== expression) inv.error('ED_INVARIANT_KEY_ALREADY_USED', [key, owner.url, earlier]);
}

interface KnownInvariant {
  url: string;
  expression: string | undefined;
}

/** Invariant keys of the base structures (the core types and resources), indexed once per source. */
const baseKeys = new WeakMap<ConformanceResourceSource, Map<string, KnownInvariant>>();

function baseInvariant(ctx: NodeContext, baseUrl: string | undefined, key: string): KnownInvariant | undefined {
  const source = ctx.services.source;
  if (baseUrl !== undefined) {
    const base = source.structureDefinition(baseUrl);
    const snapshot = base && isObject(base.snapshot) ? objects(base.snapshot.element) : [];
    for (const ed of snapshot) {
      for (const c of objects(ed.constraint)) {
        if (c.key === key) return { url: base?.version ? `${String(base.url)}|${base.version}` : String(base?.url), expression: typeof c.expression === 'string' ? c.expression : undefined };
      }
    }
  }
  let index = baseKeys.get(source);
  if (!index) {
    index = new Map();
    for (const sd of source.all('StructureDefinition')) {
      if (sd.derivation === 'constraint' || sd.kind === 'logical' || !isObject(sd.snapshot)) continue;
      const label = sd.version ? `${String(sd.url)}|${sd.version}` : String(sd.url);
      for (const ed of objects(sd.snapshot.element)) {
        for (const c of objects(ed.constraint)) {
          if (typeof c.key === 'string' && !index.has(c.key)) index.set(c.key, { url: label, expression: typeof c.expression === 'string' ? c.expression : undefined });
        }
      }
    }
    baseKeys.set(source, index);
  }
  return index.get(key);
}

/** What constraints make sense on each type, as the HL7 validator infers them for types that do not declare them. */
const CHARACTERISTICS: Record<string, readonly string[]> = {
  integer: ['has-range', 'has-length'], integer64: ['has-range', 'has-length'], decimal: ['has-range', 'is-continuous', 'has-length'],
  base64Binary: ['has-size'], instant: ['has-range', 'is-continuous', 'has-length'], string: ['has-length', 'do-translations', 'can-bind'],
  uri: ['has-length', 'can-bind'], date: ['has-range', 'has-length'], dateTime: ['has-range', 'is-continuous', 'has-length'],
  time: ['has-range', 'is-continuous', 'has-length'], canonical: ['has-target', 'has-length'], code: ['has-length', 'can-bind'],
  id: ['has-length'], markdown: ['do-translations', 'has-length'], oid: ['has-length', 'can-bind'], positiveInt: ['has-range', 'has-length'],
  unsignedInt: ['has-range', 'has-length'], url: ['has-length', 'can-bind'], uuid: ['has-length', 'can-bind'],
  Address: ['do-translations'], Age: ['has-range', 'is-continuous', 'can-bind', 'has-units'], Attachment: ['has-size', 'do-translations'],
  CodeableConcept: ['can-bind', 'do-translations'], CodeableReference: ['has-target', 'can-bind', 'do-translations'], Coding: ['can-bind', 'do-translations'],
  Count: ['has-range'], Distance: ['has-range', 'is-continuous', 'can-bind', 'has-units'], Duration: ['has-range', 'is-continuous', 'can-bind', 'has-units'],
  Money: ['has-range', 'is-continuous'], Quantity: ['has-range', 'is-continuous', 'can-bind', 'has-units'], Range: ['has-units', 'can-bind'],
  Ratio: ['has-units'], RatioRange: ['has-units'], Reference: ['has-target'], Extension: ['can-bind'],
  MoneyQuantity: ['has-range', 'is-continuous', 'can-bind', 'has-units'], SimpleQuantity: ['has-range', 'is-continuous', 'can-bind', 'has-units'],
};

/** Types a binding applies to: the coded ones, string and uri, and the types specialising them. */
const BINDABLE = new Set(['code', 'Coding', 'CodeableConcept', 'Quantity', 'CodeableReference', 'string', 'uri', 'markdown', 'id', 'canonical', 'url', 'oid', 'uuid',
  'Age', 'Distance', 'Duration', 'Count', 'MoneyQuantity', 'SimpleQuantity']);

const FHIR_TYPE_EXT = 'http://hl7.org/fhir/StructureDefinition/structuredefinition-fhir-type';

/**
 * Constraints an element's types cannot carry (the HL7 validator's SD_ILLEGAL_CHARACTERISTICS): a
 * binding, maxLength, minValue/maxValue, targetProfile on types without the characteristic.
 */
function checkCharacteristics(ctx: NodeContext, ed: JsonNode, edPath: string, elements: ElementList): void {
  const { snapshot, checkBindings } = elements;
  const typeCodes: string[] = [];
  const characteristics = new Set<string>();
  let known = false;
  if (!edPath.includes('.')) {
    typeCodes.push(edPath);
    for (const c of CHARACTERISTICS[edPath] ?? []) characteristics.add(c);
    known = true;
  }
  const types = ed.objects('type');
  for (const t of types) {
    const fhirType = t.objects('extension').find((e) => e.str('url') === FHIR_TYPE_EXT)?.str('valueUrl');
    const code = fhirType ?? t.str('code');
    if (code === undefined || code === '') continue;
    typeCodes.push(code);
    if (!ctx.services.plans.typePlan(code)) continue;
    known = true;
    const own = CHARACTERISTICS[code] ?? [];
    for (const c of own) characteristics.add(c);
    if (t.children('targetProfile').length > 0 && !own.includes('has-target')) ed.error('SD_ILLEGAL_CHARACTERISTICS', ['targetProfile', code]);
  }
  const list = `[${typeCodes.join(', ')}]`;
  // a snapshot element below the root has types or a content reference
  const id = ed.str('id');
  if (snapshot && id?.includes('.') && types.length === 0 && ed.child('contentReference') === undefined) ed.error('SD_NO_TYPES_OR_CONTENTREF', [id]);
  const binding = ed.child('binding');
  if (binding !== undefined) {
    checkBindingTarget(ctx, binding, edPath);
    // in a snapshot, a binding needs a type that can be bound
    if (snapshot && !typeCodes.some((t) => BINDABLE.has(t))) binding.error('SD_ED_BIND_NO_BINDABLE', [edPath, list]);
  }
  if (typeCodes.length === 0 || !known) return;
  const need = (present: boolean, what: string, characteristic: string) => {
    if (present && !characteristics.has(characteristic)) ed.error('SD_ILLEGAL_CHARACTERISTICS', [what, list]);
  };
  const keys = Object.keys(ed.object ?? {});
  if (checkBindings) need(binding !== undefined, 'Binding', 'can-bind');
  need(ed.child('maxLength') !== undefined, 'MaxLength', 'has-length');
  need(keys.some((k) => k.startsWith('minValue')), 'MinValue', 'has-range');
  need(keys.some((k) => k.startsWith('maxValue')), 'MaxValue', 'has-range');
}

/** A binding's valueSet must be a ValueSet when it resolves to something (unresolvable ones are for a terminology server). */
function checkBindingTarget(ctx: NodeContext, binding: JsonNode, edPath: string): void {
  const ref = binding.str('valueSet');
  if (ref === undefined) return;
  const source = ctx.services.source;
  if (source.valueSet(ref)) return;
  const other = source.codeSystem(ref) ?? source.structureDefinition(ref);
  if (other) binding.error('SD_ED_BIND_NOT_VS', [edPath, ref, other.resourceType]);
}
