/**
 * fixed[x] and pattern[x] on a complex value (primitives compare in rules/primitive-values.ts),
 * as the HL7 validator's checkFixedValue: the comparison descends into the value and reports
 * each difference where it is (`Patient.identifier[0].system`), not once for the whole value.
 * - a primitive inside differs: `Value is 'x' but must be 'y'`;
 * - the fixed/pattern value has an element the instance lacks: a missing element;
 * - fixed only: the instance has an element the fixed value lacks (extensions: not allowed at
 *   all when the fixed value has none);
 * - repeating elements: as many in the instance as in the fixed/pattern value, compared in
 *   order; except the codings of a CodeableConcept pattern, where each pattern coding must be
 *   matched by at least one coding of the instance (one error per pattern coding not found).
 */
import { describeValue } from '../checks/values.js';
import type { NodeContext } from '../context/node-context.js';
import { formatMessage, type MessageId } from '../messages.js';

interface Problem {
  id: MessageId;
  args: unknown[];
  path: string;
}

export function checkFixed(ctx: NodeContext, v: unknown, fixed: unknown): void {
  report(ctx, v, fixed, false);
}

export function checkPattern(ctx: NodeContext, v: unknown, pattern: unknown): void {
  report(ctx, v, pattern, true);
}

/**
 * One comparison, as it descends: pattern (true) or fixed, the structure named in messages, and
 * where the problems go. One object for the whole descent.
 */
interface Comparison {
  readonly pattern: boolean;
  readonly source: string;
  readonly out: Problem[];
}

function report(ctx: NodeContext, v: unknown, expected: unknown, pattern: boolean): void {
  const problems: Problem[] = [];
  compareValue(v, expected, ctx.path, { pattern, source: ctx.plan.label, out: problems });
  for (const p of problems) ctx.report('error', p.id, p.args, p.path, ctx.at);
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Compares one value (the instance's `focus`) with the fixed/pattern value; problems go to `out`. */
function compareValue(focus: unknown, expected: unknown, path: string, cmp: Comparison): void {
  const { pattern, source, out } = cmp;
  if (!isRecord(expected)) {
    if (isRecord(focus) || Array.isArray(focus) || String(focus) !== String(expected)) {
      out.push({ id: 'FIXED_VALUE', args: [describeValue(focus), describeValue(expected)], path });
    }
    return;
  }
  if (!isRecord(focus)) {
    out.push({ id: 'FIXED_VALUE', args: [describeValue(focus), describeValue(expected)], path });
    return;
  }
  for (const key in expected) {
    if (key === 'id' || key.charCodeAt(0) === 95 /* _ */) continue;
    const e = expected[key];
    const f = focus[key];
    if (key === 'extension') continue; // below
    if (f === undefined) {
      out.push({ id: 'FIXED_MISSING_ELEMENT', args: [key, source], path: `${path}.${key}` });
      continue;
    }
    if (Array.isArray(e) || Array.isArray(f)) compareList(key, Array.isArray(f) ? f : [f], Array.isArray(e) ? e : [e], path, cmp);
    else compareValue(f, e, `${path}.${key}`, cmp);
  }
  if (pattern) return;
  for (const key in focus) {
    if (key === 'id' || key === 'extension' || key.charCodeAt(0) === 95 || key in expected) continue;
    out.push({ id: 'FIXED_NOT_ALLOWED', args: [key, 'fixed value'], path: `${path}.${key}` });
  }
  const extensions = focus.extension;
  if (expected.extension === undefined && Array.isArray(extensions) && extensions.length > 0) {
    out.push({ id: 'FIXED_EXTENSIONS_BANNED', args: [], path });
  }
}

function compareList(key: string, focus: unknown[], expected: unknown[], path: string, cmp: Comparison): void {
  const { pattern, source, out } = cmp;
  const itemPath = `${path}.${key}`;
  if (pattern && key === 'coding') {
    if (focus.length < expected.length) {
      out.push({ id: 'FIXED_COUNT', args: [expected.length, focus.length, key], path });
      return;
    }
    for (const e of expected) {
      const failures: Problem[] = [];
      const eachCoding: Comparison = { pattern: true, source, out: failures };
      let found = false;
      for (const f of focus) {
        const before = failures.length;
        compareValue(f, e, itemPath, eachCoding);
        if (failures.length === before) {
          found = true;
          break;
        }
      }
      if (!found) {
        const c = isRecord(e) ? e : {};
        out.push({ id: 'PATTERN_CODING_NOT_FOUND', args: [c.system, c.code, c.display ?? '', source, failures.map((p) => `${p.path}: ${formatMessage(p.id, p.args)}`).join(', ')], path });
      }
    }
    return;
  }
  if (focus.length !== expected.length) {
    out.push({ id: 'FIXED_COUNT', args: [expected.length, focus.length, key], path });
    return;
  }
  for (let i = 0; i < focus.length; i++) compareValue(focus[i], expected[i], itemPath, cmp);
}
