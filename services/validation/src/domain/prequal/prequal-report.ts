/**
 * The pre-qualification report of a facility's report: the verdict by THE validity
 * rule, the categories that hold issues with their counts, and the issues grouped by message. One
 * model, rendered as HTML, JSON or a FHIR OperationOutcome by the adapters.
 *
 * The verdict always considers every issue of the report; the minimum severity only narrows what the
 * tables show (otherwise asking for `fatal` could turn a "No" into a "Yes").
 */
import { UNCATEGORIZED_ID, type Category, type CategorySeverity } from '../categorization/category.js';
import { assessValidity, type IssueForValidity } from '../categorization/validity.js';
import { severityRank, toSeverity, type IssueSeverity } from '../results/issue-severity.js';
import { uncategorizedHolding } from '../results/uncategorized-label.js';
import type { PreQualIssue, ReportMetadata } from '../ports/prequal.js';

/** The rule, in words, for readers of the report (the code is categorization/validity.ts). */
export const PREQUALIFICATION_RULE = 'A report is pre-qualified when no issue falls in a category that is not acceptable '
  + 'and no error or fatal issue is uncategorized.';

/** Locations kept per message group: enough to find the problem, bounded for huge reports. */
export const MAX_EXPRESSION_SAMPLES = 5;

export interface PreQualVerdict {
  readonly preQualified: boolean;
  /** Every issue of the report, whatever the minimum severity shown. */
  readonly issueCount: number;
  readonly unacceptableIssueCount: number;
  readonly uncategorizedErrorCount: number;
  readonly uncategorizedIssueCount: number;
}

export interface PreQualCategoryRow {
  readonly id: string;
  readonly title: string;
  readonly severity: CategorySeverity;
  readonly acceptable: boolean;
  readonly guidance: string;
  /** Shown issues in this category (an issue in two categories counts in both). */
  readonly count: number;
  /** True when these issues stop pre-qualification: an unacceptable category, or uncategorized errors. */
  readonly blocking: boolean;
}

export interface PreQualIssueGroup {
  readonly message: string;
  /** The most severe severity among the group's issues. */
  readonly severity: IssueSeverity;
  /** The code of the group's first issue. */
  readonly code: string;
  readonly count: number;
  /** Distinct patients with this message (issues without a patient id are not counted). */
  readonly patientCount: number;
  /** Ids of every category any issue of the group fell in (`uncategorized` included), in first-seen order. */
  readonly categoryIds: readonly string[];
  /** Up to MAX_EXPRESSION_SAMPLES distinct expressions, in first-seen order. */
  readonly expressions: readonly string[];
}

export interface PreQualReport {
  readonly facilityId: string;
  readonly reportId: string;
  /** ISO 8601. */
  readonly generatedAt: string;
  /** Measures and period from the report service, when it could tell. */
  readonly metadata?: ReportMetadata;
  /** Why the metadata is missing, for the reader. */
  readonly metadataNote?: string;
  /** The tables show issues at this severity or above. */
  readonly minimumSeverity: IssueSeverity;
  readonly verdict: PreQualVerdict;
  readonly shown: { readonly issueCount: number; readonly messageCount: number; readonly patientCount: number };
  /** Most issues first, then by id. */
  readonly categories: readonly PreQualCategoryRow[];
  /** Most issues first, then by message. */
  readonly issues: readonly PreQualIssueGroup[];
}

export interface PreQualReportContext {
  readonly facilityId: string;
  readonly reportId: string;
  readonly generatedAt: Date;
  readonly metadata?: ReportMetadata;
  readonly metadataNote?: string;
}

interface GroupAccumulator {
  readonly message: string;
  severity: IssueSeverity;
  readonly code: string;
  count: number;
  readonly patients: Set<string>;
  readonly categoryIds: Set<string>;
  readonly expressions: Set<string>;
}

/** Issues with the same severity and categories, counted: the verdict needs no more than that. */
interface ValidityClass {
  readonly issue: IssueForValidity;
  count: number;
}

/**
 * Accumulates issues one at a time (pages of a large report are never kept), then builds the report.
 * Category ids unknown to the catalog (a category deleted meanwhile) are ignored; an issue left
 * without a known category is uncategorized, as in the results API.
 */
export class PreQualReportBuilder {
  private readonly catalog: ReadonlyMap<string, Category>;
  private readonly minimumRank: number;
  private readonly validityClasses = new Map<string, ValidityClass>();
  private readonly categoryCounts = new Map<string, number>();
  private readonly groups = new Map<string, GroupAccumulator>();
  private readonly shownPatients = new Set<string>();
  private uncategorizedShownErrors = 0;
  /** The most severe shown issue without a category: the Uncategorized row is labelled with it. */
  private uncategorizedMostSevere: IssueSeverity = 'information';
  private total = 0;
  private shown = 0;

  constructor(categories: readonly Category[], readonly minimumSeverity: IssueSeverity = 'information') {
    this.catalog = new Map(categories.filter((c) => c.id !== UNCATEGORIZED_ID).map((c) => [c.id, c]));
    this.minimumRank = severityRank(minimumSeverity);
  }

  /** Issues added so far, whatever their severity. */
  get issueCount(): number {
    return this.total;
  }

  add(issue: PreQualIssue): void {
    this.total++;
    const severity = toSeverity(issue.severity) ?? 'error';
    const categories = this.resolve(issue.categoryIds);
    this.countForValidity(severity, categories);
    if (severityRank(severity) < this.minimumRank) return;

    this.shown++;
    const categoryIds = categories.length > 0 ? categories.map((c) => c.id) : [UNCATEGORIZED_ID];
    for (const id of categoryIds) this.categoryCounts.set(id, (this.categoryCounts.get(id) ?? 0) + 1);
    if (categories.length === 0) {
      if (severityRank(severity) >= severityRank('error')) this.uncategorizedShownErrors++;
      if (severityRank(severity) > severityRank(this.uncategorizedMostSevere)) this.uncategorizedMostSevere = severity;
    }
    if (issue.patientId) this.shownPatients.add(issue.patientId);

    let group = this.groups.get(issue.message);
    if (!group) {
      group = { message: issue.message, severity, code: issue.code, count: 0, patients: new Set(), categoryIds: new Set(), expressions: new Set() };
      this.groups.set(issue.message, group);
    }
    group.count++;
    if (severityRank(severity) > severityRank(group.severity)) group.severity = severity;
    if (issue.patientId) group.patients.add(issue.patientId);
    for (const id of categoryIds) group.categoryIds.add(id);
    if (issue.expression && group.expressions.size < MAX_EXPRESSION_SAMPLES) group.expressions.add(issue.expression);
  }

  build(context: PreQualReportContext): PreQualReport {
    const validity = assessValidity(this.issuesForValidity());
    const categories = [...this.categoryCounts].map(([id, count]) => this.categoryRow(id, count))
      .sort((a, b) => b.count - a.count || compareText(a.id, b.id));
    const issues: PreQualIssueGroup[] = [...this.groups.values()].map((group) => ({
      message: group.message,
      severity: group.severity,
      code: group.code,
      count: group.count,
      patientCount: group.patients.size,
      categoryIds: [...group.categoryIds],
      expressions: [...group.expressions],
    })).sort((a, b) => b.count - a.count || compareText(a.message, b.message));
    return {
      facilityId: context.facilityId,
      reportId: context.reportId,
      generatedAt: context.generatedAt.toISOString(),
      ...(context.metadata ? { metadata: context.metadata } : {}),
      ...(context.metadataNote ? { metadataNote: context.metadataNote } : {}),
      minimumSeverity: this.minimumSeverity,
      verdict: {
        preQualified: validity.valid,
        issueCount: this.total,
        unacceptableIssueCount: validity.unacceptableIssueCount,
        uncategorizedErrorCount: validity.uncategorizedErrorCount,
        uncategorizedIssueCount: validity.uncategorizedIssueCount,
      },
      shown: { issueCount: this.shown, messageCount: issues.length, patientCount: this.shownPatients.size },
      categories,
      issues,
    };
  }

  private resolve(ids: readonly string[]): Category[] {
    const found: Category[] = [];
    for (const id of new Set(ids)) {
      const category = this.catalog.get(id);
      if (category) found.push(category);
    }
    return found;
  }

  private countForValidity(severity: IssueSeverity, categories: readonly Category[]): void {
    const key = `${severity}|${categories.map((c) => c.id).sort().join('|')}`;
    const known = this.validityClasses.get(key);
    if (known) known.count++;
    else this.validityClasses.set(key, { issue: { severity, categories }, count: 1 });
  }

  /** Every issue again, for assessValidity (THE rule), without having kept them. */
  private *issuesForValidity(): Generator<IssueForValidity> {
    for (const { issue, count } of this.validityClasses.values()) {
      for (let i = 0; i < count; i++) yield issue;
    }
  }

  private categoryRow(id: string, count: number): PreQualCategoryRow {
    const category = id === UNCATEGORIZED_ID ? uncategorizedHolding(this.uncategorizedMostSevere) : this.catalog.get(id);
    if (!category) throw new Error(`Category ${id} was counted but is not in the catalog`);
    const blocking = id === UNCATEGORIZED_ID ? this.uncategorizedShownErrors > 0 : !category.acceptable;
    return {
      id: category.id, title: category.title, severity: category.severity, acceptable: category.acceptable,
      guidance: category.guidance, count, blocking,
    };
  }
}

/** Deterministic (locale-independent) text order, so the same results always give the same report. */
function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Builds the report of a list of issues held in memory (tests, small reports). */
export function buildPreQualReport(
  issues: Iterable<PreQualIssue>, categories: readonly Category[], context: PreQualReportContext, minimumSeverity?: IssueSeverity,
): PreQualReport {
  const builder = new PreQualReportBuilder(categories, minimumSeverity);
  for (const issue of issues) builder.add(issue);
  return builder.build(context);
}
