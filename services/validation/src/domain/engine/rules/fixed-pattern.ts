/** fixed[x] and pattern[x] on a complex value (primitives compare in rules/primitive-values.ts). */
import { deepEqual, describeValue, matchesPattern } from '../checks/values.js';
import type { NodeContext } from '../context/node-context.js';

export function checkFixed(ctx: NodeContext, v: unknown, fixed: unknown): void {
  if (!deepEqual(v, fixed)) ctx.report('error', 'FIXED_VALUE', [describeValue(v), describeValue(fixed)], ctx.path, ctx.at);
}

export function checkPattern(ctx: NodeContext, v: unknown, pattern: unknown): void {
  if (!matchesPattern(v, pattern)) ctx.report('error', 'PATTERN_MISMATCH', [describeValue(pattern), ctx.plan.label], ctx.path, ctx.at);
}
