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
import type { JsonNode } from '../json/json-node.js';
import { isObject } from '../json/json-value.js';
import type { ResourceTypeValidator } from './resource-type-validator.js';
import { checkContexts, checkElementLists } from './structure-definition-elements.js';
import { checkFixedAgainstBase } from './structure-definition-fixed.js';

const CORE_EXTENSION = 'http://hl7.org/fhir/StructureDefinition/Extension';

export class StructureDefinitionValidator implements ResourceTypeValidator {
  readonly resourceTypes = ['StructureDefinition'];

  validate(ctx: NodeContext, sd: Record<string, unknown>): void {
    const node = ctx.nodeOf(sd);
    checkContexts(ctx, node);
    checkLogicalType(ctx, node);
    if (checkAgainstBase(ctx, node)) {
      checkElementLists(ctx, node);
      checkObligationProfile(ctx, node);
      checkExtensionUrl(node);
      checkFixedAgainstBase(ctx, node);
    }
    checkInheritedObligations(ctx, node);
    if (sd.derivation !== 'constraint' || typeof sd.baseDefinition !== 'string') return;
    if ((node.child('snapshot')?.children('element').length ?? 0) > 0) return;
    const plans = ctx.services.plans;
    const base = plans.plan(sd.baseDefinition);
    if (!base?.root) return;
    const childNames = (type: string) => plans.typeChildren(type)?.list.map((c) => c.name);
    // (reported at the resource's position, where the snapshot generation that finds them stands)
    for (const p of checkDifferential(node, base, childNames)) ctx.error(p.id, p.args, (p.where ?? node).path, node.at);
  }
}

/**
 * A logical model defines a type outside FHIR's: its name must be a URL (HL7's SD_TYPE_NOT_LOCAL),
 * best in the namespace of the model's own url (SD_TYPE_NOT_MATCH_NS).
 */
function checkLogicalType(ctx: NodeContext, sd: JsonNode): void {
  const typeNode = sd.child('type');
  const type = typeNode?.string;
  if (sd.str('kind') !== 'logical' || typeNode === undefined || type === undefined || type === '') return;
  if (!/^[a-z][a-z0-9+.-]*:/i.test(type) /* linear: a scheme, anchored */) {
    if (!ctx.services.plans.typePlan(type)) typeNode.error('SD_TYPE_NOT_LOCAL', [type]);
    return;
  }
  const url = sd.str('url') ?? '';
  const namespace = (u: string) => u.slice(0, u.lastIndexOf('/', u.lastIndexOf('/StructureDefinition/') >= 0 ? u.lastIndexOf('/StructureDefinition/') : u.length - 1) + 1);
  if (url && !type.startsWith(namespace(url))) typeNode.warning('SD_TYPE_NOT_MATCH_NS', [type, namespace(url)]);
}

/** Derivation, type and kind against the base definition; false when there is no known base (the HL7 validator then stops). */
function checkAgainstBase(ctx: NodeContext, node: JsonNode): boolean {
  const sd = node.object ?? {};
  const baseUrl = sd.baseDefinition;
  if (typeof baseUrl !== 'string') return false;
  const base = ctx.services.source.structureDefinition(baseUrl);
  if (!base) {
    node.warning('SD_BASE_NOT_FOUND', [baseUrl, "StructureDefinition, so can't check the differential"]);
    return false;
  }
  if (sd.derivation === undefined) {
    node.error('SD_MUST_HAVE_DERIVATION', [sd.url]);
  } else {
    if (base.abstract !== true && sd.kind !== base.kind) node.error('SD_CONSTRAINED_KIND_NO_MATCH', [sd.kind, base.kind, base.type, base.url]);
    if (sd.derivation === 'constraint' && sd.type !== base.type) node.error('SD_CONSTRAINED_TYPE_NO_MATCH', [sd.type, base.type]);
    if (sd.derivation === 'specialization' && (sd.type === undefined || sd.type === base.type)) node.error('SD_SPECIALIZED_TYPE_MATCHES', [sd.type, base.type]);
  }
  if (sd.derivation === 'constraint' && base.kind !== sd.kind) node.error('SD_DERIVATION_KIND_MISMATCH', [base.kind, sd.kind]);
  if (base.experimental === true && sd.experimental !== true) node.warning('SD_BASE_EXPERIMENTAL', [baseUrl]);
  return true;
}

/** An extension defined on Extension fixes Extension.url (in the differential) to its own url. */
function checkExtensionUrl(sd: JsonNode): void {
  const url = sd.str('url');
  if (sd.str('type') !== 'Extension' || sd.str('baseDefinition') !== CORE_EXTENSION || url === undefined) return;
  const urlElement = sd.child('differential')?.objects('element').find((ed) => ed.str('path') === 'Extension.url')?.object;
  const key = urlElement === undefined ? undefined : Object.keys(urlElement).find((k) => k.startsWith('fixed'));
  const fixed = urlElement === undefined || key === undefined ? undefined : urlElement[key];
  if (fixed === undefined) sd.error('SD_EXTENSION_URL_MISSING', [url]);
  else if (fixed !== url) sd.error('SD_EXTENSION_URL_MISMATCH', [url, fixed]);
}

const OBLIGATION_PROFILE_FLAGS = ['http://hl7.org/fhir/tools/StructureDefinition/obligation-profile', 'http://hl7.org/fhir/StructureDefinition/obligation-profile'];
const OBLIGATION_INHERITS = ['http://hl7.org/fhir/tools/StructureDefinition/inherit-obligations', 'http://hl7.org/fhir/StructureDefinition/inherit-obligations'];
const OBLIGATIONS = ['http://hl7.org/fhir/StructureDefinition/obligation', 'http://hl7.org/fhir/tools/StructureDefinition/obligation'];
const ADDITIONAL_BINDING = 'http://hl7.org/fhir/tools/StructureDefinition/additional-binding';

/** The extensions of a loaded definition (read as raw JSON: it has no place in the instance). */
function extensionsOf(v: Record<string, unknown>): Record<string, unknown>[] {
  return Array.isArray(v.extension) ? v.extension.filter(isObject) : [];
}

/** The boolean an obligation-profile flag extension gives. */
function isObligationProfile(sd: Record<string, unknown>): boolean {
  return extensionsOf(sd).some((e) => typeof e.url === 'string' && OBLIGATION_PROFILE_FLAGS.includes(e.url) && e.valueBoolean === true);
}

/** An extension's url, as a text for messages. */
const urlOf = (x: JsonNode): string => String(x.object?.url);

/**
 * An obligation profile (HL7's validateObligationProfile) adds only obligations, must-support,
 * cardinality and additional bindings to its base: each differential element exists in the base,
 * keeps its path, carries no other property or extension, and a binding (only where the base
 * has one) repeats the base's strength and adds only additional bindings that are not
 * maximum/required/extensible.
 *
 * HL7 names each property it reports here with an index (`binding[0].strength[0]`), as a list.
 */
function checkObligationProfile(ctx: NodeContext, sd: JsonNode): void {
  if (!isObligationProfile(sd.object ?? {})) return;
  if (sd.str('derivation') !== 'constraint') {
    sd.error('SD_OBLIGATION_PROFILE_DERIVATION', []);
    return;
  }
  const baseUrl = sd.str('baseDefinition');
  const base = baseUrl === undefined ? undefined : ctx.services.plans.plan(baseUrl);
  if (!base?.root) return;
  for (const ed of sd.child('differential')?.objects('element') ?? []) {
    const id = ed.str('id') ?? ed.str('path') ?? '';
    const bd = base.byId.get(id);
    if (!bd) {
      ed.error('SD_OBLIGATION_PROFILE_UNMATCHED', [id, base.label]);
      continue;
    }
    for (const key of Object.keys(ed.object ?? {})) {
      if (key === 'extension') {
        for (const x of ed.objects('extension')) {
          if (!OBLIGATIONS.includes(urlOf(x))) x.error('SD_OBLIGATION_PROFILE_ILLEGAL', [id, `extension#${urlOf(x)}`]);
        }
      } else if (key === 'mustSupport' || key === 'min' || key === 'max' || key === 'id') {
        // allowed (cardinality is checked as for any profile)
      } else if (key === 'binding') {
        const binding = ed.child(key, 'binding[0]');
        if (!bd.binding) binding?.error('SD_OBLIGATION_PROFILE_ILLEGAL_BINDING', [id]);
        else if (binding?.isObject === true) checkObligationBinding(binding, id, bd.binding.strength);
      } else if (key === 'path') {
        const path = ed.child(key, 'path[0]');
        if (path !== undefined && path.value !== bd.path) path.error('SD_OBLIGATION_PROFILE_PATH_WRONG', [id, path.value, bd.path]);
      } else if (!key.startsWith('_')) {
        ed.child(key, `${key}[0]`)?.error('SD_OBLIGATION_PROFILE_ILLEGAL', [id, key]);
      }
    }
  }
}

function checkObligationBinding(binding: JsonNode, id: string, baseStrength: string | undefined): void {
  for (const key of Object.keys(binding.object ?? {})) {
    if (key === 'extension') {
      for (const x of binding.objects('extension')) {
        if (x.str('url') === ADDITIONAL_BINDING) {
          const code = x.objects('extension').find((p) => p.str('url') === 'purpose')?.str('valueCode');
          if (code !== undefined && ['maximum', 'required', 'extensible'].includes(code)) x.error('SD_OBLIGATION_PROFILE_INVALID_BINDING_CODE', [id, code]);
        } else {
          x.error('SD_OBLIGATION_PROFILE_ILLEGAL', [id, `extension#${urlOf(x)}`]);
        }
      }
    } else if (key === 'strength') {
      const strength = binding.child(key, 'strength[0]');
      if (strength !== undefined && strength.value !== baseStrength) strength.error('SD_OBLIGATION_PROFILE_INVALID_BINDING_STRENGTH', [id, strength.value, baseStrength]);
    } else if (!key.startsWith('_')) {
      binding.child(key, `${key}[0]`)?.error('SD_OBLIGATION_PROFILE_ILLEGAL_ON_BINDING', [id, key]);
    }
  }
}

/**
 * inherit-obligations (HL7's validateInheritsObligationProfile): the profile named is known, is an
 * obligation profile, and has the same base as this one.
 */
function checkInheritedObligations(ctx: NodeContext, sd: JsonNode): void {
  const baseDefinition = sd.str('baseDefinition');
  for (const x of sd.objects('extension')) {
    if (!OBLIGATION_INHERITS.includes(urlOf(x))) continue;
    const target = x.str('valueCanonical') ?? x.str('valueUri') ?? x.str('valueUrl');
    if (target === undefined) {
      x.error('SD_OBLIGATION_INHERITS_NO_TARGET', []);
      continue;
    }
    const profile = ctx.services.source.structureDefinition(target);
    if (!profile) {
      x.error('SD_OBLIGATION_INHERITS_NOT_FOUND', [target]);
    } else if (!isObligationProfile(profile)) {
      x.error('SD_OBLIGATION_INHERITS_NOT_OBLIGATION', [target]);
    } else if (baseDefinition === undefined || baseDefinition !== profile.baseDefinition) {
      x.error('SD_OBLIGATION_INHERITS_WRONG_BASE', [target, profile.baseDefinition, sd.object?.baseDefinition]);
    }
  }
}
