/**
 * Categorization (specification step 5): every category's latest rule is tested against every
 * issue; an issue gets ALL matching categories (no priority), in the order the categories were
 * given; an issue no rule matches gets `uncategorized`.
 */
import { UNCATEGORIZED, type Category, type CategoryWithMatcher } from './category.js';
import type { MatchableIssue } from './matcher.js';

export type Categorized<I> = I & { readonly categories: readonly Category[] };

/**
 * Answers remembered per categorizer. Matchers only read the four fields of MatchableIssue, so an
 * issue with the same four values gets the same categories; submissions repeat the same issues
 * across patients (same EHR mapping, same profiles), and re-running 50 regex trees on each costs
 * more than the rest of the per-issue work. Bounded: when full, the memory starts over.
 */
const MAX_REMEMBERED_ISSUES = 20_000;

export class Categorizer {
  private readonly remembered = new Map<string, readonly Category[]>();

  constructor(private readonly rules: readonly CategoryWithMatcher[]) {}

  /** The matching categories; `[UNCATEGORIZED]` when none matches. */
  categoriesOf(issue: MatchableIssue): Category[] {
    const key = JSON.stringify([issue.severity, issue.code, issue.expression, issue.message]);
    const known = this.remembered.get(key);
    if (known) return [...known];
    const matched: Category[] = [];
    for (const rule of this.rules) {
      if (rule.matcher.matches(issue)) matched.push(rule.category);
    }
    const categories = matched.length > 0 ? matched : [UNCATEGORIZED];
    if (this.remembered.size >= MAX_REMEMBERED_ISSUES) this.remembered.clear();
    this.remembered.set(key, categories);
    return [...categories];
  }

  categorize<I extends MatchableIssue>(issues: readonly I[]): Categorized<I>[] {
    return issues.map((issue) => ({ ...issue, categories: this.categoriesOf(issue) }));
  }
}

/** True when the issue only carries the placeholder category. */
export function isUncategorized(categories: readonly Pick<Category, 'id'>[]): boolean {
  return categories.length === 0 || (categories.length === 1 && categories[0]!.id === UNCATEGORIZED.id);
}
