/**
 * One validation call: the issues found so far, what was already reported or evaluated (so
 * that the structural walk and every profile walk report an identical issue once), the source
 * positions of the located JSON, and the terminology answers still pending. HL7's validator
 * keeps the same in its error list and the parser's element positions.
 */
import type { NodeSource } from '../json/json-node.js';
import type { ArrayLocation, ObjectLocation, Position } from '../json/located-json.js';
import { canonicalMessageId, messageIdOf } from '../message-ids.js';
import { formatMessage, MESSAGES, type MessageId } from '../messages.js';
import { EXT_COL, EXT_LINE, EXT_MESSAGE_ID, type Issue, type IssueSeverity } from '../outcome/issue.js';
import type { FetchAnswer } from '../../ports/resource-fetcher.js';
import type { ResolvedValidatorOptions } from '../validator-options.js';
import type { ValidatorServices } from './validator-services.js';

const NO_PROFILES: readonly string[] = [];

/** An issue's wording: its issue-type code, text and message id (a terminology answer's issue is one as it comes). */
export interface IssueWording {
  readonly code: string;
  readonly text: string;
  readonly messageId: string;
}

export class ValidationRun implements NodeSource {
  readonly issues: Issue[] = [];
  /** Keys of issues already reported (severity, path, text). */
  readonly seen = new Set<string>();
  /** Keys of checks already made at a location (FHIRPath invariants, bindings). */
  readonly evaluated = new Set<string>();
  /** Positions of every value, when the input was JSON text. */
  locations: WeakMap<object, ObjectLocation | ArrayLocation> | undefined;
  /** The source text had string values without quotes (JSON5). */
  unquotedValues = false;
  /** Profiles Bundle rules (ValidationSettings.bundleRules) give to entry resources, by the resource. */
  private entryProfiles: WeakMap<object, string[]> | undefined;
  /** What the fetcher answered for each reference asked about in this validation (HL7's fetchCache). */
  readonly fetched = new Map<string, FetchAnswer | Promise<FetchAnswer>>();
  /**
   * The text the resource was read from. XML keeps what JSON types could not carry (a boolean
   * `yes`, a number `abc` stay text) and has no JSON shape rules: the walker words those cases as
   * the HL7 validator does for XML.
   */
  sourceFormat: 'json' | 'xml' = 'json';
  /** A primitive's `_x` companion → the object holding the primitive (for extension contexts on extension values). */
  readonly companionOwners = new WeakMap<object, Record<string, unknown>>();
  /** The ids inside each root resource, gathered when a `#id` URL is first checked (rules/url-references.ts). */
  private rootIds: WeakMap<object, ReadonlySet<string>> | undefined;
  /** Errors and fatal issues reported (a silent run counts them without recording them). */
  errorCount = 0;
  /** Issues found past `maxValidationMessages`: counted, never built (a resource with millions of issues stays small). */
  private dropped = 0;

  constructor(
    readonly services: ValidatorServices,
    /** Passed on to remote terminology. */
    readonly authorization: string | undefined,
    /** Asynchronous terminology answers; shared with the silent runs of slice matching. */
    readonly pending: Promise<void>[] = [],
    /** A silent run (does a value conform to a profile?) records nothing and only counts errors. */
    readonly silent = false,
    /** The Validator's options with this call's settings over them (see validator-options.ts). */
    readonly options: ResolvedValidatorOptions = services.options,
  ) {}

  /**
   * A silent copy for matching a value against a slice's profile (HL7's forSlicing): same
   * positions and pending answers, its own bookkeeping, nothing reported.
   */
  forSlicing(): ValidationRun {
    const silent = new ValidationRun(this.services, this.authorization, this.pending, true, this.options);
    silent.locations = this.locations;
    silent.unquotedValues = this.unquotedValues;
    silent.sourceFormat = this.sourceFormat;
    return silent;
  }

  /** Reports an issue from the catalogue, once per severity, location and text. */
  report(severity: IssueSeverity, id: MessageId, args: readonly unknown[], path: string, at: Position | undefined): void {
    if (this.silent) {
      if (severity === 'error' || severity === 'fatal') this.errorCount++;
      return;
    }
    const text = formatMessage(id, args);
    const key = severity + '\u0000' + path + '\u0000' + text;
    if (this.seen.has(key)) return;
    this.seen.add(key);
    if (severity === 'error' || severity === 'fatal') this.errorCount++;
    this.pushIssue(severity, { code: MESSAGES[id].code, text, messageId: messageIdOf(id, args) }, path, at);
  }

  /** A Bundle rule makes an entry's resource follow `profile` too. */
  addEntryProfile(resource: object, profile: string): void {
    this.entryProfiles ??= new WeakMap();
    const list = this.entryProfiles.get(resource);
    if (list) list.push(profile);
    else this.entryProfiles.set(resource, [profile]);
  }

  /** The profiles Bundle rules give to an entry's resource (none: empty). */
  /** The cache of ids per root resource; made on first use (most validations have no `#id` URL). */
  get idsByRoot(): WeakMap<object, ReadonlySet<string>> {
    this.rootIds ??= new WeakMap();
    return this.rootIds;
  }

  profilesOfEntry(resource: object): readonly string[] {
    return this.entryProfiles?.get(resource) ?? NO_PROFILES;
  }

  /**
   * The issues, at most `maxValidationMessages` of them: past the limit the rest are dropped and one
   * information issue says how many (HL7's maximum number of validation messages).
   */
  finishedIssues(): Issue[] {
    const max = this.options.maxValidationMessages;
    if (max === undefined || this.dropped === 0) return this.issues;
    const dropped = this.dropped;
    this.dropped = 0;
    const text = formatMessage('VALIDATION_MESSAGES_TRUNCATED', [max, dropped]);
    this.issues.push(this.buildIssue('information', { code: MESSAGES.VALIDATION_MESSAGES_TRUNCATED.code, text, messageId: 'VALIDATION_MESSAGES_TRUNCATED' }, '', undefined));
    return this.issues;
  }

  /** Appends an issue worded elsewhere (terminology answers carry their own text and id). */
  pushIssue(severity: IssueSeverity, wording: IssueWording, path: string, at: Position | undefined): void {
    const max = this.options.maxValidationMessages;
    if (max !== undefined && this.issues.length >= max) {
      this.dropped++;
      return;
    }
    this.issues.push(this.buildIssue(severity, wording, path, at));
  }

  private buildIssue(severity: IssueSeverity, wording: IssueWording, path: string, at: Position | undefined): Issue {
    const { code, text, messageId } = wording;
    const extension: Issue['extension'] = [];
    if (at) {
      extension.push({ url: EXT_LINE, valueInteger: at.line }, { url: EXT_COL, valueInteger: at.col });
    }
    // terminology answers name their messages by the terminology catalogue's keys: HL7's, or mapped to HL7's
    extension.push({ url: EXT_MESSAGE_ID, valueCode: canonicalMessageId(messageId) });
    const issue: Issue = { severity, code, details: { text }, diagnostics: text, extension };
    if (path) issue.expression = [path];
    return issue;
  }

  /** Where an object or array starts in the source text. */
  pos(value: unknown): Position | undefined {
    if (!this.locations || value === null || typeof value !== 'object') return undefined;
    return this.locations.get(value);
  }

  /** Where a property's value starts in the source text. */
  propPos(parent: Record<string, unknown>, key: string): Position | undefined {
    if (!this.locations) return undefined;
    const loc = this.locations.get(parent);
    return loc && 'props' in loc ? loc.props[key] : undefined;
  }

  /** Where an array item starts in the source text. */
  itemPos(arr: readonly unknown[], i: number): Position | undefined {
    if (!this.locations) return undefined;
    const loc = this.locations.get(arr);
    return loc && 'items' in loc ? loc.items[i] : undefined;
  }

  /** Whether a string value was written without quotes (JSON5); only looked up when the text had any. */
  isUnquoted(raw: unknown, obj: Record<string, unknown>, key: string, index: number): boolean {
    if (!this.unquotedValues || !this.locations) return false;
    if (index >= 0 && Array.isArray(raw)) return arrayLocation(this.locations.get(raw))?.unquoted?.[index] === true;
    return objectLocation(this.locations.get(obj))?.unquoted?.[key] === true;
  }

  /** The source text of a number (when the parser kept it: `1.50`, `2.0`). */
  rawNumber(raw: unknown, obj: Record<string, unknown>, key: string, index: number): string | undefined {
    if (!this.locations) return undefined;
    if (index >= 0 && Array.isArray(raw)) return arrayLocation(this.locations.get(raw))?.rawNumbers?.[index];
    return objectLocation(this.locations.get(obj))?.rawNumbers?.[key];
  }
}

const objectLocation = (loc: ObjectLocation | ArrayLocation | undefined): ObjectLocation | undefined => (loc && 'props' in loc ? loc : undefined);
const arrayLocation = (loc: ObjectLocation | ArrayLocation | undefined): ArrayLocation | undefined => (loc && 'items' in loc ? loc : undefined);
