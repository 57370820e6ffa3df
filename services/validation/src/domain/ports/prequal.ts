/**
 * Ports the pre-qualification report reads from: the stored results of a report, the latest
 * categories, and (optionally) the report service's description of the report.
 */
import type { Category } from '../categorization/category.js';

/** One stored result (issue) of a facility's report, with the ids of its categories. */
export interface PreQualIssue {
  /** FHIR severity (`information` … `fatal`); anything else is treated as `error`. */
  readonly severity: string;
  readonly code: string;
  readonly message: string;
  readonly expression?: string;
  readonly patientId?: string;
  /** Real category ids; empty (or only `uncategorized`) when no category matched. */
  readonly categoryIds: readonly string[];
}

/** Reads every stored result of a report, page by page, so a large report is never held whole. */
export interface ReportResultsSource {
  /** Yields nothing when the report has no stored results. */
  pages(facilityId: string, reportId: string): AsyncIterable<readonly PreQualIssue[]>;
}

/** The latest categories (titles, acceptability and guidance are taken from here, not from the results). */
export interface CategoryCatalog {
  list(): Promise<readonly Category[]>;
}

/** What the report service knows about a report (the original's ReportScheduleSummaryModel). */
export interface ReportMetadata {
  readonly measures: readonly string[];
  /** As given by the report service (ISO 8601 expected, shown as is). */
  readonly periodStart?: string;
  readonly periodEnd?: string;
  readonly submittedAt?: string;
}

export interface ReportMetadataSource {
  /** Undefined when the report service does not know the report. */
  describe(facilityId: string, reportId: string): Promise<ReportMetadata | undefined>;
}
