/**
 * Stored validation results: queries for the API (paged, severity filter), category counts,
 * issues of one category, and the store of handed-over issues (tests, seeding).
 */
import { UNCATEGORIZED, UNCATEGORIZED_ID, type Category } from '../domain/categorization/category.js';
import { uncategorizedHolding } from '../domain/results/uncategorized-label.js';
import { verdictFromCounts, type ValidityVerdict } from '../domain/categorization/validity.js';
import type { CategoryRepository } from '../domain/ports/category-repository.js';
import { parseSeverity, type IssueSeverity } from '../domain/results/issue-severity.js';
import type { NewResult, PageRequest, PatientKey, ResultRepository, ResultScope, StoredResult } from '../domain/ports/result-repository.js';
import { NotFoundError } from '#shared-kernel/domain/errors.js';

export interface ResultView extends Omit<StoredResult, 'categoryIds'> {
  readonly categories: readonly Category[];
}

export interface CategoryWithCount extends Category {
  readonly count: number;
}

export class ResultService {
  constructor(private readonly results: ResultRepository, private readonly categories: CategoryRepository) {}

  /** Unknown severity text → 400 (UnknownSeverityError, an InvalidInputError). */
  parseMinimumSeverity(text: string | undefined): IssueSeverity | undefined {
    if (text === undefined || text.trim() === '') return undefined;
    return parseSeverity(text);
  }

  async find(scope: ResultScope, minimumSeverity: IssueSeverity | undefined, page: PageRequest): Promise<{ records: ResultView[]; totalCount: number }> {
    const [found, byId] = await Promise.all([this.results.findResults(scope, minimumSeverity, page), this.categoryIndex()]);
    return { records: found.records.map((r) => view(r, byId)), totalCount: found.totalCount };
  }

  /** Categories that have issues in the report, with their counts (uncategorized included), most first. */
  async categoriesWithCounts(facilityId: string, reportId: string): Promise<CategoryWithCount[]> {
    const [counts, byId] = await Promise.all([this.results.countByCategory(facilityId, reportId), this.categoryIndex()]);
    return counts.flatMap(({ categoryId, count, blockingCount }) => {
      // Uncategorized is labelled ERROR when it holds errors (they make the report invalid), else WARNING.
      const category = categoryId === UNCATEGORIZED_ID ? uncategorizedHolding((blockingCount ?? 0) > 0 ? 'error' : 'warning') : byId.get(categoryId);
      return category ? [{ ...category, count }] : [];
    });
  }

  async issuesOfCategory(facilityId: string, reportId: string, categoryId: string, page: PageRequest): Promise<{ records: ResultView[]; totalCount: number }> {
    const byId = await this.categoryIndex();
    if (!byId.has(categoryId)) throw new NotFoundError(`No category with id "${categoryId}"`);
    const found = await this.results.findByCategory(facilityId, reportId, categoryId, page);
    return { records: found.records.map((r) => view(r, byId)), totalCount: found.totalCount };
  }

  /**
   * The validity verdict of stored results (a whole report, or one patient's submission).
   * NotFoundError when nothing of the scope was validated: no results is no verdict, not "valid"
   * (specification: GET of a missing resource is 404).
   */
  async validity(scope: ResultScope): Promise<ValidityVerdict & { issueCount: number }> {
    const found = await this.results.validityCounts(scope);
    if (!found) {
      throw new NotFoundError(scope.patientId === undefined
        ? `No validated submission for facility ${scope.facilityId} and report ${scope.reportId}`
        : `No validated submission of patient ${scope.patientId} for facility ${scope.facilityId} and report ${scope.reportId}`);
    }
    const { issueCount, ...counts } = found;
    return { ...verdictFromCounts(counts), issueCount };
  }

  /** Replaces the stored results of one patient submission (one transaction, bulk insert). */
  storePatientResults(key: PatientKey, results: readonly NewResult[]): Promise<number> {
    return this.results.replacePatientResults(key, results);
  }

  private async categoryIndex(): Promise<Map<string, Category>> {
    const list = await this.categories.list();
    const byId = new Map(list.map((c) => [c.id, c]));
    byId.set(UNCATEGORIZED_ID, UNCATEGORIZED);
    return byId;
  }
}

function view(result: StoredResult, byId: ReadonlyMap<string, Category>): ResultView {
  const { categoryIds, ...rest } = result;
  const categories = categoryIds.map((id) => byId.get(id)).filter((c): c is Category => c !== undefined);
  return { ...rest, categories: categories.length > 0 ? categories : [uncategorizedHolding(result.severity)] };
}
