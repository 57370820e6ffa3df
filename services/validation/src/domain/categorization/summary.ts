/**
 * Summaries of a list of issues: how often each message occurs, or how many issues each category
 * holds. Sorted by count (descending), then by text, so the answer is stable.
 */
import type { Category } from './category.js';

export interface MessageCount {
  readonly value: string;
  readonly count: number;
}

export interface CategoryCount {
  readonly categoryId: string;
  readonly title: string;
  readonly severity: Category['severity'];
  readonly acceptable: boolean;
  readonly count: number;
}

export function summarizeByMessage(issues: Iterable<{ readonly message?: string }>): MessageCount[] {
  const counts = new Map<string, number>();
  for (const issue of issues) {
    const message = issue.message ?? '';
    counts.set(message, (counts.get(message) ?? 0) + 1);
  }
  return [...counts].map(([value, count]) => ({ value, count }))
    .sort((a, b) => b.count - a.count || a.value.localeCompare(b.value));
}

/** An issue in two categories counts once in each. */
export function summarizeByCategory(issues: Iterable<{ readonly categories: readonly Category[] }>): CategoryCount[] {
  const counts = new Map<string, { category: Category; count: number }>();
  for (const issue of issues) {
    for (const category of issue.categories) {
      const entry = counts.get(category.id);
      if (entry) entry.count++;
      else counts.set(category.id, { category, count: 1 });
    }
  }
  return [...counts.values()]
    .map(({ category, count }) => ({ categoryId: category.id, title: category.title, severity: category.severity, acceptable: category.acceptable, count }))
    .sort((a, b) => b.count - a.count || a.categoryId.localeCompare(b.categoryId));
}
