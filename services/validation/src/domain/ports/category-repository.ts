/**
 * Port: where categories and their versioned rules are kept. Every new rule is kept; the latest
 * (by timestamp, then id) is the current one.
 */
import type { Category, CategorySnapshot } from '../categorization/category.js';
import type { MatcherJson } from '../categorization/matcher.js';

export interface CategoryRule {
  /** Auto-incremented id (deleting a rule uses it). */
  readonly id: number;
  readonly categoryId: string;
  readonly matcher: MatcherJson;
  /** ISO 8601. */
  readonly timestamp: string;
}

export interface CategoryWithLatestRule {
  readonly category: Category;
  /** Undefined when the category has no rule (it then matches nothing). */
  readonly rule?: CategoryRule;
}

export interface CategoryRepository {
  list(): Promise<Category[]>;
  get(id: string): Promise<Category | undefined>;
  /** Creates or updates; tells which. */
  save(category: Category): Promise<{ created: boolean }>;
  /** Deletes the category and its rules (stored results then count its issues as uncategorized). False when it did not exist. */
  delete(id: string): Promise<boolean>;
  count(): Promise<number>;

  latestRule(categoryId: string): Promise<CategoryRule | undefined>;
  /** Newest first. */
  ruleHistory(categoryId: string): Promise<CategoryRule[]>;
  addRule(categoryId: string, matcher: MatcherJson, timestamp: Date): Promise<CategoryRule>;
  deleteRule(ruleId: number): Promise<boolean>;

  /** Every category with its latest rule, in id order (one query, not one per category). */
  listWithLatestRules(): Promise<CategoryWithLatestRule[]>;

  /**
   * Imports snapshots in ONE transaction: each category is created or updated (title, severity,
   * acceptable, guidance as given) and gets a new rule unless its latest rule already equals the
   * given matcher (so repeating an import does not grow the history). With `replaceAll`, categories
   * not in the list are deleted too.
   */
  importSnapshots(snapshots: readonly CategorySnapshot[], timestamp: Date, options?: { replaceAll?: boolean }): Promise<ImportOutcome>;
}

export interface ImportOutcome {
  readonly created: number;
  readonly updated: number;
  readonly rulesAdded: number;
  readonly deleted: number;
}
