/**
 * Categorizing results a caller sent ($categorize), with the stored rules or with rules the caller
 * sent to try them: the work such a request asks for is bounded before it is done, and it is done
 * where a deadline can stop it (a validation worker, see ports/categorization-runner.ts).
 *
 * RE2 matching is linear in the value, but its cost per character grows with the size of the
 * compiled pattern: 40 leaves like `[\p{L}\d]{900}` over 20 messages of 2 KB took 68 s on one thread.
 * So rules the caller sent are priced before matching (matchingCost: per leaf and distinct value, the
 * program size times the value's length when the value reaches the regex engine), the steps matching
 * may take at worst. Past MAX_TRIAL_COST the request is refused, naming the limit. The stored rules (an
 * administrator's, ~150 mostly literal leaves) are not priced here: they were bounded when written
 * (MAX_RULE_PROGRAM_SIZE per leaf, matcher.ts), every rule sees at most MAX_MATCHED_CHARACTERS of a
 * field, and the deadline bounds the rest.
 */
import type { FieldProblem } from '#shared-kernel/domain/errors.js';
import { Categorizer } from './categorizer.js';
import { CategoryValidationError, parseCategorySnapshot, parseCategorySnapshots, type Category, type CategoryWithMatcher } from './category.js';
import { fieldValue, MATCH_FIELDS, matcherTree, type MatchableIssue, type MatchField, type MatcherTree } from './matcher.js';
import type { UserRegex } from './user-regex.js';

/**
 * Matching steps (RE2 program size × characters) rules sent with a request may cost at worst. Measured
 * at 11-33 ns a step on one core for patterns like the one above (40 such leaves over 20 messages of
 * 2 KB are 1.5e9 steps: 16 s on the development machine), the limit is 1-1.7 s of a worker at worst.
 * Real rules run far below their price (the bundled categories: ~2 ns a step), so trying all of them
 * on ~500 messages of one family fits; the stored rules are not priced at all.
 */
export const MAX_TRIAL_COST = 50_000_000;

export interface CategorizationTask {
  /** The fields rules read of each result, in order (only these cross to the worker). */
  readonly issues: readonly MatchableIssue[];
  /** Category snapshots (id, title, severity, acceptable, guidance, matcher), as stored or as the caller sent them. */
  readonly categories: unknown;
  /**
   * `caller`: rules sent with the request: every one must compile (else 400 naming it), and their cost
   * is bounded by MAX_TRIAL_COST. `stored`: the stored latest rules: one that no longer compiles is
   * skipped, as the service's categorizer skips it.
   */
  readonly rules: 'caller' | 'stored';
}

export type CategorizationAnswer =
  /** Per issue, the indexes in `categories` of the categories it matched; none = uncategorized. */
  | { readonly kind: 'categorized'; readonly categories: readonly Category[]; readonly matches: readonly (readonly number[])[] }
  /** A rule the caller sent is not valid (the problems name index and field). */
  | { readonly kind: 'invalid'; readonly message: string; readonly problems: readonly FieldProblem[] }
  /** The caller's rules would cost more than `limit` matching steps over these results. */
  | { readonly kind: 'too-costly'; readonly cost: number; readonly limit: number };

/** The categories of each issue, or why the request is refused. Synchronous: run it where a deadline can stop it. */
export function categorizeBounded(task: CategorizationTask): CategorizationAnswer {
  let rules: CategoryWithMatcher[];
  try {
    rules = task.rules === 'caller' ? parseCaller(task.categories) : parseStored(task.categories);
  } catch (error) {
    if (error instanceof CategoryValidationError) return { kind: 'invalid', message: error.message, problems: error.problems };
    throw error;
  }
  if (task.rules === 'caller') {
    const cost = matchingCost(rules, task.issues);
    if (cost > MAX_TRIAL_COST) return { kind: 'too-costly', cost, limit: MAX_TRIAL_COST };
  }
  const categorizer = new Categorizer(rules);
  const index = new Map(rules.map(({ category }, i) => [category, i]));
  const matches = task.issues.map((issue) => categorizer.categoriesOf(issue).flatMap((category) => {
    const i = index.get(category);
    return i === undefined ? [] : [i]; // UNCATEGORIZED is no rule's
  }));
  return { kind: 'categorized', categories: rules.map(({ category }) => category), matches };
}

/**
 * The steps matching may take at worst, as the Categorizer matches (categorizer.ts, field-leaves.ts):
 * each distinct value of a field is tested once by each distinct leaf on that field; a leaf whose
 * matches all start with or contain known texts runs the regex engine only on values that have them
 * (else the texts decide, at about a step per character), and a leaf that is a literal never runs
 * it. A value that reaches the engine costs the leaf's program size per character.
 */
export function matchingCost(rules: readonly CategoryWithMatcher[], issues: readonly MatchableIssue[], options: CostOptions = {}): number {
  const { stopAbove = Infinity, literalChecks = true } = options;
  const leaves = new Map<MatchField, Map<string, UserRegex>>();
  const collect = (tree: MatcherTree): void => {
    if (tree.kind === 'composite') return tree.children.forEach(collect);
    const ofField = leaves.get(tree.field) ?? new Map<string, UserRegex>();
    leaves.set(tree.field, ofField.set(tree.regex.source, tree.regex));
  };
  for (const { matcher } of rules) {
    const tree = matcherTree(matcher);
    if (tree) collect(tree);
  }
  let cost = 0;
  MATCH_FIELDS.forEach((field) => {
    const ofField = leaves.get(field);
    if (!ofField || cost > stopAbove) return;
    const values = new Set<string>();
    for (const issue of issues) {
      const value = fieldValue(issue, field);
      if (value !== undefined) values.add(value);
    }
    for (const regex of ofField.values()) {
      for (const value of values) {
        if (reachesEngine(regex, value)) cost += value.length * regex.programSize;
        else if (literalChecks) cost += value.length;
        if (cost > stopAbove) return; // the caller only needs to know it is over
      }
    }
  });
  return cost;
}

export interface CostOptions {
  /** Stop counting once the cost is above this (the answer is then only known to be above it). */
  readonly stopAbove?: number;
  /** Count the literal checks (a step a character; default): false counts the regex engine's steps only. */
  readonly literalChecks?: boolean;
}

/** Whether the leaf's texts let the value through to the regex engine (a literal leaf never goes there). */
function reachesEngine(regex: UserRegex, value: string): boolean {
  const { exact, prefix, contains } = regex.literal;
  if (exact !== undefined) return false;
  if (prefix !== undefined && !value.startsWith(prefix)) return false;
  if (contains !== undefined && !value.includes(contains)) return false;
  return regex.requiredTexts.every((text) => value.includes(text));
}

function parseCaller(categories: unknown): CategoryWithMatcher[] {
  return parseCategorySnapshots(categories).map(({ snapshot, matcher }) => ({ category: categoryOf(snapshot), matcher }));
}

function parseStored(categories: unknown): CategoryWithMatcher[] {
  if (!Array.isArray(categories)) return [];
  return categories.flatMap((snapshot) => {
    try {
      const parsed = parseCategorySnapshot(snapshot);
      return [{ category: categoryOf(parsed.snapshot), matcher: parsed.matcher }];
    } catch (error) {
      if (error instanceof CategoryValidationError) return [];
      throw error;
    }
  });
}

function categoryOf(snapshot: Category): Category {
  const { id, title, severity, acceptable, guidance } = snapshot;
  return { id, title, severity, acceptable, guidance };
}
