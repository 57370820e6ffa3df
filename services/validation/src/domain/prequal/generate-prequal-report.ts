/**
 * Produces the pre-qualification report of a facility's report from the ports: the latest
 * categories, the stored results (streamed page by page) and, when available, the report
 * service's metadata. The metadata is a nicety: when it cannot be read the report is still made,
 * with a note saying so (the verdict does not depend on it).
 */
import type { IssueSeverity } from '../results/issue-severity.js';
import type { CategoryCatalog, ReportMetadata, ReportMetadataSource, ReportResultsSource } from '../ports/prequal.js';
import { PreQualReportBuilder, type PreQualReport } from './prequal-report.js';

export interface PreQualSources {
  readonly results: ReportResultsSource;
  readonly categories: CategoryCatalog;
  readonly reportMetadata?: ReportMetadataSource;
  /** Told when the report service failed (the report is made without metadata). */
  readonly onMetadataError?: (error: unknown, facilityId: string, reportId: string) => void;
  readonly now?: () => Date;
}

export interface PreQualRequest {
  readonly facilityId: string;
  readonly reportId: string;
  /** Default `information` (every issue). */
  readonly minimumSeverity?: IssueSeverity;
}

export const METADATA_NOT_CONFIGURED = 'Measures and reporting period are not shown: no report service is configured.';
export const METADATA_UNKNOWN_REPORT = 'Measures and reporting period are not shown: the report service does not know this report.';
export const METADATA_FAILED = 'Measures and reporting period are not shown: the report service could not be reached.';

/** Undefined when the report has no stored results at all (nothing to pre-qualify). */
export async function generatePreQualReport(sources: PreQualSources, request: PreQualRequest): Promise<PreQualReport | undefined> {
  const { facilityId, reportId } = request;
  const [categories, described] = await Promise.all([sources.categories.list(), describeReport(sources, facilityId, reportId)]);
  const builder = new PreQualReportBuilder(categories, request.minimumSeverity);
  for await (const page of sources.results.pages(facilityId, reportId)) {
    for (const issue of page) builder.add(issue);
  }
  if (builder.issueCount === 0) return undefined;
  return builder.build({ facilityId, reportId, generatedAt: (sources.now ?? (() => new Date()))(), ...described });
}

async function describeReport(sources: PreQualSources, facilityId: string, reportId: string): Promise<{ metadata?: ReportMetadata; metadataNote?: string }> {
  if (!sources.reportMetadata) return { metadataNote: METADATA_NOT_CONFIGURED };
  try {
    const metadata = await sources.reportMetadata.describe(facilityId, reportId);
    return metadata ? { metadata } : { metadataNote: METADATA_UNKNOWN_REPORT };
  } catch (error) {
    sources.onMetadataError?.(error, facilityId, reportId);
    return { metadataNote: METADATA_FAILED };
  }
}
