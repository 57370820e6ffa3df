/**
 * THE validity rule of a submission, used by ValidationComplete, the results API and the
 * pre-qualification report (one function, so they can never disagree):
 *
 *   A submission is valid when no issue falls in a category that is not acceptable,
 *   and no error or fatal issue is uncategorized.
 *
 * So: information and warning issues that match no category do not count against a submission;
 * an uncategorized error or fatal issue does (the original system let those pass: "the legacy gap").
 * An issue in several categories is fine only when all of them are acceptable.
 */
import { UNCATEGORIZED_ID, type Category } from './category.js';

export interface IssueForValidity {
  readonly severity?: string;
  /** Categories of the issue; empty or only `uncategorized` means uncategorized. */
  readonly categories: readonly Pick<Category, 'id' | 'acceptable'>[];
}

export interface ValidityVerdict {
  readonly valid: boolean;
  /** Issues with at least one category that is not acceptable. */
  readonly unacceptableIssueCount: number;
  /** Error or fatal issues that no category matches. */
  readonly uncategorizedErrorCount: number;
  /** Every uncategorized issue, whatever its severity (for reporting). */
  readonly uncategorizedIssueCount: number;
}

const BLOCKING_SEVERITIES = new Set(['error', 'fatal']);

/** Error or fatal, in any case (the engine writes them in lower case). */
function isBlocking(severity: string | undefined): boolean {
  return severity === 'error' || severity === 'fatal' || BLOCKING_SEVERITIES.has((severity ?? '').toLowerCase());
}

export function assessValidity(issues: Iterable<IssueForValidity>): ValidityVerdict {
  let unacceptable = 0;
  let uncategorizedErrors = 0;
  let uncategorized = 0;
  // The flow asks this for every submission's ~100 issues: one pass over each issue's categories, no list built.
  for (const issue of issues) {
    let real = 0;
    let notAcceptable = false;
    for (const category of issue.categories) {
      if (category.id === UNCATEGORIZED_ID) continue;
      real++;
      if (!category.acceptable) notAcceptable = true;
    }
    if (real === 0) {
      uncategorized++;
      if (isBlocking(issue.severity)) uncategorizedErrors++;
    } else if (notAcceptable) {
      unacceptable++;
    }
  }
  return {
    valid: unacceptable === 0 && uncategorizedErrors === 0,
    unacceptableIssueCount: unacceptable,
    uncategorizedErrorCount: uncategorizedErrors,
    uncategorizedIssueCount: uncategorized,
  };
}

/**
 * The same rule from counts a store computed itself (the results API counts in SQL instead of
 * loading every issue): `unacceptableIssueCount` = issues with at least one category that is not
 * acceptable; `uncategorizedErrorCount` = error or fatal issues without any category.
 */
export function verdictFromCounts(counts: Omit<ValidityVerdict, 'valid'>): ValidityVerdict {
  return { valid: counts.unacceptableIssueCount === 0 && counts.uncategorizedErrorCount === 0, ...counts };
}

export function isSubmissionValid(issues: Iterable<IssueForValidity>): boolean {
  return assessValidity(issues).valid;
}
