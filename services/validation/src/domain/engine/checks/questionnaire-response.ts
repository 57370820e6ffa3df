/**
 * QuestionnaireResponse against its Questionnaire (the HL7 validator's business rules):
 * linkIds known, answers only where a question allows them, one answer unless it repeats,
 * answer types, min/max values, lengths, decimal places, regex formats, unit options.
 * The Questionnaire is found by canonical (loaded resources) or, for '#id', among the
 * contained resources.
 */
import { compileLinearRegex, isRegexError } from '../../regex/linear-regex.js';
import type { MessageId } from '../messages.js';

export interface QrProblem {
  id: MessageId;
  args: unknown[];
  path: string;
  severity: 'error' | 'warning';
}

type Obj = Record<string, unknown>;

function isObject(v: unknown): v is Obj {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

const EXT = 'http://hl7.org/fhir/StructureDefinition/';

const ANSWER_TYPES: Record<string, string[]> = {
  boolean: ['boolean'], decimal: ['decimal'], integer: ['integer'], date: ['date'], dateTime: ['dateTime'], time: ['time'],
  string: ['string'], text: ['string'], url: ['uri'], choice: ['Coding'], 'open-choice': ['Coding', 'string'],
  attachment: ['Attachment'], reference: ['Reference'], quantity: ['Quantity'],
};

const SDC = 'http://hl7.org/fhir/uv/sdc/StructureDefinition/';

function ext(item: Obj, name: string): Obj | undefined {
  const list = item.extension;
  if (!Array.isArray(list)) return undefined;
  return list.find((e) => isObject(e) && (e.url === EXT + name || e.url === SDC + name)) as Obj | undefined;
}

function extValue(e: Obj | undefined): unknown {
  if (!e) return undefined;
  for (const k in e) if (k.startsWith('value')) return e[k];
  return undefined;
}

function answerValue(answer: Obj): { type: string; value: unknown } | undefined {
  for (const k in answer) {
    if (k.startsWith('value') && k.length > 5) {
      const t = k.slice(5);
      const lower = t[0].toLowerCase() + t.slice(1);
      const type = ['Attachment', 'Coding', 'Quantity', 'Reference'].includes(t) ? t : lower;
      return { type, value: answer[k] };
    }
  }
  return undefined;
}

function quantityText(q: Obj, withCode: boolean): string {
  const base = `${q.value} ${q.unit ?? q.code ?? ''}`.trim();
  return withCode && typeof q.code === 'string' ? `${base} (UCUM#${q.code})` : base;
}

export interface UnitConverter {
  /** value in `from` units expressed in `to` units; undefined when not convertible. */
  convert(value: number, from: string, to: string): number | undefined;
}

/** The source text of a number property, when the parser kept it (`-5.12340`). */
export type RawNumberLookup = (owner: Obj, key: string) => string | undefined;

interface QrContext {
  units: UnitConverter | undefined;
  rawNumber: RawNumberLookup | undefined;
}

export function checkQuestionnaireResponse(qr: Obj, questionnaire: Obj, path: string, units: UnitConverter | undefined, rawNumber?: RawNumberLookup): QrProblem[] {
  const problems: QrProblem[] = [];
  walkItems(qr.item, questionnaire.item, `${path}`, path, problems, { units, rawNumber });
  return problems;
}

function walkItems(qrItems: unknown, qItems: unknown, parentPath: string, rootPath: string, problems: QrProblem[], ctx: QrContext): void {
  if (!Array.isArray(qrItems)) return;
  const defs = Array.isArray(qItems) ? (qItems.filter(isObject) as Obj[]) : [];
  const seen = new Map<string, number>();
  qrItems.forEach((item, i) => {
    if (!isObject(item)) return;
    const itemPath = `${parentPath}.item[${i}]`;
    const linkId = item.linkId;
    const def = defs.find((d) => d.linkId === linkId);
    if (!def) {
      problems.push({ id: 'QR_LINKID_NOT_FOUND', args: [linkId], path: rootPath, severity: 'error' });
      return;
    }
    const count = (seen.get(String(linkId)) ?? 0) + 1;
    seen.set(String(linkId), count);
    if (count > 1 && def.repeats !== true) problems.push({ id: 'QR_ITEM_ONLY_ONE', args: [], path: itemPath, severity: 'error' });
    const answers = Array.isArray(item.answer) ? (item.answer.filter(isObject) as Obj[]) : [];
    const type = String(def.type ?? '');
    if (answers.length > 0 && (type === 'group' || type === 'display' || type === 'question')) {
      problems.push({ id: type === 'question' ? 'QR_QUESTION_ABSTRACT' : 'QR_NO_ANSWERS_ALLOWED', args: [type], path: itemPath, severity: 'error' });
    } else {
      if (answers.length > 1 && def.repeats !== true) problems.push({ id: 'QR_ITEM_ONLY_ONE', args: [], path: itemPath, severity: 'error' });
      answers.forEach((answer, j) => checkAnswer(answer, def, `${itemPath}.answer[${j}]`, problems, ctx));
    }
    walkItems(item.item, def.item, itemPath, rootPath, problems, ctx);
    answers.forEach((answer, j) => walkItems(answer.item, def.item, `${itemPath}.answer[${j}]`, rootPath, problems, ctx));
  });
}

function compare(a: unknown, b: unknown): number | undefined {
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  if (typeof a === 'string' && typeof b === 'string') return a < b ? -1 : a > b ? 1 : 0;
  return undefined;
}

function checkAnswer(answer: Obj, def: Obj, path: string, problems: QrProblem[], ctx: QrContext): void {
  const units = ctx.units;
  const av = answerValue(answer);
  if (!av) return;
  const valuePath = `${path}.value.ofType(${av.type})`;
  const allowed = ANSWER_TYPES[String(def.type)];
  if (allowed && !allowed.includes(av.type)) {
    problems.push({ id: 'QR_ANSWER_TYPE', args: [allowed[0], av.type], path: valuePath, severity: 'error' });
    return;
  }
  const v = av.value;
  const min = extValue(ext(def, 'minValue'));
  const max = extValue(ext(def, 'maxValue'));
  if (av.type === 'Quantity' && isObject(v)) {
    checkQuantity(v, min ?? extValue(ext(def, 'sdc-questionnaire-minQuantity')), 'minimum', valuePath, problems, units);
    checkQuantity(v, max ?? extValue(ext(def, 'sdc-questionnaire-maxQuantity')), 'maximum', valuePath, problems, units);
    const options = (Array.isArray(def.extension) ? def.extension : []).filter((e) => isObject(e) && e.url === EXT + 'questionnaire-unitOption').map((e) => (e as Obj).valueCoding as Obj);
    if (options.length && !options.some((o) => isObject(o) && o.code === v.code && (o.system === undefined || o.system === v.system))) {
      problems.push({ id: 'QR_UNIT_NOT_ALLOWED', args: [quantityText(v, true), options.map((o) => `${o.display ?? o.code} (UCUM#${o.code})`).join(',')], path: valuePath, severity: 'error' });
    }
  } else {
    if (min !== undefined) {
      const c = compare(v, min);
      if (c !== undefined && c < 0) problems.push({ id: 'QR_VALUE_BELOW_MIN', args: [v, min], path: valuePath, severity: 'error' });
    }
    if (max !== undefined) {
      const c = compare(v, max);
      if (c !== undefined && c > 0) problems.push({ id: 'QR_VALUE_ABOVE_MAX', args: [v, max], path: valuePath, severity: 'error' });
    }
  }
  if (typeof v === 'string') {
    const minLength = extValue(ext(def, 'minLength'));
    if (typeof minLength === 'number' && v.length < minLength) problems.push({ id: 'QR_TOO_SHORT', args: [v, minLength], path: valuePath, severity: 'error' });
    if (typeof def.maxLength === 'number' && v.length > def.maxLength) problems.push({ id: 'QR_TOO_LONG', args: [v, def.maxLength], path: valuePath, severity: 'error' });
    const regex = extValue(ext(def, 'regex'));
    if (typeof regex === 'string') {
      // the Questionnaire may come with the submission: its pattern runs on RE2 (linear time)
      const re = compileLinearRegex(regex);
      if (isRegexError(re)) problems.push({ id: 'REGEX_EXCEPTION', args: [regex, av.type, re.error], path: valuePath, severity: 'warning' });
      else if (!re.matchesWhole(v)) problems.push({ id: 'QR_REGEX', args: [v, extValue(ext(def, 'entryFormat')) ?? '', regex], path: valuePath, severity: 'error' });
    }
  }
  if (typeof v === 'number' && av.type === 'decimal') {
    const places = extValue(ext(def, 'maxDecimalPlaces'));
    const text = ctx.rawNumber?.(answer, 'valueDecimal') ?? String(v);
    const decimals = text.includes('.') ? text.length - text.indexOf('.') - 1 : 0;
    if (typeof places === 'number' && decimals > places) problems.push({ id: 'QR_DECIMAL_PLACES', args: [text, places], path: valuePath, severity: 'error' });
  }
}

function checkQuantity(v: Obj, limit: unknown, which: 'minimum' | 'maximum', path: string, problems: QrProblem[], units: UnitConverter | undefined): void {
  if (!isObject(limit) || typeof limit.value !== 'number' || typeof v.value !== 'number') return;
  const formal = (q: Obj) => q.system === 'http://unitsofmeasure.org' && typeof q.code === 'string';
  const below = which === 'minimum';
  if (!formal(v) || !formal(limit)) {
    // (the HL7 wording names the limit first here)
    problems.push({ id: below ? 'QR_QTY_MIN_NO_UNITS' : 'QR_QTY_MAX_NO_UNITS', args: [quantityText(limit, false), quantityText(v, false)], path, severity: 'error' });
    return;
  }
  let value = v.value;
  if (v.code !== limit.code) {
    const converted = units?.convert(v.value, String(v.code), String(limit.code));
    if (converted === undefined) {
      problems.push({ id: below ? 'QR_QTY_MIN_INCOMPATIBLE' : 'QR_QTY_MAX_INCOMPATIBLE', args: [quantityText(limit, true), quantityText(v, true)], path, severity: 'error' });
      return;
    }
    value = converted;
  }
  if (below ? value < limit.value : value > limit.value) {
    problems.push({ id: below ? 'QR_QTY_BELOW_MIN' : 'QR_QTY_ABOVE_MAX', args: [quantityText(v, true), quantityText(limit, true)], path, severity: 'error' });
  }
}
