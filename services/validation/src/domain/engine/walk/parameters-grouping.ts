/**
 * Parameters, as the HL7 validator treats it: a grouping resource like a Bundle. References from a
 * resource in one parameter to a resource in another (`Coverage.beneficiary` → `Patient/1` given as
 * a sibling parameter) resolve inside the Parameters (HL7's localResolve over the grouping
 * resource), so they are internal references, checked whatever the reference policy says.
 */
import { BundleIndex } from '../checks/references.js';
import type { NodeContext } from '../context/node-context.js';
import { isObject } from '../json/json-value.js';

/** Makes the resources of a Parameters resolvable by `Type/id` from each other, before its elements are walked. */
export function enterParametersGrouping(ctx: NodeContext, parameters: Record<string, unknown>): void {
  const resources: { resource: Record<string, unknown> }[] = [];
  collectResources(parameters.parameter, resources);
  if (resources.length > 0) ctx.host.enterBundle(new BundleIndex(resources));
}

/** The resources of the parameters and their parts (iteratively: parts nest without a limit). */
function collectResources(parameters: unknown, out: { resource: Record<string, unknown> }[]): void {
  const stack: unknown[] = [parameters];
  while (stack.length) {
    const list = stack.pop();
    if (!Array.isArray(list)) continue;
    for (const p of list) {
      if (!isObject(p)) continue;
      if (isObject(p.resource)) out.push({ resource: p.resource });
      if (Array.isArray(p.part)) stack.push(p.part);
    }
  }
}
