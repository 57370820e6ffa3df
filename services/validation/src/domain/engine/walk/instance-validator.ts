/**
 * A resource, as the HL7 validator's InstanceValidator starts one: the structural walk against
 * its core definition with its resource-type validator around it (see resource-types/), then
 * a profile walk against each profile (meta.profile, then the caller's).
 */
import { checkResourceId } from '../checks/primitives.js';
import { NodeContext, type NodeWalker } from '../context/node-context.js';
import type { ResourceContext } from '../context/resource-context.js';
import type { Position } from '../json/located-json.js';
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
  if (!basePlan || basePlan.kind !== 'resource' || !basePlan.hasSnapshot || !basePlan.root?.ownChildren) {
    run.report('error', 'RESOURCETYPE_UNKNOWN', [rt], resPath, run.propPos(res, 'resourceType'));
    return;
  }
  if (basePlan.abstract) {
    run.report('error', 'ABSTRACT_TYPE', [rt], resPath, run.propPos(res, 'resourceType'));
    return;
  }
  if (structural) {
    const ctx = NodeContext.resourceRoot(walker, host, basePlan, basePlan.root, 'structural');
    const typeValidator = resourceTypes.get(rt);
    typeValidator?.beforeElements?.(ctx, res);
    if (rt === 'Parameters') enterParametersGrouping(ctx, res);
    if (Array.isArray(res.contained) && res.contained.length > 1 && run.options.containedPolicy === 'CHECK_VALID') checkContainedIds(ctx, res.contained);
    walkObject(ctx, res, basePlan.root.ownChildren);
    if (typeof res.id === 'string') {
      for (const p of checkResourceId(res.id)) ctx.report(p.severity, p.id, p.args, `${resPath}.id`, ctx.propPos(res, 'id'));
    }
    typeValidator?.validate?.(ctx, res);
    checkPublication(ctx, res);
  }
  // profiles: meta.profile, then the caller's
  const meta = res.meta;
  // a profile named in meta.profile that cannot be found is a warning (HL7 VALIDATION_VAL_PROFILE_UNKNOWN);
  // one the caller asks for is an error (HL7 cannot validate against it at all)
  const profiles: { url: string; path: string; at: Position | undefined; named: boolean }[] = [];
  if (structural && isObject(meta) && isArray(meta.profile)) {
    meta.profile.forEach((p, i, list) => {
      if (typeof p === 'string') profiles.push({ url: p, path: `${resPath}.meta.profile[${String(i)}]`, at: run.itemPos(list, i), named: false });
    });
  }
  for (const p of extraProfiles) profiles.push({ url: p, path: resPath, at: undefined, named: true });
  const done = new Set<string>([basePlan.url]);
  for (const p of profiles) {
    if (done.has(p.url)) continue;
    done.add(p.url);
    if (!p.named && claimsVersionedProfile(host, basePlan, p)) continue;
    const plan = plans.plan(p.url);
    if (!plan) {
      run.report(p.named ? 'error' : 'warning', 'PROFILE_NOT_FOUND', [p.url], p.path, p.at);
      continue;
    }
    validateAgainstProfile(walker, host, plan, p.path, p.at);
    validateImposedProfiles(walker, host, plan, p, done);
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
function claimsVersionedProfile(host: ResourceContext, basePlan: StructurePlan, p: { url: string; path: string; at: Position | undefined }): boolean {
  const versioned = parseVersionUrl(p.url);
  if (!versioned) return false;
  const { run } = host;
  if (versioned.family !== fhirFamily(ENGINE_FHIR_VERSION)) run.report('information', 'VALIDATION_VAL_PROFILE_OTHER_VERSION', [versioned.family], p.path, p.at);
  else if (versioned.url === basePlan.url) run.report('information', 'VALIDATION_VAL_PROFILE_THIS_VERSION_OK', [], p.path, p.at);
  else run.report('error', 'VALIDATION_VAL_PROFILE_THIS_VERSION_OTHER', [run.services.plans.plan(versioned.url)?.type ?? 'null'], p.path, p.at);
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

/** Contained resources are told apart by id: two with one id are an error. */
function checkContainedIds(ctx: NodeContext, contained: unknown[]): void {
  const seen = new Set<string>();
  contained.forEach((c, i) => {
    if (!isObject(c) || typeof c.id !== 'string') return;
    if (seen.has(c.id)) ctx.report('error', 'BUNDLE_DUPLICATE_ID', [c.id], `${ctx.path}.contained[${i}]`, ctx.itemPos(contained, i));
    seen.add(c.id);
  });
}
