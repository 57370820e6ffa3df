/**
 * The matcher model of a category rule (specification, "Matcher model"): a tree of
 * RegexMatcher leaves and CompositeMatcher nodes, each invertible, nested to any depth.
 *
 * JSON shape (the original system's, kept so that its exports import unchanged): a node with
 * `children` is a composite `{children, requiresAllChildren, inverted?}`, a node with `field` and
 * `regex` is a leaf `{field, regex, inverted?}`. Parsing reports the path of the first bad node
 * (`matcher.children[2].regex`) so an operator can find it in a 50-category import.
 */
import { InvalidInputError } from '#shared-kernel/domain/errors.js';
import { canonicalMessageId } from '../engine/message-ids.js';
import { isObject } from '../engine/json/json-value.js';
import { compileUserRegex, UserRegexError, type UserRegex } from './user-regex.js';

/**
 * MESSAGE_ID (ours, beyond the specification's four) is the issue's operationoutcome-message-id: the
 * HL7 validator's message id, the same whatever the wording of the text, so a rule on it keeps
 * working when the wording changes (docs/message-wording.md).
 */
export const MATCH_FIELDS = ['MESSAGE', 'SEVERITY', 'CODE', 'EXPRESSION', 'MESSAGE_ID'] as const;
export type MatchField = (typeof MATCH_FIELDS)[number];

/**
 * The parts of an OperationOutcome issue a rule can look at. `severity` and `code` are FHIR codes
 * (`error`, `code-invalid`), `message` the issue's text, `expression` its FHIRPath location.
 */
export interface MatchableIssue {
  readonly severity?: string;
  readonly code?: string;
  readonly message?: string;
  readonly expression?: string;
  /** The operationoutcome-message-id, when the issue has one. */
  readonly messageId?: string;
}

export interface RegexMatcherJson {
  field: MatchField;
  regex: string;
  inverted?: boolean;
}

export interface CompositeMatcherJson {
  children: MatcherJson[];
  requiresAllChildren: boolean;
  inverted?: boolean;
}

export type MatcherJson = RegexMatcherJson | CompositeMatcherJson;

const isMatchField = (value: unknown): value is MatchField => MATCH_FIELDS.some((field) => field === value);

/**
 * Whether a value has the shape of a stored matcher (what toJSON wrote): checks the shape only and
 * compiles nothing, for reading rows back; operator input goes through parseMatcher.
 */
export function isMatcherJson(value: unknown): value is MatcherJson {
  if (!isObject(value) || (value.inverted !== undefined && typeof value.inverted !== 'boolean')) return false;
  if ('children' in value) {
    return Array.isArray(value.children) && typeof value.requiresAllChildren === 'boolean' && value.children.every(isMatcherJson);
  }
  return isMatchField(value.field) && typeof value.regex === 'string';
}

export interface Matcher {
  matches(issue: MatchableIssue): boolean;
  /** The canonical JSON (what is stored and exported). */
  toJSON(): MatcherJson;
}

/** Deeper trees are refused: they only serve to exhaust the stack. */
export const MAX_MATCHER_DEPTH = 64;
/** Nodes in one tree; far above any real rule, low enough to bound evaluation cost. */
export const MAX_MATCHER_NODES = 2000;

/**
 * The largest RE2 program a leaf may compile to. Matching costs up to about the program size in
 * steps per character, and the stored rules run on the service's main thread over every engine
 * issue (?categorize, the flow, re-categorize jobs), so a rule is refused when written above it
 * (and a stored one above it is skipped, as one that no longer compiles). The bundled categories
 * peak at ~312; `[\p{L}\d]{900}` is 902.
 */
export const MAX_RULE_PROGRAM_SIZE = 2000;

/**
 * Rules see at most this many characters of a field: a category decides by the start of a message
 * (engine messages may quote submitted values of up to ~1 MB). So matching one issue costs at most
 * about program size × MAX_MATCHED_CHARACTERS steps per leaf, whatever was submitted. Ordinary
 * messages are far shorter, and for them nothing changes; a rule anchored at the end (`...$`) of a
 * longer one sees the end of this prefix instead.
 */
export const MAX_MATCHED_CHARACTERS = 4096;

/** A matcher refused (400): the shared vocabulary's InvalidInputError, naming the path of the bad node as the field. */
export class MatcherError extends InvalidInputError {
  override readonly name = 'MatcherError';
  constructor(
    /** Where the problem is, e.g. `matcher.children[1].field`. */
    readonly path: string,
    /** What is wrong there. */
    readonly problem: string,
  ) {
    super(`${path}: ${problem}`, [{ field: path, message: problem }]);
  }
}

class RegexMatcher implements Matcher {
  constructor(
    readonly field: MatchField,
    readonly regex: UserRegex,
    readonly inverted: boolean,
  ) {}

  matches(issue: MatchableIssue): boolean {
    const value = fieldValue(issue, this.field);
    // Java semantics: a missing value never matches (and inversion then makes it match).
    const found = value !== undefined && this.regex.test(value);
    return this.inverted ? !found : found;
  }

  toJSON(): RegexMatcherJson {
    return { field: this.field, regex: this.regex.source, ...(this.inverted ? { inverted: true } : {}) };
  }
}

class CompositeMatcher implements Matcher {
  constructor(
    readonly children: readonly Matcher[],
    readonly requiresAllChildren: boolean,
    readonly inverted: boolean,
  ) {}

  matches(issue: MatchableIssue): boolean {
    const found = this.requiresAllChildren
      ? this.children.every((child) => child.matches(issue))
      : this.children.some((child) => child.matches(issue));
    return this.inverted ? !found : found;
  }

  toJSON(): CompositeMatcherJson {
    return {
      children: this.children.map((child) => child.toJSON()),
      requiresAllChildren: this.requiresAllChildren,
      ...(this.inverted ? { inverted: true } : {}),
    };
  }
}

/**
 * The compiled tree of a matcher made by parseMatcher, for evaluators that share work between
 * leaves (the Categorizer tests each distinct leaf once per field value); undefined for any other
 * Matcher implementation, which can then only be asked `matches`.
 */
export type MatcherTree =
  | { readonly kind: 'leaf'; readonly field: MatchField; readonly regex: UserRegex; readonly inverted: boolean }
  | { readonly kind: 'composite'; readonly children: readonly MatcherTree[]; readonly requiresAllChildren: boolean; readonly inverted: boolean };

export function matcherTree(matcher: Matcher): MatcherTree | undefined {
  if (matcher instanceof RegexMatcher) {
    return { kind: 'leaf', field: matcher.field, regex: matcher.regex, inverted: matcher.inverted };
  }
  if (matcher instanceof CompositeMatcher) {
    const children: MatcherTree[] = [];
    for (const child of matcher.children) {
      const tree = matcherTree(child);
      if (tree === undefined) return undefined;
      children.push(tree);
    }
    return { kind: 'composite', children, requiresAllChildren: matcher.requiresAllChildren, inverted: matcher.inverted };
  }
  return undefined;
}

/** What rules see of the field: its first MAX_MATCHED_CHARACTERS characters. */
export function fieldValue(issue: MatchableIssue, field: MatchField): string | undefined {
  const value = wholeFieldValue(issue, field);
  return value === undefined || value.length <= MAX_MATCHED_CHARACTERS ? value : boundedPrefix(value);
}

/**
 * A key for the field's value as rules see it (fieldValue), cheaper to get per issue: the value as the
 * issue holds it when it is no longer than rules see (a message id not made canonical yet), else
 * fieldValue itself. Equal keys mean equal fieldValues: a short key's fieldValue is the key (or, for an
 * engine key, a short id, its canonical id); a long value's key is its bounded prefix, which, met as a
 * short value, has a prefix's length, so is no engine key and is its own fieldValue.
 */
export function fieldKey(issue: MatchableIssue, field: MatchField): string | undefined {
  const value = field === 'MESSAGE_ID' ? issue.messageId : wholeFieldValue(issue, field);
  return value === undefined || value.length <= MAX_MATCHED_CHARACTERS ? value : fieldValue(issue, field);
}

function wholeFieldValue(issue: MatchableIssue, field: MatchField): string | undefined {
  switch (field) {
    case 'MESSAGE': return issue.message;
    case 'SEVERITY': return issue.severity;
    case 'CODE': return issue.code;
    case 'EXPRESSION': return issue.expression;
    // outcomes stored before issues carried HL7 ids hold the engine's own key: read as the HL7 id
    case 'MESSAGE_ID': return issue.messageId === undefined ? undefined : canonicalMessageId(issue.messageId);
  }
}

/**
 * The first MAX_MATCHED_CHARACTERS characters, never half a surrogate pair, as a string of its own:
 * a slice may keep its whole (1 MB) parent alive, and the categorizer remembers the values it saw.
 */
function boundedPrefix(value: string): string {
  const lastUnit = value.charCodeAt(MAX_MATCHED_CHARACTERS - 1);
  const end = lastUnit >= 0xd800 && lastUnit <= 0xdbff ? MAX_MATCHED_CHARACTERS - 1 : MAX_MATCHED_CHARACTERS;
  return [...value.slice(0, end)].join('');
}

const REGEX_KEYS = new Set(['field', 'regex', 'inverted']);
const COMPOSITE_KEYS = new Set(['children', 'requiresAllChildren', 'inverted']);

/**
 * Parses and compiles a matcher tree. Throws MatcherError naming the path of the first bad node.
 * Field names are accepted in any case (`message`), as the original system did, and stored upper-case.
 */
export function parseMatcher(json: unknown, path = 'matcher'): Matcher {
  const budget = { nodes: 0 };
  return parseNode(json, path, 1, budget);
}

function parseNode(json: unknown, path: string, depth: number, budget: { nodes: number }): Matcher {
  if (depth > MAX_MATCHER_DEPTH) throw new MatcherError(path, `matchers may be nested at most ${MAX_MATCHER_DEPTH} levels deep`);
  if (++budget.nodes > MAX_MATCHER_NODES) throw new MatcherError(path, `a matcher may have at most ${MAX_MATCHER_NODES} nodes`);
  if (!isObject(json)) {
    throw new MatcherError(path, 'must be an object: {field, regex, inverted?} or {children, requiresAllChildren, inverted?}');
  }
  const node = json;
  const inverted = parseInverted(node.inverted, path);
  const isComposite = 'children' in node;
  const isRegex = 'field' in node || 'regex' in node;
  if (isComposite && isRegex) {
    throw new MatcherError(path, 'has both children and field/regex; a matcher is either a composite or a regex matcher');
  }
  if (!isComposite && !isRegex) {
    throw new MatcherError(path, 'must have either field and regex (regex matcher) or children (composite matcher)');
  }
  const allowed = isComposite ? COMPOSITE_KEYS : REGEX_KEYS;
  const unknown = Object.keys(node).find((key) => !allowed.has(key));
  if (unknown !== undefined) throw new MatcherError(`${path}.${unknown}`, `unknown property; allowed: ${[...allowed].join(', ')}`);

  if (isComposite) {
    const children = node.children;
    if (!Array.isArray(children)) throw new MatcherError(`${path}.children`, 'must be an array of matchers');
    if (children.length === 0) throw new MatcherError(`${path}.children`, 'must not be empty');
    const requiresAll = node.requiresAllChildren;
    // The original defaulted a missing flag to false (OR); being explicit avoids a silent OR/AND mix-up.
    if (typeof requiresAll !== 'boolean') {
      throw new MatcherError(`${path}.requiresAllChildren`, 'must be true (all children must match) or false (any child)');
    }
    const parsed = children.map((child, i) => parseNode(child, `${path}.children[${i}]`, depth + 1, budget));
    return new CompositeMatcher(parsed, requiresAll, inverted);
  }

  const field = typeof node.field === 'string' ? node.field.toUpperCase() : undefined;
  if (!isMatchField(field)) {
    throw new MatcherError(`${path}.field`, `must be one of ${MATCH_FIELDS.join(', ')}`);
  }
  if (typeof node.regex !== 'string') throw new MatcherError(`${path}.regex`, 'must be a string');
  let regex: UserRegex;
  try {
    regex = compileUserRegex(node.regex);
  } catch (error) {
    if (error instanceof UserRegexError) throw new MatcherError(`${path}.regex`, error.message);
    throw error;
  }
  if (regex.programSize > MAX_RULE_PROGRAM_SIZE) {
    throw new MatcherError(`${path}.regex`, `compiles to an RE2 program of size ${regex.programSize}; at most ${MAX_RULE_PROGRAM_SIZE} is allowed `
      + '(matching costs about that many steps per character of every message)');
  }
  return new RegexMatcher(field, regex, inverted);
}

function parseInverted(value: unknown, path: string): boolean {
  if (value === undefined || value === null) return false;
  if (typeof value !== 'boolean') throw new MatcherError(`${path}.inverted`, 'must be a boolean');
  return value;
}
