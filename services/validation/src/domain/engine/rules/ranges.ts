/**
 * minValue[x] / maxValue[x]: on primitives (numbers, dates by prefix, dates against a Duration
 * from now) and on Quantities (converted between UCUM units when both are UCUM coded).
 */
import { describeValue } from '../checks/values.js';
import { ucumConverter } from '../checks/ucum.js';
import type { NodeContext } from '../context/node-context.js';
import { isObject } from '../json/json-value.js';

export function checkPrimitiveRange(ctx: NodeContext, v: unknown): void {
  const el = ctx.element;
  const cmp = (a: unknown, b: unknown): number | undefined => {
    if (typeof a === 'number' && typeof b === 'number') return a - b;
    if (typeof a === 'string' && typeof b === 'string') {
      const n = Math.min(a.length, b.length);
      return a.slice(0, n) < b.slice(0, n) ? -1 : a.slice(0, n) > b.slice(0, n) ? 1 : 0;
    }
    return undefined;
  };
  if ((el.minValue?.type === 'Duration' || el.maxValue?.type === 'Duration') && typeof v === 'string') {
    checkDateAgainstDuration(ctx, v);
    return;
  }
  if (el.minValue) {
    const c = cmp(v, el.minValue.value);
    if (c !== undefined && c < 0) {
      const kind = numberKind(el.minValue.type, v);
      if (kind === undefined) ctx.report('error', 'MIN_VALUE', [v, el.minValue.value], ctx.path, ctx.at);
      else ctx.report('error', kind === 'integer' ? 'Type_Specific_Checks_DT_Integer_LT' : 'Type_Specific_Checks_DT_Decimal_LT', [el.minValue.value], ctx.path, ctx.at);
    }
  }
  if (el.maxValue) {
    const c = cmp(v, el.maxValue.value);
    if (c !== undefined && c > 0) {
      const kind = numberKind(el.maxValue.type, v);
      if (kind === undefined) ctx.report('error', 'MAX_VALUE', [v, el.maxValue.value], ctx.path, ctx.at);
      else ctx.report('error', kind === 'integer' ? 'Type_Specific_Checks_DT_Integer_GT' : 'Type_Specific_Checks_DT_Decimal_GT', [el.maxValue.value], ctx.path, ctx.at);
    }
  }
}

/** A number against an integer or decimal limit, as HL7 words it (`integer value is less than permitted minimum value of 1`); other limits keep the general wording. */
function numberKind(limitType: string, v: unknown): 'integer' | 'decimal' | undefined {
  if (typeof v !== 'number') return undefined;
  const t = limitType.toLowerCase();
  if (t === 'integer' || t === 'integer64' || t === 'positiveint' || t === 'unsignedint') return 'integer';
  return t === 'decimal' ? 'decimal' : undefined;
}

/**
 * minValueDuration / maxValueDuration on a date: the date may lie at most that far in the
 * past (min) or in the future (max), counted from now.
 */
function checkDateAgainstDuration(ctx: NodeContext, v: string): void {
  const el = ctx.element;
  const when = Date.parse(v.length === 4 ? `${v}-01-01` : v.length === 7 ? `${v}-01` : v);
  if (Number.isNaN(when)) return;
  const ms = (d: unknown): number | undefined => {
    if (!isObject(d)) return undefined;
    const unitMs: Record<string, number> = { a: 365.25 * 864e5, mo: 30.4375 * 864e5, wk: 7 * 864e5, d: 864e5, h: 36e5, min: 6e4, s: 1e3, ms: 1 };
    const u = unitMs[String(d.code ?? d.unit)];
    return typeof d.value === 'number' && u ? d.value * u : undefined;
  };
  const now = Date.now();
  const { minValue, maxValue } = el;
  const min = minValue?.type === 'Duration' ? ms(minValue.value) : undefined;
  if (minValue && min !== undefined && when < now - min) ctx.report('error', 'MIN_VALUE', [v, describeValue(minValue.value)], ctx.path, ctx.at);
  const max = maxValue?.type === 'Duration' ? ms(maxValue.value) : undefined;
  if (maxValue && max !== undefined && when > now + max) ctx.report('error', 'MAX_VALUE', [v, describeValue(maxValue.value)], ctx.path, ctx.at);
}

export function checkQuantityRange(ctx: NodeContext, v: Record<string, unknown>): void {
  const el = ctx.element;
  const value = v.value;
  if (typeof value !== 'number') return;
  const describe = (q: Record<string, unknown>) => `${String(q.value)}${q.unit ?? q.code ? ` ${String(q.unit ?? q.code)}` : ''}`;
  // the instance value in the limit's units (UCUM conversion when both are UCUM coded)
  let converted = false;
  const inUnitsOf = (q: Record<string, unknown>): number | undefined => {
    if ((q.code ?? q.unit) === (v.code ?? v.unit)) return value;
    converted = true;
    if (q.system === 'http://unitsofmeasure.org' && v.system === 'http://unitsofmeasure.org' && typeof q.code === 'string' && typeof v.code === 'string') {
      return ucumConverter.convert(value, v.code, q.code);
    }
    return undefined;
  };
  const min = el.minValue?.value;
  if (isObject(min) && typeof min.value === 'number') {
    const x = inUnitsOf(min);
    if (x !== undefined && x < min.value) ctx.report('error', converted ? 'MIN_VALUE_UCUM' : 'MIN_VALUE', [describe(v), describe(min)], ctx.path, ctx.at);
  }
  const max = el.maxValue?.value;
  if (isObject(max) && typeof max.value === 'number') {
    const x = inUnitsOf(max);
    if (x !== undefined && x > max.value) ctx.report('error', converted ? 'MAX_VALUE_UCUM' : 'MAX_VALUE', [describe(v), describe(max)], ctx.path, ctx.at);
  }
}
