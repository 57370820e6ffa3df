/**
 * A resource, as the HL7 validator's InstanceValidator starts one: the structural walk against
 * its core definition with its resource-type validator around it (see resource-types/), then
 * a profile walk against each profile (meta.profile, then the caller's).
 */
import { checkResourceId } from '../checks/primitives.js';
import { NodeContext, type NodeWalker } from '../context/node-context.js';
import type { ResourceContext } from '../context/resource-context.js';
import type { Position } from '../json/located-json.js';
import { JsonNode } from '../json/json-node.js';
import { isArray, isObject } from '../json/json-value.js';
import type { StructurePlan } from '../plan/structure-plan.js';
import { fhirFamily, parseVersionUrl } from '../definitions/versions.js';
import { ENGINE_FHIR_VERSION } from '../rules/extension-context.js';
import type { ResourceTypeValidators } from '../resource-types/resource-type-validator.js';
import { checkPublication } from '../rules/publication.js';
import { walkObject } from './object-walker.js';
import { enterParametersGrouping } from './parameters-grouping.js';

/**
 * Validates host.resource at host.path: `structural` for a resource met for the first time
 * (the root, a contained or entry resource), with `extraProfiles` the caller's profiles; the
 * walk goes on through `walker` (ResourceWalker, which holds `resourceTypes`).
 */
export function validateResource(walker: NodeWalker, resourceTypes: ResourceTypeValidators, host: ResourceContext, extraProfiles: readonly string[], structural: boolean): void {
  const { run, resource: res, path: resPath } = host;
  const rt = String(res.resourceType); // a text: the callers checked it
  const plans = run.services.plans;
  const basePlan = plans.typePlan(rt);
  const resource = JsonNode.at(run, res, resPath, undefined);
  if (!basePlan || basePlan.kind !== 'resource' || !basePlan.hasSnapshot || !basePlan.root?.ownChildren) {
    run.report('error', 'RESOURCETYPE_UNKNOWN', [rt], resPath, resource.child('resourceType')?.at);
    return;
  }
  if (basePlan.abstract) {
    run.report('error', 'ABSTRACT_TYPE', [rt], resPath, resource.child('resourceType')?.at);
    return;
  }
  if (structural) {
    const ctx = NodeContext.resourceRoot(walker, host, basePlan, basePlan.root, 'structural');
    const typeValidator = resourceTypes.get(rt);
    typeValidator?.beforeElements?.(ctx, res);
    if (rt === 'Parameters') enterParametersGrouping(ctx);
    if (run.options.containedPolicy === 'CHECK_VALID') checkContainedIds(ctx.node.objects('contained'));
    walkObject(ctx, res, basePlan.root.ownChildren);
    const id = ctx.node.child('id');
    const idText = id?.string;
    if (id !== undefined && idText !== undefined) for (const p of checkResourceId(idText)) id.report(p.severity, p.id, p.args);
    typeValidator?.validate?.(ctx, res);
    checkPublication(ctx);
    checkSecurityLabels(ctx.node.child('meta')?.objects('security') ?? []);
  }
  // profiles: meta.profile, then the caller's
  // a profile named in meta.profile that cannot be found is a warning (HL7 VALIDATION_VAL_PROFILE_UNKNOWN);
  // one the caller asks for is an error (HL7 cannot validate against it at all); a profile named in
  // meta.profile is reported where it is named, one the caller asks for at the resource
  const profiles: { url: string; node: JsonNode | undefined }[] = [];
  if (structural) {
    const listed = resource.child('meta')?.child('profile');
    // (a single value is not a list of profiles: JSON_PROPERTY_NO_ARRAY, and none is used)
    if (listed?.isList) {
      for (const p of listed.items()) if (p.string !== undefined) profiles.push({ url: p.string, node: p });
    }
  }
  for (const url of extraProfiles) profiles.push({ url, node: undefined });
  const done = new Set<string>([basePlan.url]);
  for (const p of profiles) {
    if (done.has(p.url)) continue;
    done.add(p.url);
    if (p.node !== undefined && claimsVersionedProfile(host, basePlan, p.url, p.node)) continue;
    const plan = plans.plan(p.url);
    if (!plan) {
      if (p.node) p.node.warning('PROFILE_NOT_FOUND', [p.url]);
      else run.report('error', 'PROFILE_NOT_FOUND', [p.url], resPath, undefined);
      continue;
    }
    const reportPath = p.node?.path ?? resPath;
    const reportAt = p.node?.at;
    validateAgainstProfile(walker, host, plan, reportPath, reportAt);
    validateImposedProfiles(walker, host, plan, { path: reportPath, at: reportAt }, done);
  }
  if (structural) validateGlobalProfiles(walker, host, rt, done);
}

/**
 * The global profiles of the loose ImplementationGuides (ImplementationGuide.global) for this
 * resource type, as HL7's start() applies its IGs' after the resource's own profiles; one that
 * cannot be found is a warning.
 */
function validateGlobalProfiles(walker: NodeWalker, host: ResourceContext, rt: string, done: Set<string>): void {
  const { run } = host;
  for (const ig of run.services.source.implementationGuides?.() ?? []) {
    for (const g of isArray(ig.global) ? ig.global : []) {
      if (!isObject(g) || g.type !== rt || typeof g.profile !== 'string') continue;
      const plan = run.services.plans.plan(g.profile);
      if (!plan) {
        run.report('warning', 'VALIDATION_VAL_GLOBAL_PROFILE_UNKNOWN', [g.profile, ig.version ? `${String(ig.url)}|${ig.version}` : String(ig.url)], host.path, undefined);
      } else if (!done.has(plan.url)) {
        done.add(plan.url);
        validateAgainstProfile(walker, host, plan, host.path, undefined);
      }
    }
  }
}

const IMPOSE_PROFILE = 'http://hl7.org/fhir/StructureDefinition/structuredefinition-imposeProfile';

/**
 * The profiles a profile imposes (structuredefinition-imposeProfile), as HL7's start(): the resource
 * is validated against each of them too (theirs are not followed further); one that cannot be found
 * is a warning where the imposing profile was named.
 */
function validateImposedProfiles(walker: NodeWalker, host: ResourceContext, plan: StructurePlan, p: { path: string; at: Position | undefined }, done: Set<string>): void {
  const { run } = host;
  const sd = run.services.source.structureDefinition(plan.url);
  const extensions = sd && isArray(sd.extension) ? sd.extension : [];
  for (const ext of extensions) {
    if (!isObject(ext) || ext.url !== IMPOSE_PROFILE || typeof ext.valueCanonical !== 'string') continue;
    const url = ext.valueCanonical;
    const imposed = run.services.plans.plan(url);
    if (!imposed) {
      run.report('warning', 'VALIDATION_VAL_PROFILE_DEPENDS_NOT_RESOLVED', [url, plan.label], p.path, p.at);
    } else if (!done.has(imposed.url)) {
      done.add(imposed.url);
      validateAgainstProfile(walker, host, imposed, p.path, p.at);
    }
  }
}

/**
 * meta.profile naming a version-specific url (`http://hl7.org/fhir/4.0/StructureDefinition/X`), as
 * HL7's start() reads it: another FHIR version's profile is ignored (a hint), this version's own
 * definition of the resource type is fine (a hint), and anything else this version defines is not
 * a profile for this resource (an error). True when the url was one of these.
 */
function claimsVersionedProfile(host: ResourceContext, basePlan: StructurePlan, url: string, named: JsonNode): boolean {
  const versioned = parseVersionUrl(url);
  if (!versioned) return false;
  if (versioned.family !== fhirFamily(ENGINE_FHIR_VERSION)) named.information('VALIDATION_VAL_PROFILE_OTHER_VERSION', [versioned.family]);
  else if (versioned.url === basePlan.url) named.information('VALIDATION_VAL_PROFILE_THIS_VERSION_OK', []);
  else named.error('VALIDATION_VAL_PROFILE_THIS_VERSION_OTHER', [host.run.services.plans.plan(versioned.url)?.type ?? 'null']);
  return true;
}

/** A profile walk of host.resource; problems with the profile itself are reported at `reportPath`. */
export function validateAgainstProfile(walker: NodeWalker, host: ResourceContext, plan: StructurePlan, reportPath: string, at: Position | undefined): void {
  const { run } = host;
  const rt = host.resource.resourceType;
  if (!plan.hasSnapshot || !plan.root?.ownChildren) {
    run.report('warning', 'PROFILE_NO_SNAPSHOT', [plan.url], reportPath, at);
    return;
  }
  if (plan.type !== rt && plan.type !== 'Resource' && plan.type !== 'DomainResource') {
    run.report('error', 'PROFILE_WRONG_TYPE', [plan.label, plan.type, rt], reportPath, at);
    return;
  }
  walkObject(NodeContext.resourceRoot(walker, host, plan, plan.root, 'profile'), host.resource, plan.root.ownChildren);
}

/** meta.security is a set of labels (system#code): one given twice is an error (HL7's validateResourceRules). */
function checkSecurityLabels(labels: readonly JsonNode[]): void {
  if (labels.length < 2) return;
  const seen = new Set<string>();
  for (const label of labels) {
    const key = `${label.str('system') ?? 'null'}#${label.str('code') ?? 'null'}`;
    if (seen.has(key)) label.error('Meta_RES_Security_Duplicate', [key]);
    seen.add(key);
  }
}

/** Contained resources are told apart by id: two with one id are an error. */
function checkContainedIds(contained: readonly JsonNode[]): void {
  if (contained.length < 2) return;
  const seen = new Set<string>();
  for (const c of contained) {
    const id = c.str('id');
    if (id === undefined) continue;
    if (seen.has(id)) c.error('BUNDLE_DUPLICATE_ID', [id]);
    seen.add(id);
  }
}
