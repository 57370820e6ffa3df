/**
 * A patient submission's categorized issues in the compact form kept per submission:
 *
 * - the category ids of each issue, in the order of the stored OperationOutcome's issues;
 * - the issues counted per distinct set of categories ("groups"), with how many of them are
 *   error or fatal.
 *
 * The groups answer every report-level question (issues per category, uncategorized issues, the
 * validity counts) without reading a single issue, and they are evaluated against the categories
 * as they are when asked: a deleted category no longer counts (an issue whose categories are all
 * deleted is uncategorized), and a category made acceptable stops counting against validity at
 * once. What a stored issue's categories ARE only changes when it is categorized again (the flow
 * or a re-categorization), as with any rule change.
 */
import { UNCATEGORIZED_ID } from '../categorization/category.js';
import { assessValidity, type ValidityVerdict } from '../categorization/validity.js';
import type { IssueSeverity } from './issue-severity.js';

export interface CategorizedResult {
  readonly severity: IssueSeverity;
  /** Real category ids (`uncategorized` is the absence of any). */
  readonly categoryIds: readonly string[];
}

export interface CategoryGroup {
  /** Sorted, without `uncategorized`; empty for the issues no category matched. */
  readonly categoryIds: readonly string[];
  readonly issues: number;
  /** Of those, error or fatal issues (the ones that block a submission when uncategorized). */
  readonly blockingIssues: number;
}

export interface SeverityCounts {
  readonly issues: number;
  readonly information: number;
  readonly warnings: number;
  /** Error AND fatal issues (what ValidationComplete calls errors). */
  readonly errors: number;
  readonly fatal: number;
}

export interface SubmissionCategorization {
  /** Per issue, its real category ids (in category order). */
  readonly issueCategories: readonly (readonly string[])[];
  readonly groups: readonly CategoryGroup[];
  readonly severities: SeverityCounts;
}

const isBlocking = (severity: IssueSeverity) => severity === 'error' || severity === 'fatal';

export function categorizeSubmission(results: readonly CategorizedResult[]): SubmissionCategorization {
  const summary = new CategorizationSummary();
  for (const result of results) summary.add(result.severity, realCategoryIds(result.categoryIds));
  return summary.done();
}

/** The same, for issues as the categorizer returns them (with their categories, `uncategorized` included). */
export function categorizeIssues(issues: readonly { severity: IssueSeverity; categories: readonly { id: string }[] }[]): SubmissionCategorization {
  const summary = new CategorizationSummary();
  for (const issue of issues) {
    // The flow's every issue: nearly always one category (often `uncategorized`), so no array of ids is built for it first.
    const { categories } = issue;
    const only = categories.length === 1 ? categories[0] : undefined;
    const ids = only ? (only.id === UNCATEGORIZED_ID ? [] : [only.id]) : realCategoryIds(categories.map((category) => category.id));
    summary.add(issue.severity, ids);
  }
  return summary.done();
}

/** An issue's category ids without repeats and without `uncategorized`, in their order. */
function realCategoryIds(ids: readonly string[]): string[] {
  const [first] = ids;
  if (ids.length === 1 && first !== undefined) return first === UNCATEGORIZED_ID ? [] : [first];
  return [...new Set(ids)].filter((id) => id !== UNCATEGORIZED_ID);
}

/**
 * Sums up a submission's issues one by one: categorizeSubmission and categorizeIssues read their
 * issues differently and sum them up alike. It runs for every issue the flow stores (~100 per
 * submission), hence the shortcuts for an issue with no category or one.
 */
class CategorizationSummary {
  private readonly issueCategories: string[][] = [];
  private readonly groups = new Map<string, { categoryIds: string[]; issues: number; blockingIssues: number }>();
  private information = 0;
  private warnings = 0;
  private errors = 0;
  private fatal = 0;

  add(severity: IssueSeverity, ids: string[]): void {
    this.issueCategories.push(ids);
    const sorted = ids.length > 1 ? [...ids].sort() : ids;
    const key = sorted.length === 1 ? (sorted[0] ?? '') : sorted.join('\u0000');
    let group = this.groups.get(key);
    if (group === undefined) {
      // A copy where `sorted` is the issue's own array (none or one id): the two are never one object.
      group = { categoryIds: sorted === ids ? [...sorted] : sorted, issues: 0, blockingIssues: 0 };
      this.groups.set(key, group);
    }
    group.issues++;
    if (isBlocking(severity)) group.blockingIssues++;
    if (severity === 'information') this.information++;
    else if (severity === 'warning') this.warnings++;
    else {
      this.errors++;
      if (severity === 'fatal') this.fatal++;
    }
  }

  done(): SubmissionCategorization {
    const { information, warnings, errors, fatal } = this;
    return {
      issueCategories: this.issueCategories, groups: [...this.groups.values()],
      severities: { issues: this.issueCategories.length, information, warnings, errors, fatal },
    };
  }
}

/** The categories as they are now: which exist, and whether each is acceptable. */
export type CurrentCategories = ReadonlyMap<string, { readonly acceptable: boolean }>;

/** Issues per existing category, plus `uncategorized`; most frequent first (ties by id). */
export function issuesPerCategory(groups: Iterable<CategoryGroup>, current: CurrentCategories): { categoryId: string; count: number; blockingCount: number }[] {
  const counts = new Map<string, { count: number; blockingCount: number }>();
  for (const group of groups) {
    const existing = group.categoryIds.filter((id) => current.has(id));
    for (const id of existing.length > 0 ? existing : [UNCATEGORIZED_ID]) {
      const entry = counts.get(id) ?? { count: 0, blockingCount: 0 };
      entry.count += group.issues;
      entry.blockingCount += group.blockingIssues;
      counts.set(id, entry);
    }
  }
  return [...counts].map(([categoryId, entry]) => ({ categoryId, ...entry }))
    .filter((entry) => entry.count > 0)
    .sort((a, b) => b.count - a.count || a.categoryId.localeCompare(b.categoryId));
}

/** THE validity rule (validity.ts) over groups: each group stands for its issues. */
export function validityOfGroups(groups: Iterable<CategoryGroup>, current: CurrentCategories): ValidityVerdict & { issueCount: number } {
  let unacceptable = 0;
  let uncategorizedErrors = 0;
  let uncategorized = 0;
  let issueCount = 0;
  for (const group of groups) {
    const categories = group.categoryIds.flatMap((id) => {
      const found = current.get(id);
      return found ? [{ id, acceptable: found.acceptable }] : [];
    });
    // Two representative issues (one blocking, one not) give the rule's answer for the whole group.
    const blocking = assessValidity([{ severity: 'error', categories }]);
    const other = assessValidity([{ severity: 'information', categories }]);
    issueCount += group.issues;
    unacceptable += blocking.unacceptableIssueCount * group.issues;
    uncategorized += other.uncategorizedIssueCount * group.issues;
    uncategorizedErrors += blocking.uncategorizedErrorCount * group.blockingIssues;
  }
  return {
    valid: unacceptable === 0 && uncategorizedErrors === 0,
    unacceptableIssueCount: unacceptable, uncategorizedErrorCount: uncategorizedErrors, uncategorizedIssueCount: uncategorized, issueCount,
  };
}

/** Whether an issue with these stored category ids counts as uncategorized now. */
export function isUncategorizedNow(categoryIds: readonly string[], current: CurrentCategories): boolean {
  return !categoryIds.some((id) => current.has(id));
}
