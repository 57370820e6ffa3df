/**
 * A complex value: a datatype or backbone element (fixed/pattern, binding, reference, range,
 * then its children, then the type's profiles), or a nested resource (contained, a Bundle
 * entry, a Parameters value), which is validated as a resource of its own. Its children and a
 * nested resource are walked through `ctx.walker` (walk/walker.ts): the walk's modules import
 * each other one way only.
 */
import type { NodeContext } from '../context/node-context.js';
import type { ElementPlan, StructurePlan } from '../plan/structure-plan.js';
import { checkLanguageControl, narrativeLanguageSections } from '../checks/narrative-languages.js';
import { checkAttachment } from '../rules/attachments.js';
import { checkBinding } from '../rules/bindings.js';
import { checkConstraints } from '../rules/constraints.js';
import { checkFixed, checkPattern } from '../rules/fixed-pattern.js';
import { checkQuantityUnit } from '../rules/quantity-units.js';
import { checkQuantityRange } from '../rules/ranges.js';
import { aggregationModes, checkReferenceAggregation } from '../rules/reference-aggregation.js';
import { checkCodedValue } from '../rules/coded-values.js';
import { checkIdentifier } from '../rules/identifiers.js';
import { checkReference, checkReferenceTargetType } from '../rules/references.js';
import { walkAgainstOneOf } from './profile-choice.js';

const CORE_SD = 'http://hl7.org/fhir/StructureDefinition/';

/** The complex value `v` of `type` at ctx (an item of a property; ctx.element is its element). */
export function walkComplexValue(ctx: NodeContext, v: Record<string, unknown>, type: string | undefined): void {
  const { element: el, mode, plan } = ctx;
  const plans = ctx.services.plans;
  if (type === 'Resource' || (type !== undefined && type !== 'Element' && type !== 'BackboneElement' && !el.ownChildren && plans.isResourceType(type))) {
    walkNestedResource(ctx, v);
    return;
  }
  // inside a Bundle entry, references resolve against the entry's fullUrl
  const host = el.path === 'Bundle.entry' ? ctx.host.forEntry(ctx.node.str('fullUrl')) : ctx.host;
  if (el.fixed !== undefined) checkFixed(ctx, v, el.fixed);
  if (el.pattern !== undefined) checkPattern(ctx, v, el.pattern);
  if (el.binding && type && (type === 'CodeableConcept' || type === 'Coding' || type === 'Quantity' || type === 'CodeableReference')) {
    checkBinding(ctx, el.binding, type, undefined);
  }
  if (type === 'Reference') {
    if (mode === 'structural') checkReference(ctx);
    else checkReferenceTargetType(ctx, v);
    const aggregation = aggregationModes(el);
    if (aggregation !== undefined) checkReferenceAggregation(ctx, v, aggregation);
  }
  if (type === 'Attachment' && mode === 'structural') checkAttachment(ctx, v);
  if ((el.minValue || el.maxValue) && type === 'Quantity') checkQuantityRange(ctx, v);
  if (type === 'Quantity' && mode === 'structural') checkQuantityUnit(ctx, v);
  if (mode === 'structural') {
    // HL7's datatype checks (checkChildByDefinition): a Coding inside a CodeableConcept is the concept's to check
    if (type === 'Identifier') checkIdentifier(ctx, v);
    else if (type === 'Coding' && el.path !== 'CodeableConcept.coding') checkCodedValue(ctx, 'Coding', v);
    else if (type === 'Quantity') checkCodedValue(ctx, 'Quantity', v);
  }
  const div = el.languageControl === undefined ? undefined : ctx.node.str('div');
  if (el.languageControl !== undefined && div !== undefined) {
    const problem = checkLanguageControl(el.languageControl, narrativeLanguageSections(div));
    if (problem) ctx.error(problem.id, [...problem.args, `StructureDefinition[${plan.url}]`]);
  }
  // children: the element's own (profiles, backbone elements) or its type's
  let children = el.ownChildren;
  if (!children && el.contentReference) {
    const ref = el.structure.byId.get(el.contentReference.slice(el.contentReference.indexOf('#') + 1));
    if (ref) {
      children = ref.ownChildren;
      if (ref.constraints.length) checkConstraints(ctx.inside(plan, host), ref, v);
    }
  }
  let inner: NodeContext;
  if (!children) {
    // in a profile walk, a datatype the profile does not constrain was already checked by the structural walk
    if (mode === 'profile' && !hasTypeProfiles(el, type)) {
      if (el.constraints.length) checkConstraints(ctx.inside(plan, host), el, v);
      return;
    }
    if (!type) return;
    const tp = plans.typePlan(type);
    if (!tp?.root) return;
    // the type's children, walked against the type's structure
    inner = ctx.inside(tp, host);
    children = tp.root.ownChildren;
    if (mode === 'structural' && tp.root.constraints.length) checkConstraints(inner, tp.root, v);
    if (children) inner.walker.walkObject(inner, v, children);
    else if (el.constraints.length) checkConstraints(inner, el, v);
  } else {
    inner = ctx.inside(plan, host);
    inner.walker.walkObject(inner, v, children);
  }
  // type profiles (e.g. SimpleQuantity, an extension's definition) are walked as profiles
  if (type) walkTypeProfiles(inner, v, type);
}

function hasTypeProfiles(el: ElementPlan, type: string | undefined): boolean {
  for (const t of el.types) if (t.code === type && t.profiles.length > 0) return true;
  return false;
}

function walkTypeProfiles(ctx: NodeContext, v: Record<string, unknown>, type: string): void {
  const el = ctx.element;
  const candidates: StructurePlan[] = [];
  for (const t of el.types) {
    if (t.code !== type || t.profiles.length === 0) continue;
    for (const url of t.profiles) {
      if (url === CORE_SD + type) continue;
      if (type === 'Extension' && el.name === 'extension' && el.sliceName === undefined) continue;
      const p = ctx.services.plans.plan(url);
      if (p?.root?.ownChildren) candidates.push(p);
      // as HL7's checkChildByDefinition: a type profile that cannot be found is an error where it applies
      else if (!p) ctx.error('VALIDATION_VAL_UNKNOWN_PROFILE', [url]);
    }
  }
  // several profiles for one type are alternatives: the value follows one of them
  walkAgainstOneOf(ctx, v, candidates, undefined, (p) => {
    const root = p.root;
    if (root?.ownChildren) ctx.walker.walkObject(ctx.againstProfile(p, root, ctx.depth), v, root.ownChildren);
  });
}

/** A resource inside this one: validated as a resource (structural walk), or against the element's type profiles (profile walk). */
function walkNestedResource(ctx: NodeContext, v: Record<string, unknown>): void {
  const { element: el, path, at, mode } = ctx;
  const rt = v.resourceType;
  if (typeof rt !== 'string') {
    if (mode === 'structural') {
      let empty = true;
      for (const _ in v) { empty = false; break; }
      if (empty && ctx.run.sourceFormat === 'json') ctx.report('error', 'OBJECT_MUST_HAVE_SOME_CONTENT', [], path, at);
      ctx.report('error', 'RESOURCETYPE_MISSING', [], path, at);
    }
    return;
  }
  // HL7's contained-resource policy (asked for every nested resource: contained, Bundle entries,
  // Parameters values): IGNORE leaves it alone, CHECK_TYPE checks only that the element allows its type
  const policy = ctx.run.options.containedPolicy;
  if (policy === 'IGNORE') return;
  const nestedPath = `${path}.ofType(${rt})` + (typeof v.id === 'string' ? `.where(id = '${v.id.replace(/'/g /* linear: one character */, "\\'")}')` : '');
  const isContained = el.name === 'contained';
  const nested = ctx.host.forNested(v, isContained, nestedPath, ctx.depth + 1);
  const maxDepth = ctx.run.options.maxDepth;
  if (ctx.depth > maxDepth) {
    ctx.report('fatal', 'NESTING_TOO_DEEP', [maxDepth], path, at);
    return;
  }
  if (mode === 'structural') {
    if (policy !== 'CHECK_VALID') return;
    if (isContained && typeof v.id !== 'string') ctx.report('error', 'CONTAINED_NO_ID', [], nestedPath, at);
    ctx.walker.validateResource(nested, ctx.run.profilesOfEntry(v), true);
  } else {
    const candidates = profileCandidates(ctx, rt, nestedPath);
    if (candidates && policy === 'CHECK_VALID') walkAgainstOneOf(ctx, v, candidates, nested, (p) => { ctx.walker.validateAgainstProfile(nested, p, nestedPath, at); });
  }
}

/**
 * As HL7's validateContains in a profile walk: the element's type for this resource (its own
 * type, or Resource), whose profiles the resource must follow (several are alternatives). A
 * resource type the element does not allow, and a profile that cannot be found, are errors
 * (at the nested resource); undefined when the resource cannot be walked against a profile.
 */
function profileCandidates(ctx: NodeContext, rt: string, nestedPath: string): StructurePlan[] | undefined {
  const plans = ctx.services.plans;
  const types = ctx.element.types;
  const typeForResource = types.find((t) => t.code === 'Resource' || t.code === rt);
  if (!typeForResource) {
    if (types.length > 0) ctx.error('BUNDLE_BUNDLE_ENTRY_TYPE', [rt, types.map((t) => t.code).join(', ')], nestedPath);
    return undefined;
  }
  if (typeForResource.profiles.length === 0) return undefined;
  const candidates: StructurePlan[] = [];
  const profileTypes: string[] = [];
  let missing = false;
  for (const url of typeForResource.profiles) {
    const p = plans.plan(url);
    if (!p) {
      ctx.error('PROFILE_NOT_FOUND', [url], nestedPath);
      missing = true;
      continue;
    }
    if (!profileTypes.includes(p.type)) profileTypes.push(p.type);
    if (p.type === rt || p.type === 'Resource' || p.type === 'DomainResource') {
      if (!candidates.includes(p)) candidates.push(p);
    }
  }
  if (candidates.length === 0 && !missing && typeForResource.code === 'Resource') {
    if (profileTypes.length === 1) ctx.error('BUNDLE_BUNDLE_ENTRY_TYPE2', [rt, profileTypes[0]], nestedPath);
    else if (profileTypes.length > 1) ctx.error('BUNDLE_BUNDLE_ENTRY_TYPE3', [rt, profileTypes.join(', ')], nestedPath);
  }
  return candidates;
}
