/**
 * One answer against its Questionnaire item, by item type, as the HL7 validator's
 * QuestionnaireValidator checks it: the answer's type, then the item's limits on the value
 * (minValue/maxValue, maxDecimalPlaces, minLength/maxLength, regex, units, attachment type and
 * size, reference target types) and, for typed items with answerOptions, membership. Choice
 * items go to answer-options.ts. Where the HL7 validator reports at the answer rather than at its
 * value (attachments, options of choice items) we do too.
 */
import { compileLinearRegex, isRegexError } from '#validation/domain/regex/linear-regex.js';
import { isObject } from '../../json/json-value.js';
import { checkChoiceAnswer, checkStringInValueSet, type AnswerUnderCheck } from './answer-options.js';
import { checkQuantity } from './answer-quantity.js';
import { choiceValue, decimalPlaces, EXT, extensions, extensionValue, instantOf, objects, typeOfSuffix, type Obj } from './questionnaire-model.js';
import type { ResponseScope } from './response-scope.js';

/** Answer value types each R4 item type takes (text answers valueString, url valueUri). */
const ANSWER_TYPES = new Map<string, readonly string[]>([
  ['boolean', ['boolean']], ['decimal', ['decimal']], ['integer', ['integer']], ['date', ['date']], ['dateTime', ['dateTime']],
  ['time', ['time']], ['string', ['string']], ['text', ['string']], ['url', ['uri']], ['attachment', ['Attachment']],
  ['reference', ['Reference']], ['quantity', ['Quantity']],
  ['choice', ['Coding', 'date', 'time', 'integer', 'string']], ['open-choice', ['Coding', 'date', 'time', 'integer', 'string']],
]);

/** One answer of a response item answering its item (`a.def`). */
export function checkAnswer(a: AnswerUnderCheck): void {
  const { scope, def, answer, answerPath } = a;
  const itemType = typeof def.type === 'string' ? def.type : '';
  const allowed = ANSWER_TYPES.get(itemType);
  const found = choiceValue(answer);
  if (!allowed || !found) return;
  const type = typeOfSuffix(found.suffix);
  const valuePath = `${answerPath}.value.ofType(${type})`;
  const v = found.value;
  const value = a.node.child(`value${found.suffix}`);
  const at: Report = (message, args) => {
    scope.error(message, args, valuePath, value);
  };
  if (!allowed.includes(type)) {
    if (allowed.length === 1) at('QR_ANSWER_TYPE', [allowed[0], type]);
    else at('QR_ANSWER_TYPES', [allowed.join(', '), type]);
    checkWrongTyped(a, found, valuePath, at);
    return;
  }
  switch (itemType) {
    case 'decimal':
    case 'integer':
      if (typeof v === 'number') checkNumber(a, type, v, at);
      break;
    case 'date':
    case 'dateTime':
      if (typeof v === 'string') checkDate(scope, def, v, at);
      break;
    case 'time':
      if (typeof v === 'string') checkTime(scope, def, v, at);
      break;
    case 'string':
      if (typeof v === 'string') checkString(scope, def, v, valuePath, at);
      break;
    case 'attachment':
      checkAttachment(a, isObject(v) ? v : {});
      break;
    case 'reference':
      if (isObject(v)) checkReference(scope, def, v, at);
      break;
    case 'quantity':
      if (isObject(v)) checkQuantity(scope, def, v, { path: valuePath, node: value });
      break;
    case 'choice':
    case 'open-choice':
      checkChoiceAnswer(a, type, v);
      break;
    default:
      break;
  }
}

type Report = (id: Parameters<ResponseScope['error']>[0], args: readonly unknown[]) => void;

/**
 * An answer of another type than its item takes: the HL7 validator reports the type and then
 * still applies the item's value rules that do not look at the type (string lengths, format and
 * options on any primitive; dates and times read from any primitive, one that is not a date
 * being an error of its own; an attachment's content type and size on whatever the value is).
 * Numbers, quantities, references and choices are only checked when the type is right.
 */
function checkWrongTyped(a: AnswerUnderCheck, found: { suffix: string; value: unknown }, valuePath: string, at: Report): void {
  const { scope, def, answer } = a;
  const itemType = typeof def.type === 'string' ? def.type : '';
  const v = found.value;
  const text = typeof v === 'number' ? scope.rawNumber(answer, `value${found.suffix}`) ?? String(v) : typeof v === 'string' || typeof v === 'boolean' ? String(v) : undefined;
  switch (itemType) {
    case 'string':
      if (text !== undefined) checkString(scope, def, text, valuePath, at);
      break;
    case 'date':
    case 'dateTime':
      if (text !== undefined) checkDate(scope, def, text, at);
      break;
    case 'time':
      if (text !== undefined) checkTime(scope, def, text, at);
      break;
    case 'attachment':
      checkAttachment(a, isObject(v) ? v : {});
      break;
    default:
      break;
  }
}

/** The limit an extension sets, as written (`20`, `5.5`, `2022-06`), with its value. */
function limitOf(scope: ResponseScope, def: Obj, url: string): { text: string; value: unknown } | undefined {
  const ext = extensions(def, url)[0];
  const found = choiceValue(ext);
  if (!ext || !found) return undefined;
  const raw = typeof found.value === 'number' ? scope.rawNumber(ext, `value${found.suffix}`) : undefined;
  return { text: raw ?? String(found.value), value: found.value };
}

/**
 * As the HL7 validator reads the limits: as written, as an integer for integer items (5.0 is
 * not one) and a decimal for decimal items; the first limit it cannot read ends the comparisons
 * (and the decimal places check) with an error, as its exception does.
 */
function checkNumber(a: AnswerUnderCheck, type: string, v: number, at: Report): void {
  const { scope, def, answer } = a;
  const text = scope.rawNumber(answer, type === 'integer' ? 'valueInteger' : 'valueDecimal') ?? String(v);
  const pattern = type === 'integer' ? /^[+-]?\d{1,10}$/ : /^[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?$/;
  let readable = true;
  for (const [url, below] of [[EXT.minValue, true], [EXT.maxValue, false]] as const) {
    const limit = limitOf(scope, def, url);
    if (!limit) continue;
    if (!pattern.test(limit.text)) {
      at('QR_VALUE_UNREADABLE', [`'${limit.text}' is not a valid ${type}`]);
      readable = false;
      break;
    }
    const bound = Number(limit.text);
    if (below ? v < bound : v > bound) at(below ? 'QR_VALUE_BELOW_MIN' : 'QR_VALUE_ABOVE_MAX', [text, limit.text]);
  }
  if (type === 'decimal' && readable) {
    const places = extensionValue(def, EXT.maxDecimalPlaces);
    if (typeof places === 'number' && decimalPlaces(text) > places) at('QR_DECIMAL_PLACES', [text, places]);
  }
  checkPrimitiveOption(scope, def, type, text, at);
}

/**
 * As the HL7 validator: the answer is read as a dateTime first (one that is not is an error, and
 * the limits are not looked at), then each limit in turn (the first that is not a date ends the
 * comparisons, with an error).
 */
function checkDate(scope: ResponseScope, def: Obj, v: string, at: Report): void {
  const instant = instantOf(v);
  if (instant === undefined) at('QR_VALUE_UNREADABLE', [`'${v}' is not a valid date/time`]);
  else {
    for (const [url, below] of [[EXT.minValue, true], [EXT.maxValue, false]] as const) {
      const limit = limitOf(scope, def, url);
      if (!limit) continue;
      const bound = instantOf(limit.text);
      if (bound === undefined) {
        at('QR_VALUE_UNREADABLE', [`'${limit.text}' cannot be compared to the date '${v}'`]);
        break;
      }
      // partial dates compare by their first instant: 2022-06-30 is after a maximum of 2022-06
      if (below ? bound > instant : bound < instant) at(below ? 'QR_VALUE_BELOW_MIN' : 'QR_VALUE_ABOVE_MAX', [v, limit.text]);
    }
  }
  // the HL7 validator takes date options for dateTime items too
  checkPrimitiveOption(scope, def, 'date', v, at);
}

function checkTime(scope: ResponseScope, def: Obj, v: string, at: Report): void {
  for (const [url, below] of [[EXT.minValue, true], [EXT.maxValue, false]] as const) {
    const limit = extensionValue(def, url);
    if (typeof limit !== 'string') continue;
    if (below ? v < limit : v > limit) at(below ? 'QR_VALUE_BELOW_MIN' : 'QR_VALUE_ABOVE_MAX', [v, limit]);
  }
  checkPrimitiveOption(scope, def, 'time', v, at);
}

function checkString(scope: ResponseScope, def: Obj, v: string, valuePath: string, at: Report): void {
  // integer limits are read as HL7's readIntegerExtension reads them: a decimal truncated
  const minLength = extensionValue(def, EXT.minLength);
  if (typeof minLength === 'number' && minLength >= 0 && v.length < Math.trunc(minLength)) at('QR_TOO_SHORT', [v, Math.trunc(minLength)]);
  if (typeof def.maxLength === 'number' && def.maxLength >= 0 && v.length > def.maxLength) at('QR_TOO_LONG', [v, def.maxLength]);
  const regex = extensionValue(def, EXT.regex);
  if (typeof regex === 'string') {
    // the Questionnaire may come with the submission: its pattern runs on RE2 (linear time)
    const re = compileLinearRegex(regex);
    const format = extensionValue(def, EXT.entryFormat);
    if (isRegexError(re)) scope.report('warning', 'REGEX_EXCEPTION', [regex, 'string', re.error], valuePath, undefined);
    else if (!re.matchesWhole(v)) at('QR_REGEX', [v, regex, typeof format === 'string' ? format : '']);
  }
  if (v.includes('\n') || v.includes('\r')) scope.report('warning', 'QR_STRING_LINE_BREAKS', [v], valuePath, undefined);
  if (typeof def.answerValueSet === 'string') checkStringInValueSet(scope, def.answerValueSet, v, valuePath);
  checkPrimitiveOption(scope, def, 'string', v, at);
}

/**
 * A typed item with answerOptions: the answer must be one of the options of its type, compared
 * as written (as the HL7 validator compares primitive values: the decimal 1.50 is not the option
 * 1.5). Number items take integer and decimal options alike.
 */
function checkPrimitiveOption(scope: ResponseScope, def: Obj, type: string, text: string, at: Report): void {
  const options = objects(def.answerOption);
  if (options.length === 0) return;
  const numeric = type === 'integer' || type === 'decimal';
  const texts: string[] = [];
  for (const option of options) {
    const o = choiceValue(option);
    if (!o) continue;
    const optionType = typeOfSuffix(o.suffix);
    const fits = optionType === type || (numeric && (optionType === 'integer' || optionType === 'decimal'));
    if (!fits) continue;
    if (typeof o.value === 'number') texts.push(scope.rawNumber(option, `value${o.suffix}`) ?? String(o.value));
    else if (typeof o.value === 'string') texts.push(o.value);
  }
  if (texts.length === 0) at('QR_NO_OPTIONS_OF_TYPE', [type]);
  else if (!texts.includes(text)) at('QR_NOT_AN_OPTION', [type, text]);
}

/** An attachment's content type and size, reported at the answer (as HL7 reports them). */
function checkAttachment(a: AnswerUnderCheck, attachment: Obj): void {
  const { scope, def, answerPath, node } = a;
  const allowed = extensions(def, EXT.mimeType).map((e) => e.valueCode).filter((c): c is string => typeof c === 'string');
  if (allowed.length > 0) {
    const contentType = attachment.contentType;
    if (typeof contentType !== 'string') scope.error('QR_ATTACHMENT_NO_CONTENT_TYPE', [], answerPath, node);
    // a prefix matches: 'image/' allows image/png
    else if (!allowed.some((a) => contentType.startsWith(a))) scope.error('QR_ATTACHMENT_CONTENT_TYPE', [contentType, allowed.join(', ')], answerPath, node);
  }
  const rawMaxSize = extensionValue(def, EXT.maxSize);
  const maxSize = typeof rawMaxSize === 'number' ? Math.trunc(rawMaxSize) : 0;
  if (maxSize > 0 && typeof attachment.data === 'string') {
    const size = base64Length(attachment.data);
    // maxSize is the largest allowed size (HL7's code refuses data of exactly maxSize; we keep the
    // extension's meaning)
    if (size > maxSize) scope.error('QR_ATTACHMENT_SIZE', [maxSize, size], answerPath, node);
  }
}

/** Bytes a base64 text decodes to (whitespace ignored), counted without decoding. */
export function base64Length(data: string): number {
  let chars = 0;
  let padding = 0;
  for (let i = 0; i < data.length; i++) {
    const c = data.charCodeAt(i);
    if (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) continue;
    chars++;
    if (c === 0x3d) padding++;
  }
  return Math.max(0, Math.floor((chars * 3) / 4) - padding);
}

function checkReference(scope: ResponseScope, def: Obj, value: Obj, at: Report): void {
  const ref = value.reference;
  // as the HL7 validator: target types are judged only when RESTful references are assumed valid
  if (typeof ref !== 'string' || ref.startsWith('#') || !scope.ctx.run.options.assumeValidRestReferences) return;
  const allowed = extensions(def, EXT.referenceResource).map((e) => e.valueCode).filter((c): c is string => typeof c === 'string');
  if (allowed.length === 0) return;
  const type = resourceTypeIn(scope, ref);
  if (type === undefined) at('QR_REFERENCE_TARGET_UNKNOWN', [ref]);
  else if (!allowed.includes(type)) at('QR_REFERENCE_TARGET', [type, ref, allowed.join(',')]);
}

/** The resource type a reference names: its last path segment that is one (`.../Patient/1` → Patient). */
function resourceTypeIn(scope: ResponseScope, ref: string): string | undefined {
  const path = ref.split('?')[0] ?? '';
  for (const s of path.split('/').reverse()) {
    if (!/^[A-Z][A-Za-z]{1,63}$/.test(s)) continue; // linear: one character class
    const sd = scope.ctx.services.source.structureDefinition(`http://hl7.org/fhir/StructureDefinition/${s}`);
    if (sd && sd.kind === 'resource') return s;
  }
  return undefined;
}
