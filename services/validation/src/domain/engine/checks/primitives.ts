/**
 * Value-space checks of the FHIR R4 primitive datatypes, worded as the HL7 validator words
 * them. Each check returns the problems found (usually none) without allocating on the
 * happy path.
 */
import type { MessageId } from '../messages.js';
import { isExampleUrl } from './urls.js';

export interface PrimitiveProblem {
  id: MessageId;
  args: unknown[];
  severity: 'error' | 'warning' | 'information';
}

const NONE: readonly PrimitiveProblem[] = Object.freeze([]);

/*
 * The syntax patterns below are the FHIR primitive types' own regexes, written so that V8's
 * backtracking engine runs them in linear time; each says why where it is defined. They are
 * fixed (never built from data), so that argument holds for every input.
 */
const YEAR = '([0-9]([0-9]([0-9][1-9]|[1-9]0)|[1-9]00)|[1-9]000)';
const TZ = '(Z|(\\+|-)((0[0-9]|1[0-3]):[0-5][0-9]|14:00))';
const TIME = '([01][0-9]|2[0-3]):[0-5][0-9]:([0-5][0-9]|60)(\\.[0-9]+)?';
// Linear (date/time patterns): anchored; fixed-width digit fields, each optional part opens with its own literal
// ('-', 'T', ':', '.', 'Z'/'+'/'-'), and the one unbounded run (fraction digits) is followed by a non-digit.
const DATE_RE = new RegExp(`^${YEAR}(-(0[1-9]|1[0-2])(-(0[1-9]|[1-2][0-9]|3[0-1]))?)?$`);
const DATETIME_RE = new RegExp(`^${YEAR}(-(0[1-9]|1[0-2])(-(0[1-9]|[1-2][0-9]|3[0-1])(T${TIME}${TZ}?)?)?)?$`);
// an instant's year is any four digits (0000 too), as the HL7 validator's pattern
const INSTANT_RE = new RegExp(`^-?[0-9]{4}-(0[1-9]|1[0-2])-(0[1-9]|[1-2][0-9]|3[0-1])T${TIME}${TZ}$`);
// the time type takes no fraction of a second (as the HL7 validator's pattern)
// Linear: anchored, fixed-width fields.
const TIME_RE = /^([01][0-9]|2[0-3]):[0-5][0-9]:([0-5][0-9]|60)$/;
const TIME_WITH_FRACTION_RE = new RegExp(`^${TIME}$`);
// Linear: anchored, one character class, at most 64 repetitions.
const ID_RE = /^[A-Za-z0-9\-.]{1,64}$/;
// Linear: anchored; every repetition opens with '.', which its digits cannot match, and "0" and "[1-9]..." differ at the first digit.
const OID_RE = /^urn:oid:[0-2](\.(0|[1-9][0-9]*))+$/;
// Linear: anchored, fixed length.
const UUID_RE = /^urn:uuid:[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
// Linear: anchored; groups of exactly four characters, so each position has one reading, and the tail is fixed-width.
const BASE64_RE = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
// Linear: anchored; the digit runs are separated by '.', 'e'/'E' that they cannot match.
const DECIMAL_RE = /^-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?$/;
// Linear: '<', whitespace, a fixed word; the whitespace runs after different '<' never overlap. The tag's
// closing '>' is looked up with indexOf (a `[^>]*>` here would rescan to the end from every '<': quadratic).
const HTML_TAG_START_RE = /<\s*(script|iframe|object|embed|img|a|form|input|style|link|meta|div|span|p|b|i)\b/i;
// Linear: a '<' and a fixed word.
// markdown renders a '<' that starts a tag (a name, '/' or '!' after it) as HTML unless escaped with '\\';
// linear: a fixed three-character window at each position
const MARKDOWN_HTML_RE = /(?:^|[^\\])<[A-Za-z/!]/;
const MAX_STRING = 1024 * 1024;

const DAYS = [31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
function dayExists(s: string): boolean {
  if (s.length < 10) return true;
  const y = Number(s.slice(0, 4));
  const m = Number(s.slice(5, 7));
  const d = Number(s.slice(8, 10));
  const days = DAYS[m - 1];
  if (days !== undefined && d > days) return false;
  if (m === 2 && d === 29) return (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0;
  return true;
}

function one(id: MessageId, args: unknown[], severity: PrimitiveProblem['severity'] = 'error'): PrimitiveProblem[] {
  return [{ id, args, severity }];
}

/** The JSON type a primitive must be written as. */
export function jsonTypeOfPrimitive(type: string): 'boolean' | 'number' | 'string' {
  switch (type) {
    case 'boolean': return 'boolean';
    case 'integer': case 'unsignedInt': case 'positiveInt': case 'decimal': return 'number';
    default: return 'string';
  }
}

export interface PrimitiveCheckOptions {
  /** Report text that looks like HTML in strings (the HL7 validator's security checks). */
  securityChecks: boolean;
  /**
   * Accept URLs on example hosts (example.org, example.com, acme.com). The HL7 validator refuses them
   * when told to (`-allow-example-urls false`): real submissions should not point at example hosts.
   */
  allowExampleUrls?: boolean;
  /** How markdown with embedded HTML is reported (the HL7 validator's `-html-in-markdown`; default a warning). */
  htmlInMarkdown?: 'error' | 'warning' | 'none';
}

/** Hosts the HL7 validator treats as examples (it tests `contains`, so do we). Linear: fixed words. */

/**
 * Check the value space of one primitive value. `value` has already been checked to be the
 * right JSON type.
 */
export function checkPrimitiveValue(type: string, value: string | number | boolean, options: PrimitiveCheckOptions, rawNumber?: string): readonly PrimitiveProblem[] {
  switch (type) {
    case 'boolean':
      return NONE;
    case 'integer':
    case 'unsignedInt':
    case 'positiveInt': {
      // judged on the text as written (leading zeros are fine, a fraction or exponent is not)
      const n = Number(value); // a number here (the caller checked the JSON type); Number() as `>` would coerce
      const text = rawNumber ?? String(value);
      if (!isIntegerText(text)) return one('INTEGER_INVALID', [text]);
      if (type === 'positiveInt' && !(n > 0)) return one('INTEGER_RANGE_POS', [text]);
      if (type === 'unsignedInt' && n < 0) return one('INTEGER_RANGE_UNSIGNED', [text]);
      return NONE;
    }
    case 'decimal': {
      const text = rawNumber ?? String(value);
      const status = decimalStatus(text);
      if (status === 'syntax') return one('DECIMAL_INVALID', [text]);
      if (status === 'range') return one('DECIMAL_RANGE', [text], 'warning');
      return NONE;
    }
  }
  if (typeof value !== 'string') return NONE; // the caller checked the JSON type: text for every other type
  const s = value;
  if (s.length === 0) return one('PRIMITIVE_EMPTY_STRING', []);
  switch (type) {
    case 'string': {
      if (s.length > MAX_STRING) return one('STRING_EXCEEDS_SIZE', [MAX_STRING]);
      const c0 = s.charCodeAt(0);
      const cn = s.charCodeAt(s.length - 1);
      if (c0 <= 32 || cn <= 32) {
        if (s.trim().length === 0) return one('STRING_ALL_WHITESPACE', [s], 'warning');
        if (isWs(c0) || isWs(cn)) return one('STRING_WHITESPACE', [s], 'warning');
      }
      if (options.securityChecks && s.includes('<') && looksLikeHtmlTag(s)) return one('STRING_HTML', []);
      return NONE;
    }
    case 'markdown': {
      const mode = options.htmlInMarkdown ?? 'warning';
      if (mode === 'none' || !s.includes('<')) return NONE;
      const hit = s.search(MARKDOWN_HTML_RE);
      if (hit < 0) return NONE;
      const at = s.indexOf('<', hit);
      return one('MARKDOWN_HTML', [s.slice(at, at + 20)], mode);
    }
    case 'code':
      // linear: each alternative is one or two characters at a position
      if (/^\s|\s$|\s\s/.test(s) || /[\t\r\n]/.test(s)) return one('CODE_WHITESPACE', [s]);
      return NONE;
    case 'id':
      if (!ID_RE.test(s)) return one('ELEMENT_ID_INVALID', [s]);
      return NONE;
    case 'uri':
    case 'url':
    case 'canonical':
    case 'oid':
    case 'uuid':
      return checkUri(type, s, options);
    case 'base64Binary': {
      // linear: each whitespace run is removed in one step
      const compact = s.includes(' ') || s.includes('\n') || s.includes('\r') || s.includes('\t') ? s.replace(/\s+/g, '') : s;
      // as the HL7 validator: only a count of base64 characters that is not a multiple of four
      // fails here; other undecodable text is reported by the Attachment that holds it
      if (!BASE64_RE.test(compact) && !base64CountFits(compact)) return one('BASE64_INVALID', [s]);
      if (compact !== s) return one('BASE64_WHITESPACE', [], 'warning');
      return NONE;
    }
    case 'date':
      if (!DATE_RE.test(s) || !dayExists(s)) return one('DATE_INVALID', [s]);
      return NONE;
    case 'dateTime': {
      if (!DATETIME_RE.test(s) || !dayExists(s)) {
        // a time without a zone gets its own, more helpful, message
        if (s.length > 10 && s[10] === 'T' && DATETIME_RE.test(s.slice(0, 10)) && TIME_WITH_FRACTION_RE.test(s.slice(11))) return one('DATETIME_NEEDS_TZ', []);
        // the HL7 validator's two rules: the pattern, and a time needs a zone
        if (s.includes('T') && !hasZoneAfterTime(s)) return [{ id: 'DATETIME_INVALID', args: [s], severity: 'error' }, { id: 'DATETIME_NEEDS_TZ', args: [], severity: 'error' }];
        return one('DATETIME_INVALID', [s]);
      }
      // linear: at most six fixed characters tried at each position
      if (s.length > 10 && !/(Z|[+-]\d\d:\d\d)$/.test(s)) return one('DATETIME_NEEDS_TZ', []);
      return NONE;
    }
    case 'instant':
      if (!INSTANT_RE.test(s) || !dayExists(s.charCodeAt(0) === 45 ? s.slice(1) : s)) return one('INSTANT_INVALID', [s]);
      return NONE;
    case 'time':
      if (!TIME_RE.test(s)) return one('TIME_INVALID', [s]);
      return NONE;
    default:
      return NONE;
  }
}

/**
 * A urn:oid: value as the HL7 validator takes it: a valid OID, and not a bare root of under
 * four characters before its last dot (those are almost never namespaces), except under 1.3.
 */
function oidFits(s: string): boolean {
  if (!OID_RE.test(s)) return false;
  // after the 'urn:oid:' prefix (8 characters)
  return s.lastIndexOf('.') - 8 >= 4 || s.startsWith('1.3', 8);
}

/**
 * An integer as the HL7 validator reads one: an optional '-', then at most ten digits, within
 * the 32-bit range.
 */
export function isIntegerText(s: string): boolean {
  const start = s.charCodeAt(0) === 45 ? 1 : 0;
  const digits = s.length - start;
  if (digits === 0 || digits > 10) return false;
  for (let i = start; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 48 || c > 57) return false;
  }
  if (digits < 10) return true;
  const n = Number(s);
  return n >= -2147483648 && n <= 2147483647;
}

/**
 * A decimal as the HL7 validator reads one: the JSON number syntax with an optional exponent
 * and no leading zeros ('syntax' otherwise); more than 18 significant digits or an exponent of
 * more than four digits is out of the commonly supported range ('range', a warning).
 */
export function decimalStatus(s: string): 'ok' | 'syntax' | 'range' {
  if (s.length === 0) return 'syntax';
  const c0 = s.charCodeAt(0);
  const signed = c0 === 45 || c0 === 43;
  const body = signed ? 1 : 0;
  if (s.charCodeAt(body) === 48 && body + 1 < s.length && s.charCodeAt(body + 1) !== 46) return 'syntax';
  if (s.charCodeAt(s.length - 1) === 46) return 'syntax';
  let period = false;
  let exponent = false;
  let sign = false;
  let digits = false;
  let mantissa = 0;
  let run = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c === 46) {
      if (!digits || period || exponent) return 'syntax';
      period = true;
      mantissa += run;
      run = 0;
    } else if (c === 45 || c === 43) {
      if (digits || sign) return 'syntax';
      sign = true;
    } else if (c === 101 || c === 69) {
      if (!digits || exponent) return 'syntax';
      exponent = true;
      sign = false;
      digits = false;
      mantissa += run;
      run = 0;
    } else if (c >= 48 && c <= 57) {
      digits = true;
      run++;
    } else {
      return 'syntax';
    }
  }
  if (exponent && !digits) return 'syntax';
  if (!exponent) mantissa += run;
  if ((exponent && run > 4) || mantissa > 18) return 'range';
  return 'ok';
}

/** After the 'T' of a dateTime: a 'Z', '+' or '-' (the zone). */
function hasZoneAfterTime(s: string): boolean {
  const t = s.indexOf('T');
  for (let i = t + 1; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c === 90 || c === 43 || c === 45) return true;
  }
  return false;
}

/**
 * The uri family as the HL7 validator checks it: each rule on its own (a value can break
 * several), the problems list allocated only when one is found.
 */
function checkUri(type: string, s: string, options: PrimitiveCheckOptions): readonly PrimitiveProblem[] {
  let out: PrimitiveProblem[] | undefined;
  if (s.startsWith('oid:')) out = add(out, 'URI_OID_PREFIX', []);
  if (s.startsWith('uuid:')) out = add(out, 'URI_UUID_PREFIX', []);
  if (/\s/.test(s)) out = add(out, 'URI_WHITESPACE', [s]); // linear: one character class
  if (options.allowExampleUrls === false && isExampleUrl(s)) out = add(out, 'EXAMPLE_URL', [s]);
  if (type === 'oid' && !s.startsWith('urn:oid:')) out = add(out, 'OID_START', [s]);
  if (type === 'uuid' && !s.startsWith('urn:uuid:')) out = add(out, 'UUID_START', [s]);
  // linear: anchored, one character class up to ':', which it cannot match
  if (type === 'canonical' && !s.startsWith('#') && !/^[A-Za-z][A-Za-z0-9+.-]*:/.test(s)) out = add(out, 'URL_NOT_ABSOLUTE', [s]);
  if (s.startsWith('urn:uuid:')) {
    // the uuid without a fragment (and, for a canonical, without its version)
    let end = s.indexOf('#');
    if (end < 0) end = s.length;
    if (type === 'canonical') {
      const bar = s.lastIndexOf('|', end);
      if (bar >= 0) end = bar;
    }
    const uuid = end === s.length ? s : s.slice(0, end);
    if (!UUID_RE.test(uuid)) out = add(out, 'UUID_INVALID', [uuid.slice(9)]);
  }
  if (s.startsWith('urn:oid:') && !oidFits(s)) out = add(out, 'OID_INVALID', [s]);
  return out ?? NONE;
}

function add(out: PrimitiveProblem[] | undefined, id: MessageId, args: unknown[]): PrimitiveProblem[] {
  const list = out ?? [];
  list.push({ id, args, severity: 'error' });
  return list;
}

/** The HL7 validator's base64 test: the base64 alphabet characters (others are skipped) come in fours. */
export function base64CountFits(s: string): boolean {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    const alnum = (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122);
    if (alnum || c === 43 || c === 47 || c === 61) n++;
  }
  return n % 4 === 0;
}

/** Whether base64 text (whitespace removed) decodes strictly; the first offending character otherwise. */
export function base64DecodeProblem(compact: string): string | undefined {
  if (BASE64_RE.test(compact)) return undefined;
  for (let i = 0; i < compact.length; i++) {
    const c = compact.charCodeAt(i);
    const ok = (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 43 || c === 47 || c === 61;
    if (!ok) return `Illegal base64 character ${c.toString(16)}`;
  }
  return 'Input byte array has incorrect ending';
}

/** Text that looks like an HTML tag: a known tag name after '<', and a '>' somewhere after it. */
function looksLikeHtmlTag(s: string): boolean {
  const m = HTML_TAG_START_RE.exec(s);
  return m !== null && s.indexOf('>', m.index + m[0].length) >= 0;
}

function isWs(c: number): boolean {
  return c === 32 || c === 9 || c === 10 || c === 13;
}

export function isValidDecimalText(s: string): boolean {
  return DECIMAL_RE.test(s);
}

/** Resource.id rules (R4 types it as System.String with the id regex). */
export function checkResourceId(id: string): readonly PrimitiveProblem[] {
  if (id.length > 64) return one('ID_TOO_LONG', [id.length]);
  if (!ID_RE.test(id)) return one('ID_INVALID_CHARS', [id]);
  return NONE;
}
