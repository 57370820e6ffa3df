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
import type { StructurePlan } from '../plan/structure-plan.js';
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
    const plan = plans.plan(p.url);
    if (!plan) {
      if (p.node) p.node.warning('PROFILE_NOT_FOUND', [p.url]);
      else run.report('error', 'PROFILE_NOT_FOUND', [p.url], resPath, undefined);
      continue;
    }
    validateAgainstProfile(walker, host, plan, p.node?.path ?? resPath, p.node?.at);
  }
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
