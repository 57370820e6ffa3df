/**
 * A Quantity answer against its item: the minimum and maximum (minValue/maxValue with a
 * Quantity, or the SDC min/maxQuantity extensions) compared in the same units or after UCUM
 * conversion, maxDecimalPlaces, the unit options and the unit value set. Quantities are shown
 * as the HL7 validator shows them: `10000 m (UCUM#m)`.
 */
import type { ValidateCodeResult } from '#validation/domain/ports/terminology.js';
import type { JsonNode } from '../../json/json-node.js';
import { isObject } from '../../json/json-value.js';
import { decimalPlaces, EXT, extensions, extensionValue, type Obj } from './questionnaire-model.js';
import type { ResponseScope } from './response-scope.js';

const UCUM = 'http://unitsofmeasure.org';

function systemName(system: unknown): string {
  if (typeof system !== 'string' || system === '') return '';
  return system === UCUM ? 'UCUM' : system === 'http://snomed.info/sct' ? 'SNOMED' : system;
}

/** `<comparator><value> <unit> (<system>#<code>)`, the parts present. */
function quantityText(scope: ResponseScope, q: Obj): string {
  const value = scope.rawNumber(q, 'value') ?? String(q.value);
  const coded = q.system !== undefined || q.code !== undefined ? ` (${systemName(q.system)}#${q.code ?? ''})` : '';
  return `${typeof q.comparator === 'string' ? q.comparator : ''}${value}${typeof q.unit === 'string' ? ' ' + q.unit : ''}${coded}`;
}

function codingText(c: Obj): string {
  const coded = c.system !== undefined || c.code !== undefined ? ` (${systemName(c.system)}#${c.code ?? ''})` : '';
  return `${typeof c.display === 'string' ? c.display : ''}${coded}`;
}

/** Where a Quantity answer's value is reported: HL7's name for it, and its node. */
interface ValuePlace {
  readonly path: string;
  readonly node: JsonNode | undefined;
}

export function checkQuantity(scope: ResponseScope, def: Obj, v: Obj, place: ValuePlace): void {
  const report = (id: Parameters<ResponseScope['error']>[0], args: readonly unknown[]) => {
    scope.error(id, args, place.path, place.node);
  };
  if (typeof v.comparator === 'string') {
    // the HL7 validator reads the comparator by its Java enum name (LESS_THAN), so `<` stops the
    // checks with an error before the limits and units are looked at
    report('QR_VALUE_UNREADABLE', [`the comparator '${v.comparator}' cannot be read`]);
    return;
  }
  for (const below of [true, false]) {
    const limit = extensionValue(def, below ? EXT.minValue : EXT.maxValue) ?? extensionValue(def, below ? EXT.minQuantity : EXT.maxQuantity);
    if (!isObject(limit) || typeof limit.value !== 'number' || typeof v.value !== 'number') continue;
    compareToLimit(scope, v, limit, below, report);
  }
  const places = extensionValue(def, EXT.maxDecimalPlaces);
  if (typeof places === 'number' && typeof v.value === 'number') {
    const text = scope.rawNumber(v, 'value') ?? String(v.value);
    if (decimalPlaces(text) > places) report('QR_DECIMAL_PLACES', [text, places]);
  }
  const options = extensions(def, EXT.unitOption).map((e) => e.valueCoding).filter(isObject);
  if (options.length > 0 && !options.some((o) => unitMatches(v, o))) report('QR_UNIT_NOT_ALLOWED', [quantityText(scope, v), options.map(codingText).join(',')]);
  const unitValueSet = extensionValue(def, EXT.unitValueSet);
  if (typeof unitValueSet === 'string') checkUnitValueSet(scope, v, unitValueSet, place);
}

function compareToLimit(scope: ResponseScope, v: Obj, limit: Obj, below: boolean, report: (id: Parameters<ResponseScope['error']>[0], args: readonly unknown[]) => void): void {
  const coded = (q: Obj) => typeof q.system === 'string' && typeof q.code === 'string';
  if (!coded(v) || !coded(limit)) {
    report(below ? 'QR_QTY_MIN_NO_UNITS' : 'QR_QTY_MAX_NO_UNITS', [quantityText(scope, limit), quantityText(scope, v)]);
    return;
  }
  if (typeof v.value !== 'number' || typeof limit.value !== 'number') return; // the caller checked both
  let value = v.value;
  const sameUnit = v.system === limit.system && v.code === limit.code;
  if (!sameUnit) {
    const converted = v.system === UCUM && limit.system === UCUM ? scope.units.convert(value, String(v.code), String(limit.code)) : undefined;
    if (converted === undefined) {
      report(below ? 'QR_QTY_MIN_INCOMPATIBLE' : 'QR_QTY_MAX_INCOMPATIBLE', [quantityText(scope, limit), quantityText(scope, v)]);
      return;
    }
    value = converted;
  }
  // A minimum is a minimum, in the answer's own units as after UCUM conversion. (The HL7 validator's
  // same-unit minimum compares the wrong way round; we compare as the extension means.)
  const outside = below ? value < limit.value : value > limit.value;
  if (outside) {
    report(below ? 'QR_QTY_BELOW_MIN' : 'QR_QTY_ABOVE_MAX', [quantityText(scope, v), quantityText(scope, limit)]);
  }
}

/** As the HL7 validator: each part the option gives must match (its display against the unit). */
function unitMatches(q: Obj, option: Obj): boolean {
  return (option.system === undefined || option.system === q.system) && (option.code === undefined || option.code === q.code) && (option.display === undefined || option.display === q.unit);
}

function checkUnitValueSet(scope: ResponseScope, v: Obj, valueSet: string, place: ValuePlace): void {
  const { ctx } = scope;
  if (!ctx.services.source.valueSet(valueSet)) {
    scope.report('warning', 'QR_UNIT_VALUE_SET_NOT_FOUND', [valueSet], place.path, place.node);
    return;
  }
  // as for string answers, a unit the terminology cannot confirm is an error (HL7: any answer but "ok")
  const apply = (r: ValidateCodeResult) => {
    if (r.valid !== true) scope.error('QR_UNIT_NOT_IN_VALUE_SET', [quantityText(scope, v), valueSet], place.path, place.node);
  };
  // no unit code is no member of the unit value set (HL7 asks the terminology with none)
  if (typeof v.code !== 'string') {
    apply({ valid: false, issues: [], source: 'local' });
    return;
  }
  const coding = { system: typeof v.system === 'string' ? v.system : undefined, code: v.code };
  try {
    const answer = ctx.services.terminology.validateCode({ valueSet, coding, elementKind: 'Quantity', authorization: ctx.run.authorization });
    if (answer instanceof Promise) ctx.run.pending.push(answer.then(apply, () => undefined));
    else apply(answer);
  } catch {
    // a terminology failure leaves the unit unjudged
  }
}
