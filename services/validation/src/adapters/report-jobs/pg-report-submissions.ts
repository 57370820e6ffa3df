/**
 * The stored submissions of a report as the report jobs see them (table validation_outcome, one
 * row per patient submission: submission-results-table.ts).
 *
 * Re-categorizing one patient is one transaction holding the submission's row lock (the lock the
 * flow's upsert takes), so it never interleaves with a validation of that submission: the stored issues
 * are categorized with the given rules, and the stored verdict (valid, uncategorized and
 * unacceptable counts) is updated. The outcome hash is left alone: it names the outcome last
 * ANNOUNCED, so the next validation of the submission announces the new categorization.
 * An unobtainable submission (report not found or unreadable) is a definite failure and stays
 * invalid whatever the rules say, as in the flow.
 */
import type { MikroORM } from '@mikro-orm/postgresql';
import type { Categorizer } from '../../domain/categorization/categorizer.js';
import { assessValidity } from '../../domain/categorization/validity.js';
import type { SubmissionKey } from '../../domain/flow/submission.js';
import { categorizeIssues } from '../../domain/results/submission-categorization.js';
import { readSubmissionIssues, updateCategorizationIn } from '../persistence/result-repository.js';
import { SUBMISSION_RESULTS_TABLE } from '../persistence/submission-results-table.js';
import type { ReportSubmissions } from '../../application/report-jobs/report-job.js';

export class PgReportSubmissions implements ReportSubmissions {
  constructor(private readonly orm: MikroORM) {}

  async validatedPatients(facilityId: string, reportId: string): Promise<string[]> {
    const rows = await this.orm.em.fork().getKysely<any>().selectFrom(SUBMISSION_RESULTS_TABLE).select('patient_id')
      .where('facility_id', '=', facilityId).where('report_id', '=', reportId).orderBy('patient_id').execute() as { patient_id: string }[];
    return rows.map((row) => row.patient_id);
  }

  recategorizePatient(key: SubmissionKey, categorizer: Categorizer): Promise<void> {
    return this.orm.em.fork().transactional(async (tx) => {
      const stored = await readSubmissionIssues(tx, key, { lock: true });
      if (!stored) return;
      const categorized = categorizer.categorize(stored.issues);
      const verdict = assessValidity(categorized);
      await updateCategorizationIn(tx, key, categorizeIssues(categorized),
        { valid: !stored.unobtainable && verdict.valid, uncategorizedCount: verdict.uncategorizedIssueCount, unacceptableCount: verdict.unacceptableIssueCount });
    });
  }
}
