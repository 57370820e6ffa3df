/**
 * Parameters, as the HL7 validator treats it: a grouping resource like a Bundle. References from a
 * resource in one parameter to a resource in another (`Coverage.beneficiary` → `Patient/1` given as
 * a sibling parameter) resolve inside the Parameters (HL7's localResolve over the grouping
 * resource), so they are internal references, checked whatever the reference policy says.
 */
import { BundleIndex } from '../checks/references.js';
import type { NodeContext } from '../context/node-context.js';
import type { JsonNode } from '../json/json-node.js';

/** Makes the resources of the Parameters at ctx resolvable by `Type/id` from each other, before its elements are walked. */
export function enterParametersGrouping(ctx: NodeContext): void {
  const resources: { resource: Record<string, unknown> }[] = [];
  const parameters = ctx.node.child('parameter');
  if (parameters) collectResources(parameters, resources);
  if (resources.length > 0) ctx.host.enterBundle(new BundleIndex(resources));
}

/**
 * The resources of the parameters and their parts (iteratively: parts nest without a limit).
 * Only lists are read: a single value where a list belongs is a shape error the walk reports.
 */
function collectResources(parameters: JsonNode, out: { resource: Record<string, unknown> }[]): void {
  const stack: JsonNode[] = [parameters];
  for (let list = stack.pop(); list !== undefined; list = stack.pop()) {
    if (!list.isList) continue;
    for (const p of list.items()) {
      const resource = p.child('resource')?.object;
      if (resource) out.push({ resource });
      const part = p.child('part');
      if (part) stack.push(part);
    }
  }
}
