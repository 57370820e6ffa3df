/**
 * Steps (3)-(4) of the flow, the pure part: each Bundle entry is validated ON ITS OWN (so one bad
 * resource cannot hide the others, and the work spreads over the worker pool); its issues then
 * say which entry they are about, in the HAPI/HL7 Bundle style the categories were written for:
 *
 *   `Encounter.class`  (entry 26, id 'e1')  →  `Bundle.entry[26].resource.ofType(Encounter).where(id = 'e1').class`
 *
 * and all of them are aggregated into one OperationOutcome, as text: each entry's issues are written
 * once where the entry was validated (encodeEntryIssues, in a worker), the entries' texts joined
 * (joinEntryIssues) and wrapped (joinedOutcomeJson); the flow decodes that text once (outcomeIssues).
 * Line/column extensions are dropped:
 * they would point into the entry, not into the submission the facility sent. So is `diagnostics`
 * where it only repeats `details.text` (the engine fills both): a sixth of every stored outcome.
 */
import type { Issue, IssueSeverity, ValidationOutcome } from '../engine/outcome/issue.js';
import type { FhirResourceJson } from '../ports/submission-source.js';
import { issuesFromOperationOutcome, type ValidationIssue } from '../results/validation-issue.js';

const POSITION_EXTENSIONS = new Set([
  'http://hl7.org/fhir/StructureDefinition/operationoutcome-issue-line',
  'http://hl7.org/fhir/StructureDefinition/operationoutcome-issue-col',
]);

/** `Bundle.entry[i].resource.ofType(Type).where(id = 'id')`: how the issues of entry i start. */
export function entryPath(index: number, resource: FhirResourceJson): string {
  const base = `Bundle.entry[${index}].resource.ofType(${resource.resourceType})`;
  return typeof resource.id === 'string' && resource.id !== '' ? `${base}.where(id = '${resource.id.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}')` : base;
}

/** An expression of a resource validated alone, rewritten to point into the Bundle. */
export function rebaseExpression(expression: string, index: number, resource: FhirResourceJson): string {
  return rebaseWithPrefix(expression, entryPath(index, resource), resource.resourceType);
}

/**
 * Issues kept per submission. A real submission has ~100; a Bundle that yields more than this is
 * broken wholesale, and keeping every issue would only bloat the stored results and the reports
 * (and the results API numbers each issue of a submission below one million).
 */
export const MAX_ISSUES_PER_SUBMISSION = 100_000;

const SEVERITY_ORDER: readonly IssueSeverity[] = ['information', 'warning', 'error', 'fatal'];

function omittedIssuesIssue(omitted: number, worstSeverity: number, maxIssues: number): Issue {
  const text = `${omitted} further issues of this submission were not kept: at most ${maxIssues} issues are stored per submission`;
  return { severity: SEVERITY_ORDER[worstSeverity] ?? 'fatal', code: 'too-costly', details: { text } };
}

/**
 * The issues of one entry, rebased into the Bundle, serialized once where the entry was validated
 * (a worker): the JSON text of the issue list without its brackets ('' when there is none), so
 * that the aggregated outcome's text is a concatenation (aggregatedOutcomeJson), never a clone of
 * the issues nor a second serialization.
 */
export interface EncodedEntryIssues {
  readonly json: string;
  readonly count: number;
}

export function encodeEntryIssues(index: number, resource: FhirResourceJson, outcome: ValidationOutcome): EncodedEntryIssues {
  if (outcome.issue.length === 0) return NO_ISSUES;
  const prefix = entryPath(index, resource);
  let json = '';
  for (const issue of outcome.issue) json += `${json === '' ? '' : ','}${encodeRebasedIssue(issue, prefix, resource.resourceType)}`;
  return { json, count: outcome.issue.length };
}

/**
 * The text of the issue rebased into the Bundle (its expressions and locations rewritten by
 * rebaseExpression, position extensions and a diagnostics equal to details.text dropped), written directly: no rebased copy of the
 * issue (whose deleted members made it a slow dictionary object for JSON.stringify), the entry's
 * path built once per entry instead of once per expression. Members in the issue's own order, as
 * the copy kept them; `expression` last when the issue had none.
 */
function encodeRebasedIssue(issue: Issue, prefix: string, type: string): string {
  // Written member by member into one string (no closure, no intermediate rebased lists): a worker
  // encodes every issue of every entry, about two per resource on the NHSN samples.
  let out = '{';
  let hasExpression = false;
  for (const key of Object.keys(issue)) {
    const value: unknown = Reflect.get(issue, key);
    let json: string | undefined;
    if (key === 'expression') {
      hasExpression = true;
      json = Array.isArray(value) ? rebasedListJson(value, prefix, type) : `[${JSON.stringify(prefix)}]`;
    } else if (key === 'location') {
      if (Array.isArray(value)) json = rebasedListJson(value, prefix, type);
    } else if (key === 'diagnostics' && value !== undefined && value === detailsText(issue)) {
      // only repeats details.text
    } else if (key === 'extension' && Array.isArray(issue.extension)) {
      json = keptExtensionsJson(issue.extension);
    } else if (typeof value === 'string') {
      json = JSON.stringify(value);
    } else if (key === 'details' && isTextOnly(value)) {
      json = `{"text":${JSON.stringify(value.text)}}`;
    } else {
      // undefined for a member JSON.stringify leaves out (undefined, a function)
      const written: unknown = JSON.stringify(value);
      if (typeof written === 'string') json = written;
    }
    if (json !== undefined) out += `${out.length === 1 ? '' : ','}${quotedKey(key)}:${json}`;
  }
  if (!hasExpression) out += `${out.length === 1 ? '' : ','}"expression":[${JSON.stringify(prefix)}]`;
  return `${out}}`;
}

/** The extensions without the position ones, as JSON, or undefined when none is left. */
function keptExtensionsJson(extensions: readonly unknown[]): string | undefined {
  let json = '';
  for (const extension of extensions) {
    const url: unknown = typeof extension === 'object' && extension !== null ? Reflect.get(extension, 'url') : undefined;
    if (typeof url === 'string' && POSITION_EXTENSIONS.has(url)) continue;
    json += `${json === '' ? '' : ','}${extensionJson(extension)}`;
  }
  return json === '' ? undefined : `[${json}]`;
}

/**
 * One extension as JSON.stringify writes it in an array. The engine's message-id extension
 * (`{url, valueCode}`, a few hundred distinct ids) is written once per id and then reused.
 */
function extensionJson(extension: unknown): string {
  if (typeof extension === 'object' && extension !== null && Object.getPrototypeOf(extension) === Object.prototype) {
    const keys = Object.keys(extension);
    const url: unknown = Reflect.get(extension, 'url');
    const code: unknown = Reflect.get(extension, 'valueCode');
    if (keys.length === 2 && keys[0] === 'url' && keys[1] === 'valueCode' && typeof url === 'string' && typeof code === 'string') {
      // keyed by the two strings themselves (the engine's constants: their hashes are kept), not by a joined key built per call
      let byCode = CODE_EXTENSIONS.get(url);
      let json = byCode?.get(code);
      if (json === undefined) {
        json = `{"url":${JSON.stringify(url)},"valueCode":${JSON.stringify(code)}}`;
        if (cachedCodeExtensions < MAX_CACHED_CODE_EXTENSIONS) {
          if (!byCode) CODE_EXTENSIONS.set(url, (byCode = new Map<string, string>()));
          byCode.set(code, json);
          cachedCodeExtensions++;
        }
      }
      return json;
    }
  }
  // an array element JSON.stringify cannot write (undefined, a function) is written as null
  const written: unknown = JSON.stringify(extension);
  return typeof written === 'string' ? written : 'null';
}

/** `{url, valueCode}` extensions already written (bounded: the ids are the engine's, but the cache must not grow with input). */
const CODE_EXTENSIONS = new Map<string, Map<string, string>>();
let cachedCodeExtensions = 0;
const MAX_CACHED_CODE_EXTENSIONS = 2048;

/** The members' names as JSON (a handful of names, quoted once). */
const QUOTED_KEYS = new Map<string, string>();
function quotedKey(key: string): string {
  let quoted = QUOTED_KEYS.get(key);
  if (quoted === undefined) {
    quoted = JSON.stringify(key);
    if (QUOTED_KEYS.size < 64) QUOTED_KEYS.set(key, quoted);
  }
  return quoted;
}

/** An issue's details as the engine builds them: a plain object with a text and nothing else. */
function isTextOnly(value: unknown): value is { text: string } {
  if (typeof value !== 'object' || value === null || Object.getPrototypeOf(value) !== Object.prototype) return false;
  const keys = Object.keys(value);
  return keys.length === 1 && keys[0] === 'text' && typeof Reflect.get(value, 'text') === 'string';
}

/** details.text: outcomes from elsewhere may have no details. */
function detailsText(issue: { readonly details?: { readonly text?: unknown } }): unknown {
  return issue.details?.text;
}

/** The rewrite of an expression list (rebaseExpression) as JSON, with the entry's path given; members that are not strings are left out. */
function rebasedListJson(values: readonly unknown[], prefix: string, type: string): string {
  let json = '';
  for (const v of values) if (typeof v === 'string') json += `${json === '' ? '' : ','}${JSON.stringify(rebaseWithPrefix(v, prefix, type))}`;
  return `[${json}]`;
}

function rebaseWithPrefix(expression: string, prefix: string, type: string): string {
  if (expression === type) return prefix;
  if (expression.startsWith(`${type}.`) || expression.startsWith(`${type}[`)) return prefix + expression.slice(type.length);
  return expression === '' ? prefix : `${prefix}.${expression}`;
}

const NO_ISSUES: EncodedEntryIssues = { json: '', count: 0 };

/**
 * The aggregated OperationOutcome's JSON text from every entry's encoded issues, in Bundle order:
 * the text `JSON.stringify` gives for an OperationOutcome of every entry's rebased issues. Above `maxIssues` (a Bundle broken wholesale) the issues are decoded once to keep
 * the first `maxIssues - 1` and one that counts the rest at their worst severity.
 */
export function aggregatedOutcomeJson(entries: readonly EncodedEntryIssues[], maxIssues = MAX_ISSUES_PER_SUBMISSION): string {
  let total = 0;
  for (const entry of entries) total += entry.count;
  if (total <= maxIssues) {
    const parts: string[] = [];
    for (const entry of entries) if (entry.count > 0) parts.push(entry.json);
    return `{"resourceType":"OperationOutcome","issue":[${parts.join(',')}]}`;
  }
  const issue: Issue[] = [];
  let worstOmitted = 0;
  for (const entry of entries) {
    if (entry.count === 0) continue;
    const items: unknown = JSON.parse(`[${entry.json}]`);
    if (!Array.isArray(items)) continue;
    for (const item of items) {
      if (!isIssue(item)) continue;
      if (issue.length < maxIssues - 1) issue.push(item);
      else worstOmitted = Math.max(worstOmitted, SEVERITY_ORDER.indexOf(item.severity));
    }
  }
  issue.push(omittedIssuesIssue(total - issue.length, worstOmitted, maxIssues));
  return JSON.stringify({ resourceType: 'OperationOutcome', issue });
}

/**
 * The encoded issues of several entries as ONE text (what a worker hands back: one string crosses
 * the thread, not one per entry): the entries' texts in order, those with issues separated by a
 * comma, so that `json` is already the inside of the aggregated outcome's issue list. Entry i's
 * text ends at `ends[i]` and has `counts[i]` issues (none: it is empty, and ends where the one
 * before it ended).
 */
export interface JoinedEntryIssues {
  readonly json: string;
  readonly ends: readonly number[];
  readonly counts: readonly number[];
}

export function joinEntryIssues(entries: readonly EncodedEntryIssues[]): JoinedEntryIssues {
  let json = '';
  const ends: number[] = [];
  const counts: number[] = [];
  for (const entry of entries) {
    if (entry.count > 0) json += json === '' ? entry.json : `,${entry.json}`;
    ends.push(json.length);
    counts.push(entry.count);
  }
  return { json, ends, counts };
}

/** Each entry's encoded issues again (joinEntryIssues undone). */
export function splitEntryIssues(joined: JoinedEntryIssues): EncodedEntryIssues[] {
  const entries: EncodedEntryIssues[] = [];
  let end = 0;
  for (const [i, count] of joined.counts.entries()) {
    const next = joined.ends[i] ?? end;
    // after the first entry with issues, each entry's text starts after its comma
    entries.push(count > 0 ? { json: joined.json.slice(end === 0 ? 0 : end + 1, next), count } : NO_ISSUES);
    end = next;
  }
  return entries;
}

/** aggregatedOutcomeJson of the joined entries: their text wrapped as it is, unless they pass `maxIssues`. */
export function joinedOutcomeJson(joined: JoinedEntryIssues, maxIssues = MAX_ISSUES_PER_SUBMISSION): string {
  let total = 0;
  for (const count of joined.counts) total += count;
  if (total <= maxIssues) return `{"resourceType":"OperationOutcome","issue":[${joined.json}]}`;
  return aggregatedOutcomeJson(splitEntryIssues(joined), maxIssues);
}

/** The text of the definite outcome of a submission that could not be obtained or read (404, unreadable answer). */
export function unobtainableOutcomeJson(message: string, code: 'not-found' | 'invalid'): string {
  const outcome: ValidationOutcome = { resourceType: 'OperationOutcome', issue: [{ severity: 'fatal', code, details: { text: message } }] };
  return JSON.stringify(outcome);
}

/**
 * The aggregated outcome's text decoded ONCE, straight into the issues the flow categorizes (the
 * flow's one text → object crossing): no OperationOutcome value is kept in between.
 */
export function outcomeIssues(outcomeJson: string): ValidationIssue[] {
  const outcome: unknown = JSON.parse(outcomeJson);
  return typeof outcome === 'object' && outcome !== null ? issuesFromOperationOutcome(outcome) : [];
}

/** An issue as encodeEntryIssues writes it (its severity is all the cut reads). */
function isIssue(value: unknown): value is Issue {
  return typeof value === 'object' && value !== null && SEVERITY_ORDER.some((severity) => severity === Reflect.get(value, 'severity'));
}
