/**
 * Categorization (specification step 5): every category's latest rule is tested against every
 * issue; an issue gets ALL matching categories (no priority), in the order the categories were
 * given; an issue no rule matches gets `uncategorized`.
 */
import { UNCATEGORIZED, type Category, type CategoryWithMatcher } from './category.js';
import type { MatchableIssue } from './matcher.js';

export type Categorized<I> = I & { readonly categories: readonly Category[] };

export class Categorizer {
  constructor(private readonly rules: readonly CategoryWithMatcher[]) {}

  /** The matching categories; `[UNCATEGORIZED]` when none matches. */
  categoriesOf(issue: MatchableIssue): Category[] {
    const matched: Category[] = [];
    for (const rule of this.rules) {
      if (rule.matcher.matches(issue)) matched.push(rule.category);
    }
    return matched.length > 0 ? matched : [UNCATEGORIZED];
  }

  categorize<I extends MatchableIssue>(issues: readonly I[]): Categorized<I>[] {
    return issues.map((issue) => ({ ...issue, categories: this.categoriesOf(issue) }));
  }
}

/** True when the issue only carries the placeholder category. */
export function isUncategorized(categories: readonly Pick<Category, 'id'>[]): boolean {
  return categories.length === 0 || (categories.length === 1 && categories[0]!.id === UNCATEGORIZED.id);
}
