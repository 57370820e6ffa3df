/**
 * The pre-qualification ports over the validation API's services (the composition root's glue):
 * results are read through ResultService page by page, categories from CategoryService.
 */
import type { ResultService } from '../../application/result-service.js';
import type { CategoryCatalog, PreQualIssue, ReportResultsSource } from '../../domain/ports/prequal.js';

/** Results per page read from the store: large enough to be few queries, small enough to stream. */
export const RESULT_PAGE_SIZE = 1000;

export function resultServiceSource(service: Pick<ResultService, 'find'>, pageSize = RESULT_PAGE_SIZE): ReportResultsSource {
  return {
    async *pages(facilityId, reportId) {
      for (let offset = 0; ; offset += pageSize) {
        const page = await service.find({ facilityId, reportId }, undefined, { offset, limit: pageSize });
        if (page.records.length === 0) return;
        yield page.records.map((record): PreQualIssue => ({
          severity: record.severity,
          code: record.code,
          message: record.message,
          ...(record.expression === undefined ? {} : { expression: record.expression }),
          patientId: record.patientId,
          categoryIds: record.categories.map((category) => category.id),
        }));
        if (offset + page.records.length >= page.totalCount) return;
      }
    },
  };
}

/** CategoryService (or the repository) already has the right shape; named for readability at the root. */
export function categoryServiceCatalog(service: CategoryCatalog): CategoryCatalog {
  return { list: () => service.list() };
}
