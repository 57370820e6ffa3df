/**
 * Port: where validation results (the issues of each patient submission, with their categories) are kept.
 * Category ids are answered as the categories are when read: deleted ones are left out.
 */
import type { IssueSeverity } from '../results/issue-severity.js';
import type { ValidationIssue } from '../results/validation-issue.js';

export interface PatientKey {
  readonly facilityId: string;
  readonly reportId: string;
  readonly patientId: string;
}

export interface ResultScope {
  readonly facilityId: string;
  readonly reportId: string;
  /** Absent: every patient of the report. */
  readonly patientId?: string;
}

export interface NewResult {
  readonly issue: ValidationIssue;
  /** Real category ids only (never `uncategorized`: an uncategorized result simply has none). */
  readonly categoryIds: readonly string[];
}

export interface StoredResult extends ValidationIssue {
  readonly id: number;
  readonly facilityId: string;
  readonly reportId: string;
  readonly patientId: string;
  readonly categoryIds: readonly string[];
}

export interface PageRequest {
  readonly offset: number;
  readonly limit: number;
}

export interface ResultPage {
  readonly records: readonly StoredResult[];
  readonly totalCount: number;
}

export interface CategoryIssueCount {
  /** `uncategorized` for results without any (existing) category. */
  readonly categoryId: string;
  readonly count: number;
  /** Of them, error or fatal issues. */
  readonly blockingCount?: number;
}

export interface ResultRepository {
  /**
   * Replaces every result of one patient submission by `results`, atomically (a redelivered or
   * repeated validation never duplicates rows). Returns the number of results written.
   */
  replacePatientResults(key: PatientKey, results: readonly NewResult[]): Promise<number>;
  /** Ordered by patient, then by the issue's position in the patient's outcome. */
  findResults(scope: ResultScope, minimumSeverity: IssueSeverity | undefined, page: PageRequest): Promise<ResultPage>;
  /** Issue counts per category for a report, most frequent first. */
  countByCategory(facilityId: string, reportId: string): Promise<CategoryIssueCount[]>;
  /**
   * The counts the validity rule needs (see categorization/validity.ts): issues with a category that
   * is not acceptable, error or fatal issues without a category, and all issues without a category.
   * Undefined when no submission of the scope was ever validated (no verdict to give).
   */
  validityCounts(scope: ResultScope): Promise<{ unacceptableIssueCount: number; uncategorizedErrorCount: number; uncategorizedIssueCount: number; issueCount: number } | undefined>;
  /** Results of one category (`uncategorized` = results without any existing category); ordered as findResults. */
  findByCategory(facilityId: string, reportId: string, categoryId: string, page: PageRequest): Promise<ResultPage>;
}
