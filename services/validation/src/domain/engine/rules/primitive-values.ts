/**
 * A primitive value and its `_x` companion: JSON type, value space (checks/primitives.ts),
 * xhtml, and what an element adds (maxLength, fixed/pattern, ranges, binding, invariants).
 * The structural walk checks everything; a profile walk only what the profile adds, and
 * only on a value of the right JSON type (the structural walk reported the others).
 */
import { checkPrimitiveValue, jsonTypeOfPrimitive } from '../checks/primitives.js';
import { checkValueRegex } from '../checks/value-regex.js';
import { deepEqual, describeValue } from '../checks/values.js';
import { checkXhtml, unresolvedInternalLinks } from '../checks/xhtml.js';
import type { NodeContext } from '../context/node-context.js';
import { isObject, jsonKind } from '../json/json-value.js';
import { walkObject } from '../walk/object-walker.js';
import { checkBinding } from './bindings.js';
import { checkConstraints } from './constraints.js';
import { checkPrimitiveRange } from './ranges.js';

export interface PrimitiveOccurrence {
  /** The value (undefined when only the `_x` companion is present). */
  value: unknown;
  /** The `_x` companion item (id, extensions), if any. */
  companion: unknown;
  /** The property has a `_x` companion at all (changes the wording for a null value). */
  hasCompanion: boolean;
  /** The source text of a number, when the parser kept it (`1.50`, `2.0`). */
  rawNumber: string | undefined;
}

/** One primitive value of `type` at ctx (ctx.element is its element). */
export function checkPrimitive(ctx: NodeContext, type: string, { value: v, companion, hasCompanion, rawNumber: raw }: PrimitiveOccurrence): void {
  const { element: el, path, at, plan } = ctx;
  if (ctx.mode === 'structural') {
    if (companion !== undefined && companion !== null) {
      if (!isObject(companion)) {
        ctx.report('error', 'JSON_PROPERTY_NOT_OBJECT', [path.slice(path.lastIndexOf('.') + 1), jsonKind(companion), path], path, at);
      } else {
        const plans = ctx.services.plans;
        const cc = plans.primitiveCompanionChildren(type);
        if (cc) walkObject(ctx.inside(plans.typePlan(type) ?? plan), companion, cc);
      }
    }
    if (v === undefined || v === null) {
      const hasExtensions = isObject(companion) && Object.keys(companion).length > 0;
      if (!hasExtensions) ctx.report('error', v === null && !hasCompanion ? 'JSON_NULL_NOT_ALLOWED' : 'PRIMITIVE_NO_VALUE', v === null && !hasCompanion ? [path.slice(path.lastIndexOf('.') + 1), path] : [], path, at);
      return;
    }
    const want = jsonTypeOfPrimitive(type);
    if (typeof v !== want) {
      ctx.report('error', 'JSON_PRIMITIVE_WRONG_TYPE', [want === 'boolean' ? 'a boolean' : want === 'number' ? 'a number' : 'a string', path], path, at);
      return;
    }
    if (typeof v === 'number' && (type === 'integer' || type === 'positiveInt' || type === 'unsignedInt') && raw !== undefined && /[.eE]/.test(raw) /* linear: one character class */) {
      ctx.report('error', 'INTEGER_INVALID', [raw], path, at);
      return;
    }
    const isResourceId = type !== 'id' && el.path === plan.type + '.id' && plan.kind === 'resource';
    if (!isResourceId) {
      const options = ctx.services.options;
      const problems = checkPrimitiveValue(type, v as string | number | boolean, { securityChecks: options.securityChecks, allowExampleUrls: options.allowExampleUrls, htmlInMarkdown: options.htmlInMarkdown });
      for (const p of problems) ctx.report(p.severity, p.id, p.args, path, at);
    }
    if (type === 'xhtml' && typeof v === 'string') {
      for (const p of checkXhtml(v)) ctx.report('error', p.id, p.args, path, at);
      const resource = ctx.host.resource;
      const contained = Array.isArray(resource.contained) ? (resource.contained as unknown[]).filter(isObject).map((c) => String(c.id)) : [];
      for (const link of unresolvedInternalLinks(v, contained)) ctx.report('error', 'XHTML_LINK_UNRESOLVED', [link.href, link.path, link.text], path, at);
    }
  } else if (v === undefined || v === null || typeof v !== jsonTypeOfPrimitive(type)) {
    return;
  }
  if (v === undefined || v === null) return;
  if (el.maxLength !== undefined && typeof v === 'string' && v.length > el.maxLength) {
    ctx.report('error', 'STRING_TOO_LONG', [el.maxLength], path, at);
  }
  if (el.regex !== undefined && (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean')) {
    const problem = checkValueRegex(el.regex, type, raw ?? String(v));
    if (problem) ctx.report(problem.severity, problem.id, problem.args, path, at);
  }
  if (el.fixed !== undefined && !deepEqual(v, el.fixed)) {
    ctx.report('error', 'FIXED_VALUE', [v, describeValue(el.fixed)], path, at);
  }
  if (el.pattern !== undefined && !deepEqual(v, el.pattern)) {
    ctx.report('error', 'PATTERN_VALUE', [v, describeValue(el.pattern), plan.label], path, at);
  }
  if (el.minValue || el.maxValue) checkPrimitiveRange(ctx, v);
  if (el.binding && (type === 'code' || type === 'string' || type === 'uri') && typeof v === 'string') {
    checkBinding(ctx, type, v);
  }
  if (el.constraints.length) checkConstraints(ctx, el, v);
}
