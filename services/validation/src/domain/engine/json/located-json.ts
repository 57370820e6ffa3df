/**
 * A JSON parser that remembers where every value came from (line/column), reports the
 * problems the HL7 validator reports (comments, missing or trailing commas, duplicate
 * properties) and recovers from them, and never throws: a fatal syntax error becomes an
 * issue with line and column.
 *
 * Why our own parser: JSON.parse gives no positions, accepts duplicate keys silently and
 * stops at the first problem. It is iterative (an explicit stack), so deep nesting cannot
 * overflow the call stack; a depth limit turns absurd nesting into a clear error.
 */

/** Position of a value: 1-based line and column. */
export interface Position {
  line: number;
  col: number;
}

/** Positions of an object's own properties (key → position of the value). */
export interface ObjectLocation extends Position {
  props: Record<string, Position>;
  /** The source text of numbers whose text a JS number does not keep (`1.50`, `2.0`, `1e3`). */
  rawNumbers?: Record<string, string>;
  /** Properties whose string value was written without quotes (JSON5). */
  unquoted?: Record<string, true>;
}

/** Positions of an array's items. */
export interface ArrayLocation extends Position {
  items: Position[];
  rawNumbers?: Record<number, string>;
  unquoted?: Record<number, true>;
}

export type JsonPathSegment = string | number;

export interface JsonParseIssue {
  kind: 'comment' | 'missing-comma' | 'missing-comma-in-array' | 'trailing-comma' | 'duplicate-property' | 'unquoted-name' | 'syntax' | 'too-deep' | 'too-large';
  fatal: boolean;
  message: string;
  line: number;
  col: number;
  /** Where in the document the problem sits (property names and array indexes). */
  path: JsonPathSegment[];
  /** For unquoted names and values: the property name (`item` in an array) and the text. */
  args?: string[];
}

export interface LocatedJson {
  /** The parsed value; undefined only when a fatal error stopped parsing. */
  value: unknown;
  locations: WeakMap<object, ObjectLocation | ArrayLocation>;
  issues: JsonParseIssue[];
  /** Some string value was written without quotes (its container's location says which). */
  unquotedValues: boolean;
}

export interface ParseOptions {
  /** Nesting deeper than this is a fatal error (default 500). */
  maxDepth?: number;
  /** Inputs longer than this many characters are refused (default unlimited). */
  maxLength?: number;
}

/** An object or array being read. Both kinds carry the same members (one shape for the engine's JIT). */
type Frame = ObjectFrame | ArrayFrame;

interface ObjectFrame extends FrameState {
  kind: 'object';
  container: Record<string, unknown>;
  loc: ObjectLocation;
}

interface ArrayFrame extends FrameState {
  kind: 'array';
  container: unknown[];
  loc: ArrayLocation;
}

interface FrameState {
  /** For objects: the key whose value is being parsed. */
  key: string | undefined;
  /** Index of the next array item. */
  index: number;
  /** A value/property has been read since the last comma (or since the opening bracket). */
  afterValue: boolean;
  /** A comma was just read. */
  afterComma: boolean;
  /** The property being read repeats an earlier name: its value is read but not kept (the first one counts). */
  duplicate: boolean;
  path: JsonPathSegment[];
}

class FatalParse extends Error {}

// Linear: anchored, four characters.
const HEX = /^[0-9a-fA-F]{4}$/;

export function parseLocatedJson(text: string, options: ParseOptions = {}): LocatedJson {
  const maxDepth = options.maxDepth ?? 500;
  const locations = new WeakMap<object, ObjectLocation | ArrayLocation>();
  const issues: JsonParseIssue[] = [];
  if (options.maxLength !== undefined && text.length > options.maxLength) {
    issues.push({ kind: 'too-large', fatal: true, line: 1, col: 1, path: [],
      message: `The input is too large (${text.length} characters; the limit is ${options.maxLength})` });
    return { value: undefined, locations, issues, unquotedValues: false };
  }
  let pos = 0;
  let line = 1;
  let lineStart = 0;
  const len = text.length;
  /** Comments read since the last value (each is reported, at the value that follows them, as the HL7 parser attaches them). */
  let pendingComments: Position[] | undefined;
  /** Source text of the number just read, when it differs from the JS number's rendering. */
  let lastRawNumber: string | undefined;
  let unquotedValues = false;
  let commentsBeforeRoot: Position[] | undefined;
  const stack: Frame[] = [];
  let root: unknown = undefined;
  let rootSet = false;

  const col = () => pos - lineStart + 1;
  const currentPath = (): JsonPathSegment[] => stack[stack.length - 1]?.path ?? [];
  const fatal = (message: string): never => {
    issues.push({ kind: 'syntax', fatal: true, message, line, col: col(), path: pathForFatal() });
    throw new FatalParse(message);
  };
  const pathForFatal = (): JsonPathSegment[] => {
    const top = stack[stack.length - 1];
    if (!top) return [];
    return top.kind === 'object' && top.key !== undefined ? [...top.path, top.key] : top.path;
  };

  function skipWhitespaceAndComments(): void {
    for (;;) {
      while (pos < len) {
        const c = text.charCodeAt(pos);
        if (c === 10) { pos++; line++; lineStart = pos; }
        else if (c === 32 || c === 9 || c === 13 || c === 0xfeff) pos++;
        else break;
      }
      if (pos < len && text.charCodeAt(pos) === 47 /* / */) {
        const next = text.charCodeAt(pos + 1);
        if (next === 47 || next === 42) {
          const at = { line, col: col() };
          if (next === 47) {
            while (pos < len && text.charCodeAt(pos) !== 10) pos++;
          } else {
            pos += 2;
            while (pos < len && !(text.charCodeAt(pos) === 42 && text.charCodeAt(pos + 1) === 47)) {
              if (text.charCodeAt(pos) === 10) { line++; lineStart = pos + 1; }
              pos++;
            }
            if (pos >= len) fatal('Unterminated comment in JSON');
            pos += 2;
          }
          if (!rootSet && stack.length === 0) (commentsBeforeRoot ??= []).push(at);
          else (pendingComments ??= []).push(at);
          continue;
        }
      }
      return;
    }
  }

  function readString(): string {
    // opening quote already checked
    pos++;
    let start = pos;
    let out = '';
    for (;;) {
      if (pos >= len) fatal('Unterminated string in JSON');
      const c = text.charCodeAt(pos);
      if (c === 34) {
        out += text.slice(start, pos);
        pos++;
        return out;
      }
      if (c === 92) {
        out += text.slice(start, pos);
        const e = text[pos + 1];
        pos += 2;
        switch (e) {
          case '"': out += '"'; break;
          case "'": out += "'"; break;
          case '\\': out += '\\'; break;
          case '/': out += '/'; break;
          case 'b': out += '\b'; break;
          case 'f': out += '\f'; break;
          case 'n': out += '\n'; break;
          case 'r': out += '\r'; break;
          case 't': out += '\t'; break;
          case 'u': {
            const hex = text.slice(pos, pos + 4);
            if (!HEX.test(hex)) fatal(`Invalid unicode escape '\\u${hex}' in JSON`);
            out += String.fromCharCode(parseInt(hex, 16));
            pos += 4;
            break;
          }
          default:
            pos -= 1;
            fatal(`Invalid escape '\\${e ?? ''}' in JSON string`);
        }
        start = pos;
        continue;
      }
      // a raw line break inside a string is read as part of it (as the HL7 lexer does)
      if (c === 10) { line++; lineStart = pos + 1; }
      pos++;
    }
  }

  // Linear: sticky at one position; the digit runs are separated by '.', 'e'/'E', which they cannot match.
  const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
  function readScalar(): unknown {
    const c = text[pos];
    if (c === '"') return readString();
    if (isNameStart(text.charCodeAt(pos))) {
      // true, false, null, or (as the HL7 validator's JSON5 reading) an unquoted string value
      const word = readName();
      if (word === 'true') return true;
      if (word === 'false') return false;
      if (word === 'null') return null;
      // recorded on the container: the walker reports it where the property is a known primitive
      const top = stack[stack.length - 1];
      if (top?.kind === 'array') (top.loc.unquoted ??= {})[top.index] = true;
      else if (top?.kind === 'object' && top.key !== undefined && !top.duplicate) (top.loc.unquoted ??= {})[top.key] = true;
      unquotedValues = true;
      return word;
    }
    if (c === '-' || (c !== undefined && c >= '0' && c <= '9')) {
      // as the HL7 lexer: a number is the whole run of digits, signs, '.', 'e' and 'E'; text that
      // is not a JSON number (`007`, `1.`, `1.2.3`) is kept as written (its value NaN or the
      // nearest number) for the datatype checks to judge
      let end = pos + 1;
      while (end < len) {
        const d = text.charCodeAt(end);
        if ((d >= 48 && d <= 57) || d === 46 || d === 43 || d === 45 || d === 101 || d === 69) end++;
        else break;
      }
      const run = text.slice(pos, end);
      NUMBER.lastIndex = pos;
      const m = NUMBER.exec(text);
      pos = end;
      if (m && m[0].length === run.length) {
        const n = Number(run);
        lastRawNumber = String(n) === run ? undefined : run;
        return n;
      }
      lastRawNumber = run;
      return run === '-' ? Number.NaN : Number(run);
    }
    return fatal(`Unexpected content '${c === undefined ? 'end of input' : c}' in json format at Line ${line}`);
  }

  /** An unquoted name: a letter or '_', then letters, digits, '_', '.' and '-' (the HL7 JSON5 lexer's rule). */
  function readName(): string {
    const start = pos;
    pos++;
    while (pos < len) {
      const c = text.charCodeAt(pos);
      if (isNameStart(c) || (c >= 48 && c <= 57) || c === 46 || c === 45) pos++;
      else break;
    }
    return text.slice(start, pos);
  }

  function attach(value: unknown, at: Position): void {
    const top = stack[stack.length - 1];
    if (!top) { root = value; rootSet = true; return; }
    if (top.kind === 'array') {
      top.container.push(value);
      top.loc.items.push(at);
      top.index++;
    } else {
      const key = top.key;
      const obj = top.container;
      // (a value always follows its name here: startValue is called for an object right after the name)
      if (top.duplicate || key === undefined) top.duplicate = false;
      else if (key === '__proto__') Object.defineProperty(obj, key, { value, enumerable: true, writable: true, configurable: true });
      else {
        obj[key] = value;
        top.loc.props[key] = at;
      }
      top.key = undefined;
    }
    top.afterValue = true;
    top.afterComma = false;
  }

  function childPath(): JsonPathSegment[] {
    const top = stack[stack.length - 1];
    if (!top) return [];
    return top.kind === 'array' ? [...top.path, top.index] : [...top.path, top.key ?? ''];
  }

  function startValue(): void {
    const at = { line, col: col() };
    const c = text[pos];
    if (c === '{' || c === '[') {
      if (stack.length >= maxDepth) {
        issues.push({ kind: 'too-deep', fatal: true, line, col: col(), path: [],
          message: `The JSON is nested too deeply (more than ${maxDepth} levels)` });
        throw new FatalParse('too deep');
      }
      pos++;
      const path = childPath();
      if (c === '{') {
        const obj: Record<string, unknown> = {};
        const loc: ObjectLocation = { ...at, props: Object.create(null) };
        locations.set(obj, loc);
        attach(obj, at);
        stack.push({ kind: 'object', container: obj, loc, key: undefined, index: 0, afterValue: false, afterComma: false, duplicate: false, path });
      } else {
        const arr: unknown[] = [];
        const loc: ArrayLocation = { ...at, items: [] };
        locations.set(arr, loc);
        attach(arr, at);
        stack.push({ kind: 'array', container: arr, loc, key: undefined, index: 0, afterValue: false, afterComma: false, duplicate: false, path });
      }
      return;
    }
    lastRawNumber = undefined;
    const value = readScalar();
    if (lastRawNumber !== undefined) {
      const top = stack[stack.length - 1];
      if (top?.kind === 'array') (top.loc.rawNumbers ??= {})[top.index] = lastRawNumber;
      else if (top?.kind === 'object' && top.key !== undefined && !top.duplicate) (top.loc.rawNumbers ??= {})[top.key] = lastRawNumber;
    }
    attach(value, at);
  }

  function reportPendingComment(path: JsonPathSegment[]): void {
    if (!pendingComments) return;
    for (const at of pendingComments) issues.push({ kind: 'comment', fatal: false, message: 'Comments are not allowed in JSON', ...at, path });
    pendingComments = undefined;
  }

  try {
    skipWhitespaceAndComments();
    if (pos >= len) fatal('The JSON is empty');
    for (const at of commentsBeforeRoot ?? []) issues.push({ kind: 'comment', fatal: false, message: 'Comments are not allowed in JSON', ...at, path: [] });
    startValue();
    for (let top = stack[stack.length - 1]; top !== undefined; top = stack[stack.length - 1]) {
      skipWhitespaceAndComments();
      if (pos >= len) fatal('Unexpected end of JSON input (unclosed ' + (top.kind === 'object' ? 'object' : 'array') + ')');
      const c = text[pos];
      // Closing bracket and comma mean the same in objects and arrays.
      if (c === (top.kind === 'object' ? '}' : ']')) {
        if (top.afterComma) {
          const what = top.kind === 'object' ? 'Object' : 'Array';
          issues.push({ kind: 'trailing-comma', fatal: false, message: `There is an extra comma at the end of the ${what} in the JSON`, line, col: col(), path: top.path });
        }
        pos++;
        stack.pop();
        continue;
      }
      if (c === ',') {
        if (!top.afterValue) fatal(`Unexpected content ',' in json format at Line ${line}`);
        pos++;
        top.afterValue = false;
        top.afterComma = true;
        continue;
      }
      if (top.kind === 'object') {
        const unquoted = c !== '"' && isNameStart(text.charCodeAt(pos));
        if (c === '"' || unquoted) {
          if (top.afterValue) issues.push({ kind: 'missing-comma', fatal: false, message: 'A Comma is missing in the JSON', line, col: col(), path: top.path });
          const keyAt = { line, col: col() };
          const key = unquoted ? readName() : readString();
          if (unquoted) issues.push({ kind: 'unquoted-name', fatal: false, message: `The property name '${key}' has no quotes`, ...keyAt, path: top.path, args: [key] });
          skipWhitespaceAndComments();
          if (text[pos] !== ':') fatal(`Expected ':' after property name '${key}' but found '${text[pos] ?? 'end of input'}' in json format at Line ${line}`);
          pos++;
          const propertyPath = [...top.path, key];
          if (pendingComments) reportPendingComment(stack.length === 1 && key === 'resourceType' ? [] : propertyPath);
          if (Object.prototype.hasOwnProperty.call(top.container, key)) {
            // reported at the object, as the HL7 validator does; the first value is the one kept
            issues.push({ kind: 'duplicate-property', fatal: false, message: `Duplicated property name: ${key}`, ...keyAt, path: top.path, args: [key] });
            top.duplicate = true;
          }
          top.key = key;
          skipWhitespaceAndComments();
          if (pos >= len) fatal('Unexpected end of JSON input');
          startValue();
          continue;
        }
        fatal(`Unexpected content '${c}' in json format at Line ${line}`);
      } else {
        if (top.afterValue) {
          // The HL7 validator tolerates a missing comma between array items without an error;
          // we keep the item but say so as a warning.
          issues.push({ kind: 'missing-comma-in-array', fatal: false, message: 'A Comma is missing in the JSON', line, col: col(), path: currentPath() });
        }
        startValue();
      }
    }
    skipWhitespaceAndComments();
    if (pos < len) fatal(`Unexpected content '${text[pos]}' after the end of the JSON at Line ${line}`);
    if (pendingComments) reportPendingComment([]);
    return { value: root, locations, issues, unquotedValues };
  } catch (e) {
    if (!(e instanceof FatalParse)) throw e;
    return { value: undefined, locations, issues, unquotedValues: false };
  }
}

function isNameStart(c: number): boolean {
  return (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95;
}
