/**
 * An element whose type names several profiles (a Parameters profile whose parameter.resource
 * may be any of three resource profiles, a datatype that may follow one of two profiles): the
 * value must follow one of them, as the HL7 validator judges it. Each is tried silently; when
 * exactly one fits, only its findings are reported; when none fits, that is an error and the
 * findings of every candidate are reported; when several fit, a warning says so and their
 * findings are reported. With a single candidate the value is simply walked against it.
 */
import { NodeContext } from '../context/node-context.js';
import type { ResourceContext } from '../context/resource-context.js';
import { JsonNode } from '../json/json-node.js';
import type { StructurePlan } from '../plan/structure-plan.js';

/**
 * Walks `value` (at ctx, in the resource `host` for a nested resource) against the profile among
 * `candidates` that it follows; `walk` does the real (reporting) walk against one of them.
 */
export function walkAgainstOneOf(
  ctx: NodeContext,
  value: Record<string, unknown>,
  candidates: readonly StructurePlan[],
  nestedResource: ResourceContext | undefined,
  walk: (p: StructurePlan) => void,
): void {
  const [first] = candidates;
  if (first === undefined) return;
  if (candidates.length === 1) {
    walk(first);
    return;
  }
  const fitting = candidates.filter((p) => conforms(ctx, value, p, nestedResource));
  const [onlyFitting] = fitting;
  if (onlyFitting !== undefined && fitting.length === 1) {
    walk(onlyFitting);
    return;
  }
  const names = candidates.map((p) => p.label).sort().join('; ');
  if (fitting.length === 0) ctx.error('VALIDATION_VAL_PROFILE_NOMATCH', [names]);
  else ctx.warning('VALIDATION_VAL_PROFILE_MULTIPLEMATCHES', [fitting.map((p) => p.label).sort().join(', ')]);
  for (const p of fitting.length === 0 ? candidates : fitting) walk(p);
}

/** Whether the value shows no error against the profile (a silent profile walk). */
function conforms(ctx: NodeContext, value: Record<string, unknown>, p: StructurePlan, nestedResource: ResourceContext | undefined): boolean {
  if (!p.root?.ownChildren) return false;
  const silent = ctx.run.forSlicing();
  const depth = ctx.depth + 1;
  const host = nestedResource
    ? ctx.host.forSlicing(silent, value, nestedResource.path, depth)
    : ctx.host.forSlicing(silent, undefined, ctx.host.path, depth);
  // a silent walk: nothing it finds is placed in the source text
  const node = JsonNode.unplaced(silent, value, nestedResource ? nestedResource.path : ctx.path);
  ctx.walker.walkObject(new NodeContext({ walker: ctx.walker, host, plan: p, mode: 'profile' }, p.root, node, depth), value, p.root.ownChildren);
  return silent.errorCount === 0;
}
