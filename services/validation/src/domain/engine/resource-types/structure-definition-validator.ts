/**
 * StructureDefinition (the HL7 validator's StructureDefinitionValidator, in part): contexts only
 * on extensions; the base must be known (a warning), a definition with a base states its
 * derivation, a constraint keeps the base's type and kind and a specialization changes the type;
 * the element lists' paths, slicing and invariants (structure-definition-elements.ts); an
 * extension definition fixes Extension.url to its own url; a value the base fixes is fixed again
 * only to the same (structure-definition-fixed.ts); and a differential-only profile is
 * checked against its base as snapshot generation would (checks/structure-definition.ts).
 */
import { checkDifferential } from '../checks/structure-definition.js';
import type { NodeContext } from '../context/node-context.js';
import { isArray, isObject, str } from '../json/json-value.js';
import type { ResourceTypeValidator } from './resource-type-validator.js';
import { checkContexts, checkElementLists } from './structure-definition-elements.js';
import { checkFixedAgainstBase } from './structure-definition-fixed.js';

const CORE_EXTENSION = 'http://hl7.org/fhir/StructureDefinition/Extension';

export class StructureDefinitionValidator implements ResourceTypeValidator {
  readonly resourceTypes = ['StructureDefinition'];

  validate(ctx: NodeContext, sd: Record<string, unknown>): void {
    checkContexts(ctx, sd);
    checkLogicalType(ctx, sd);
    if (checkAgainstBase(ctx, sd)) {
      checkElementLists(ctx, sd);
      checkObligationProfile(ctx, sd);
      checkExtensionUrl(ctx, sd);
      checkFixedAgainstBase(ctx, sd);
    }
    checkInheritedObligations(ctx, sd);
    if (sd.derivation !== 'constraint' || typeof sd.baseDefinition !== 'string') return;
    const snapshotElements = isObject(sd.snapshot) ? sd.snapshot.element : undefined;
    if (isArray(snapshotElements) && snapshotElements.length > 0) return;
    const plans = ctx.services.plans;
    const base = plans.plan(sd.baseDefinition);
    if (!base?.root) return;
    const childNames = (type: string) => plans.typeChildren(type)?.list.map((c) => c.name);
    for (const p of checkDifferential(sd, base, childNames)) ctx.error(p.id, p.args, p.path ? `${ctx.path}.${p.path}` : ctx.path, ctx.pos(sd));
  }
}

/**
 * A logical model defines a type outside FHIR's: its name must be a URL (HL7's SD_TYPE_NOT_LOCAL),
 * best in the namespace of the model's own url (SD_TYPE_NOT_MATCH_NS).
 */
function checkLogicalType(ctx: NodeContext, sd: Record<string, unknown>): void {
  const type = sd.type;
  if (sd.kind !== 'logical' || typeof type !== 'string' || type === '') return;
  const path = `${ctx.path}.type`;
  const at = ctx.propPos(sd, 'type');
  if (!/^[a-z][a-z0-9+.-]*:/i.test(type) /* linear: a scheme, anchored */) {
    if (!ctx.services.plans.typePlan(type)) ctx.error('SD_TYPE_NOT_LOCAL', [type], path, at);
    return;
  }
  const url = typeof sd.url === 'string' ? sd.url : '';
  const namespace = (u: string) => u.slice(0, u.lastIndexOf('/', u.lastIndexOf('/StructureDefinition/') >= 0 ? u.lastIndexOf('/StructureDefinition/') : u.length - 1) + 1);
  if (url && !type.startsWith(namespace(url))) ctx.warning('SD_TYPE_NOT_MATCH_NS', [type, namespace(url)], path, at);
}

/** Derivation, type and kind against the base definition; false when there is no known base (the HL7 validator then stops). */
function checkAgainstBase(ctx: NodeContext, sd: Record<string, unknown>): boolean {
  const baseUrl = sd.baseDefinition;
  if (typeof baseUrl !== 'string') return false;
  const base = ctx.services.source.structureDefinition(baseUrl);
  const at = ctx.pos(sd);
  if (!base) {
    ctx.warning('SD_BASE_NOT_FOUND', [baseUrl, "StructureDefinition, so can't check the differential"], ctx.path, at);
    return false;
  }
  if (sd.derivation === undefined) {
    ctx.error('SD_MUST_HAVE_DERIVATION', [sd.url], ctx.path, at);
  } else {
    if (base.abstract !== true && sd.kind !== base.kind) ctx.error('SD_CONSTRAINED_KIND_NO_MATCH', [sd.kind, base.kind, base.type, base.url], ctx.path, at);
    if (sd.derivation === 'constraint' && sd.type !== base.type) ctx.error('SD_CONSTRAINED_TYPE_NO_MATCH', [sd.type, base.type], ctx.path, at);
    if (sd.derivation === 'specialization' && (sd.type === undefined || sd.type === base.type)) ctx.error('SD_SPECIALIZED_TYPE_MATCHES', [sd.type, base.type], ctx.path, at);
  }
  if (sd.derivation === 'constraint' && base.kind !== sd.kind) ctx.error('SD_DERIVATION_KIND_MISMATCH', [base.kind, sd.kind], ctx.path, at);
  if (base.experimental === true && sd.experimental !== true) ctx.warning('SD_BASE_EXPERIMENTAL', [baseUrl], ctx.path, at);
  return true;
}

/** An extension defined on Extension fixes Extension.url (in the differential) to its own url. */
function checkExtensionUrl(ctx: NodeContext, sd: Record<string, unknown>): void {
  if (sd.type !== 'Extension' || sd.baseDefinition !== CORE_EXTENSION || typeof sd.url !== 'string') return;
  const diff = isObject(sd.differential) && isArray(sd.differential.element) ? sd.differential.element : [];
  let fixed: unknown;
  for (const ed of diff) {
    if (!isObject(ed) || ed.path !== 'Extension.url') continue;
    const key = Object.keys(ed).find((k) => k.startsWith('fixed'));
    fixed = key === undefined ? undefined : ed[key];
    break;
  }
  if (fixed === undefined) ctx.error('SD_EXTENSION_URL_MISSING', [sd.url], ctx.path, ctx.pos(sd));
  else if (fixed !== sd.url) ctx.error('SD_EXTENSION_URL_MISMATCH', [sd.url, fixed], ctx.path, ctx.pos(sd));
}

const OBLIGATION_PROFILE_FLAGS = ['http://hl7.org/fhir/tools/StructureDefinition/obligation-profile', 'http://hl7.org/fhir/StructureDefinition/obligation-profile'];
const OBLIGATION_INHERITS = ['http://hl7.org/fhir/tools/StructureDefinition/inherit-obligations', 'http://hl7.org/fhir/StructureDefinition/inherit-obligations'];
const OBLIGATIONS = ['http://hl7.org/fhir/StructureDefinition/obligation', 'http://hl7.org/fhir/tools/StructureDefinition/obligation'];
const ADDITIONAL_BINDING = 'http://hl7.org/fhir/tools/StructureDefinition/additional-binding';

function extensionsOf(v: Record<string, unknown>): Record<string, unknown>[] {
  return Array.isArray(v.extension) ? v.extension.filter(isObject) : [];
}

/** The boolean an obligation-profile flag extension gives. */
function isObligationProfile(sd: Record<string, unknown>): boolean {
  return extensionsOf(sd).some((e) => typeof e.url === 'string' && OBLIGATION_PROFILE_FLAGS.includes(e.url) && e.valueBoolean === true);
}

/**
 * An obligation profile (HL7's validateObligationProfile) adds only obligations, must-support,
 * cardinality and additional bindings to its base: each differential element exists in the base,
 * keeps its path, carries no other property or extension, and a binding (only where the base
 * has one) repeats the base's strength and adds only additional bindings that are not
 * maximum/required/extensible.
 */
function checkObligationProfile(ctx: NodeContext, sd: Record<string, unknown>): void {
  if (!isObligationProfile(sd)) return;
  if (sd.derivation !== 'constraint') {
    ctx.error('SD_OBLIGATION_PROFILE_DERIVATION', [], ctx.path, ctx.pos(sd));
    return;
  }
  const base = typeof sd.baseDefinition === 'string' ? ctx.services.plans.plan(sd.baseDefinition) : undefined;
  if (!base?.root) return;
  const diff = isObject(sd.differential) && isArray(sd.differential.element) ? sd.differential.element : [];
  diff.forEach((ed, i) => {
    if (!isObject(ed)) return;
    const path = `${ctx.path}.differential.element[${String(i)}]`;
    const id = typeof ed.id === 'string' ? ed.id : (str(ed.path) ?? '');
    const bd = base.byId.get(id);
    if (!bd) {
      ctx.error('SD_OBLIGATION_PROFILE_UNMATCHED', [id, base.label], path, ctx.pos(ed));
      return;
    }
    for (const key of Object.keys(ed)) {
      const value = ed[key];
      if (key === 'extension') {
        extensionsOf(ed).forEach((x, xi) => {
          if (typeof x.url === 'string' && OBLIGATIONS.includes(x.url)) return;
          ctx.error('SD_OBLIGATION_PROFILE_ILLEGAL', [id, `extension#${String(x.url)}`], `${path}.extension[${String(xi)}]`, ctx.pos(x));
        });
      } else if (key === 'mustSupport' || key === 'min' || key === 'max' || key === 'id') {
        // allowed (cardinality is checked as for any profile)
      } else if (key === 'binding') {
        const bindingPath = `${path}.binding[0]`;
        if (!bd.binding) ctx.error('SD_OBLIGATION_PROFILE_ILLEGAL_BINDING', [id], bindingPath, ctx.pos(value));
        else if (isObject(value)) checkObligationBinding(ctx, value, id, bd.binding.strength, bindingPath);
      } else if (key === 'path') {
        if (value !== bd.path) ctx.error('SD_OBLIGATION_PROFILE_PATH_WRONG', [id, value, bd.path], `${path}.path[0]`, ctx.propPos(ed, key));
      } else if (!key.startsWith('_')) {
        ctx.error('SD_OBLIGATION_PROFILE_ILLEGAL', [id, key], `${path}.${key}[0]`, ctx.propPos(ed, key));
      }
    }
  });
}

function checkObligationBinding(ctx: NodeContext, binding: Record<string, unknown>, id: string, baseStrength: string | undefined, path: string): void {
  for (const key of Object.keys(binding)) {
    if (key === 'extension') {
      extensionsOf(binding).forEach((x, xi) => {
        if (x.url === ADDITIONAL_BINDING) {
          const purpose = extensionsOf(x).find((p) => p.url === 'purpose');
          const code = purpose?.valueCode;
          if (typeof code === 'string' && ['maximum', 'required', 'extensible'].includes(code)) ctx.error('SD_OBLIGATION_PROFILE_INVALID_BINDING_CODE', [id, code], `${path}.extension[${String(xi)}]`, ctx.pos(x));
        } else {
          ctx.error('SD_OBLIGATION_PROFILE_ILLEGAL', [id, `extension#${String(x.url)}`], `${path}.extension[${String(xi)}]`, ctx.pos(x));
        }
      });
    } else if (key === 'strength') {
      if (binding.strength !== baseStrength) ctx.error('SD_OBLIGATION_PROFILE_INVALID_BINDING_STRENGTH', [id, binding.strength, baseStrength], `${path}.strength[0]`, ctx.propPos(binding, key));
    } else if (!key.startsWith('_')) {
      ctx.error('SD_OBLIGATION_PROFILE_ILLEGAL_ON_BINDING', [id, key], `${path}.${key}[0]`, ctx.propPos(binding, key));
    }
  }
}

/**
 * inherit-obligations (HL7's validateInheritsObligationProfile): the profile named is known, is an
 * obligation profile, and has the same base as this one.
 */
function checkInheritedObligations(ctx: NodeContext, sd: Record<string, unknown>): void {
  extensionsOf(sd).forEach((x, i) => {
    if (typeof x.url !== 'string' || !OBLIGATION_INHERITS.includes(x.url)) return;
    const path = `${ctx.path}.extension[${String(i)}]`;
    const target = x.valueCanonical ?? x.valueUri ?? x.valueUrl;
    if (typeof target !== 'string') {
      ctx.error('SD_OBLIGATION_INHERITS_NO_TARGET', [], path, ctx.pos(x));
      return;
    }
    const profile = ctx.services.source.structureDefinition(target);
    if (!profile) {
      ctx.error('SD_OBLIGATION_INHERITS_NOT_FOUND', [target], path, ctx.pos(x));
      return;
    }
    if (!isObligationProfile(profile)) {
      ctx.error('SD_OBLIGATION_INHERITS_NOT_OBLIGATION', [target], path, ctx.pos(x));
      return;
    }
    if (typeof sd.baseDefinition !== 'string' || sd.baseDefinition !== profile.baseDefinition) {
      ctx.error('SD_OBLIGATION_INHERITS_WRONG_BASE', [target, profile.baseDefinition, sd.baseDefinition], path, ctx.pos(x));
    }
  });
}

