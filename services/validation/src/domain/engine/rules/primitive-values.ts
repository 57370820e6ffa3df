/**
 * A primitive value and its `_x` companion: JSON type, value space (checks/primitives.ts),
 * xhtml, and what an element adds (maxLength, fixed/pattern, ranges, binding, invariants).
 * The structural walk checks everything; a profile walk only what the profile adds, and
 * only on a value of the right JSON type (the structural walk reported the others).
 */
import { checkPrimitiveValue, jsonTypeOfPrimitive } from '../checks/primitives.js';
import { checkValueRegex } from '../checks/value-regex.js';
import { deepEqual, describeValue } from '../checks/values.js';
import { checkXhtml, unresolvedInternalImages, unresolvedInternalLinks } from '../checks/xhtml.js';
import type { NodeContext } from '../context/node-context.js';
import type { JsonNode } from '../json/json-node.js';
import { isArray, isObject, jsonKind } from '../json/json-value.js';
import { checkBinding } from './bindings.js';
import { checkConstraints } from './constraints.js';
import { checkPrimitiveRange } from './ranges.js';
import { checkUrlValue } from './url-references.js';

export interface PrimitiveOccurrence {
  /** The value (undefined when only the `_x` companion is present). */
  value: unknown;
  /** The `_x` companion item (id, extensions), if any. */
  companion: unknown;
  /** The companion item as a node (at the primitive's location, where the companion is written). */
  companionNode?: JsonNode | undefined;
  /** The property has a `_x` companion at all (changes the wording for a null value). */
  hasCompanion: boolean;
  /** The source text of a number, when the parser kept it (`1.50`, `2.0`). */
  rawNumber: string | undefined;
  /** The value is an item of a JSON array (a null item there is a value left out, not an error by itself). */
  inArray?: boolean;
  /** The object holding the primitive. */
  owner?: Record<string, unknown>;
}

/** One primitive value of `type` at ctx (ctx.element is its element). */
export function checkPrimitive(ctx: NodeContext, type: string, { value: v, companion, companionNode, hasCompanion, rawNumber: raw, inArray, owner }: PrimitiveOccurrence): void {
  // (the location is made only for a report: most values report nothing)
  const { element: el, plan, node } = ctx;
  let blank = false;
  if ((el.mustHaveValue || el.valueAlternatives.length > 0) && (v === undefined || v === null)) checkMissingValue(ctx, companionNode);
  if (ctx.mode === 'structural') {
    if (companion === null && !inArray && hasCompanion && (v === undefined || (v !== null && typeof v !== 'object'))) {
      // a single value's `_x` written as null: reported, and the value is not read
      node.report('error', 'JSON_PROPERTY_NOT_OBJECT', ['_' + node.path.slice(node.path.lastIndexOf('.') + 1), 'a Null', node.path]);
      return;
    }
    if (companion !== undefined && companion !== null) {
      if (!isObject(companion)) {
        node.report('error', 'JSON_PROPERTY_NOT_OBJECT', [node.path.slice(node.path.lastIndexOf('.') + 1), jsonKind(companion), node.path]);
      } else {
        const plans = ctx.services.plans;
        const cc = plans.primitiveCompanionChildren(type);
        if (owner) ctx.run.companionOwners.set(companion, owner);
        if (cc) ctx.walker.walkObject(ctx.inside(plans.typePlan(type) ?? plan, ctx.host, companionNode ?? ctx.nodeOf(companion)), companion, cc, false);
      }
    }
    if (ctx.run.sourceFormat === 'xml' && (v === undefined || v === null || typeof v === 'string')) {
      if (checkXmlText(ctx, type, v ?? undefined, companion)) return;
    } else if (v === undefined || v === null) {
      // a single value written as null is not a simple value, whatever its companion holds
      if (v === null && (!inArray || !hasCompanion)) {
        node.report('error', 'JSON_NULL_NOT_ALLOWED', [node.path.slice(node.path.lastIndexOf('.') + 1), node.path]);
      } else if (!hasChildren(companion)) {
        node.report('error', 'PRIMITIVE_NO_VALUE', []);
      }
      return;
    }
    const want = jsonTypeOfPrimitive(type);
    if (typeof v !== want) {
      node.report('error', 'JSON_PRIMITIVE_WRONG_TYPE', [want === 'boolean' ? 'a boolean' : want === 'number' ? 'a number' : 'a string', node.path]);
      return;
    }
    if (typeof v === 'string' && isBlank(v)) {
      // as HL7's checkPrimitive: a blank value is fine when extensions stand in for it, and
      // is otherwise an error when empty and a warning when only whitespace; nothing else of
      // the value is checked
      if (!hasChildren(companion)) node.report(v.length === 0 ? 'error' : 'warning', v.length === 0 ? 'PRIMITIVE_EMPTY_STRING' : 'PRIMITIVE_WHITESPACE_ONLY', []);
      blank = true;
    }
    const isResourceId = type !== 'id' && el.path === plan.type + '.id' && plan.kind === 'resource';
    // v has the JSON type `want` (checked above); the typeof tests only say so to the compiler
    if (!isResourceId && !blank && (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean')) {
      const options = ctx.run.options;
      const problems = checkPrimitiveValue(type, v, { securityChecks: options.securityChecks, allowExampleUrls: options.allowExampleUrls, htmlInMarkdown: options.htmlInMarkdown }, raw);
      for (const p of problems) node.report(p.severity, p.id, p.args);
      if (typeof v === 'string') {
        checkUrlValue(ctx, type, v);
        if (CONTROL_CHARACTER.test(v)) reportControlCharacters(ctx, v);
      }
    }
    if (type === 'xhtml' && typeof v === 'string' && !blank) {
      for (const p of checkXhtml(v)) node.report('error', p.id, p.args);
      const resource = ctx.host.resource;
      const contained = isArray(resource.contained) ? resource.contained.filter(isObject).map((c) => String(c.id)) : [];
      for (const link of unresolvedInternalLinks(v, contained)) node.report('error', 'XHTML_LINK_UNRESOLVED', [link.href, link.path, link.text]);
      // HL7 names where the image is as the element's path and the tag (`Patient.text.div/img`)
      for (const src of unresolvedInternalImages(v, contained)) node.report('error', 'Type_Specific_Checks_DT_XHTML_Resolve_Img', [src, `${node.path}/img`]);
    }
  } else if (v === undefined || v === null || typeof v !== jsonTypeOfPrimitive(type)) {
    return;
  } else {
    blank = typeof v === 'string' && isBlank(v);
  }
  if (v === undefined || v === null) return;
  if (el.maxLength !== undefined && typeof v === 'string' && v.length > el.maxLength && !blank) {
    node.report('error', 'STRING_TOO_LONG', [el.maxLength]);
  }
  if (el.minLength !== undefined && typeof v === 'string' && v.length < el.minLength && !blank) {
    node.report('error', 'STRING_TOO_SHORT', [v.length, el.minLength]);
  }
  if (el.regex !== undefined && !blank && (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean')) {
    const problem = checkValueRegex(el.regex, type, raw ?? String(v));
    if (problem) node.report(problem.severity, problem.id, problem.args);
  }
  if (el.fixed !== undefined && !deepEqual(v, el.fixed)) {
    node.report('error', 'FIXED_VALUE', [v, describeValue(el.fixed)]);
  }
  if (el.pattern !== undefined && !deepEqual(v, el.pattern)) {
    node.report('error', 'PATTERN_VALUE', [v, describeValue(el.pattern), plan.label]);
  }
  if (el.minValue || el.maxValue) checkPrimitiveRange(ctx, v);
  if (el.binding && !blank && (type === 'code' || type === 'string' || type === 'uri') && typeof v === 'string') {
    checkBinding(ctx, el.binding, type, v);
  }
  if (el.constraints.length) checkConstraints(ctx, el, v);
}

/**
 * XML keeps a primitive's value as text where JSON would have a number or a boolean (the XML
 * reader converts only what reads as one): a value-less element, or text that is not of its type,
 * is reported as HL7 does for XML. True when nothing more is to be checked of the value.
 */
function checkXmlText(ctx: NodeContext, type: string, v: string | undefined, companion: unknown): boolean {
  const { node } = ctx;
  if (v === undefined) {
    if (!hasChildren(companion)) {
      node.report('error', 'PRIMITIVE_NO_VALUE', []);
      // the element is there with neither value nor children: ele-1 fails on it too (HL7 reports both)
      if (ctx.element.constraints.length) checkConstraints(ctx, ctx.element, undefined);
    }
    return true;
  }
  const want = jsonTypeOfPrimitive(type);
  if (want === 'string') return false;
  if (isBlank(v)) {
    if (!hasChildren(companion)) node.report(v.length === 0 ? 'error' : 'warning', v.length === 0 ? 'PRIMITIVE_EMPTY_STRING' : 'PRIMITIVE_WHITESPACE_ONLY', []);
    return true;
  }
  if (want === 'boolean') {
    node.report('error', 'Type_Specific_Checks_DT_Boolean_Value', []);
    return true;
  }
  const options = ctx.services.options;
  const problems = checkPrimitiveValue(type, Number.NaN, { securityChecks: options.securityChecks, allowExampleUrls: options.allowExampleUrls, htmlInMarkdown: options.htmlInMarkdown }, v);
  for (const p of problems) node.report(p.severity, p.id, p.args);
  return true;
}

/**
 * A primitive without a value where the profile asks for one (R5's mustHaveValue) or allows only
 * some extensions in its place (valueAlternatives), as HL7 checks them.
 */
function checkMissingValue(ctx: NodeContext, companion: JsonNode | undefined): void {
  const { element: el, plan, node } = ctx;
  if (el.mustHaveValue) {
    node.report('error', 'PRIMITIVE_MUSTHAVEVALUE_MESSAGE', [el.id, plan.url]);
    return;
  }
  // (extensions not written as a list are not read: the walk reported their shape)
  const extensions = companion?.child('extension');
  const present = extensions?.isList === true && extensions.items().some((e) => {
    const url = e.str('url');
    return url !== undefined && el.valueAlternatives.includes(url);
  });
  if (!present) node.report('error', 'PRIMITIVE_VALUE_ALTERNATIVES_MESSAGE', [el.id, plan.url, el.valueAlternatives.join(', ')]);
}

/** A `_x` companion that holds something (an id or extensions). */
function hasChildren(companion: unknown): boolean {
  if (!isObject(companion)) return false;
  for (const _ in companion) return true;
  return false;
}

/** Blank as Java's StringUtils.isBlank: empty, or whitespace only (Character.isWhitespace). */
function isBlank(s: string): boolean {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c === 32 || (c >= 9 && c <= 13) || (c >= 28 && c <= 31)) continue;
    if (c > 0x1600 && (c === 0x1680 || (c >= 0x2000 && c <= 0x2006) || (c >= 0x2008 && c <= 0x200a) || c === 0x2028 || c === 0x2029 || c === 0x205f || c === 0x3000)) continue;
    return false;
  }
  return true;
}

/** A control character other than tab, line feed and carriage return (one character class: linear). */
// eslint-disable-next-line no-control-regex
const CONTROL_CHARACTER = /[\u0000-\u0008\u000B\u000C\u000E-\u001F]/;

/**
 * Control characters in a text (HL7's UNICODE_XML_BAD_CHARS): illegal in FHIR's XML form and of no
 * valid use; a warning naming them by their hex values, as HL7 lists them (`[1, 1f]`).
 */
function reportControlCharacters(ctx: NodeContext, v: string): void {
  const found = new Set<string>();
  for (let i = 0; i < v.length; i++) {
    const c = v.charCodeAt(i);
    if (c < 32 && c !== 9 && c !== 10 && c !== 13) found.add(c.toString(16));
  }
  const list = `[${[...found].sort().join(', ')}]`;
  ctx.node.report('warning', found.size === 1 ? 'UNICODE_XML_BAD_CHAR' : 'UNICODE_XML_BAD_CHARS', [found.size, list]);
}
