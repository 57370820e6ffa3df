/**
 * The stored submissions of a report as the report jobs see them (tables validation_outcome,
 * validation_result, result_category).
 *
 * Re-categorizing one patient is one transaction under the same advisory lock the flow's commit
 * takes (flow-store.ts), so it never interleaves with a validation of that submission: the links of
 * the patient's results are replaced, and the stored verdict (valid, uncategorized and unacceptable
 * counts) of validation_outcome is updated. The outcome hash is left alone: it names the outcome
 * last ANNOUNCED, so the next validation of the submission announces the new categorization.
 * A stored outcome with no resources is a definite failure (report not found or unreadable) and
 * stays invalid whatever the rules say, as in the flow.
 */
import type { MikroORM } from '@mikro-orm/postgresql';
import type { Categorizer } from '../../domain/categorization/categorizer.js';
import { assessValidity } from '../../domain/categorization/validity.js';
import type { SubmissionKey } from '../../domain/flow/submission.js';
import { insertCategoryLinksIn } from '../persistence/result-repository.js';
import { VALIDATION_OUTCOME_TABLE } from '../../application/validation-flow/outcome-table.js';
import type { ReportSubmissions } from '../../application/report-jobs/report-job.js';

interface StoredIssueRow { id: string; severity: string; code: string; message: string; expression: string | null }

export class PgReportSubmissions implements ReportSubmissions {
  constructor(private readonly orm: MikroORM) {}

  async validatedPatients(facilityId: string, reportId: string): Promise<string[]> {
    const rows = await this.orm.em.fork().getKysely<any>().selectFrom(VALIDATION_OUTCOME_TABLE).select('patient_id')
      .where('facility_id', '=', facilityId).where('report_id', '=', reportId).orderBy('patient_id').execute() as { patient_id: string }[];
    return rows.map((row) => row.patient_id);
  }

  async patientsWithResults(facilityId: string, reportId: string): Promise<string[]> {
    const db = this.orm.em.fork().getKysely<any>();
    const rows = await db.selectFrom(VALIDATION_OUTCOME_TABLE).select('patient_id').where('facility_id', '=', facilityId).where('report_id', '=', reportId)
      .union(db.selectFrom('validation_result').select('patient_id').where('facility_id', '=', facilityId).where('report_id', '=', reportId))
      .orderBy('patient_id').execute() as { patient_id: string }[];
    return rows.map((row) => row.patient_id);
  }

  recategorizePatient(key: SubmissionKey, categorizer: Categorizer): Promise<void> {
    return this.orm.em.fork().transactional(async (tx) => {
      await tx.execute('select pg_advisory_xact_lock(hashtextextended(?, 0))', [`${VALIDATION_OUTCOME_TABLE}|${key.facilityId}|${key.reportId}|${key.patientId}`]);
      const db = tx.getKysely<any>();
      const rows = await db.selectFrom('validation_result').select(['id', 'severity', 'code', 'message', 'expression'])
        .where('facility_id', '=', key.facilityId).where('report_id', '=', key.reportId).where('patient_id', '=', key.patientId)
        .orderBy('id').execute() as StoredIssueRow[];
      const categorized = categorizer.categorize(rows.map((row) => ({
        id: row.id, severity: row.severity, code: row.code, message: row.message, ...(row.expression === null ? {} : { expression: row.expression }),
      })));

      if (rows.length > 0) {
        await db.deleteFrom('result_category').where('result_id', 'in', rows.map((row) => row.id)).execute();
        // Links only to categories that still exist (one deleted meanwhile must not fail the patient).
        await insertCategoryLinksIn(tx, key, categorized.flatMap((issue) => issue.categories.map((category) => ({ resultId: issue.id, categoryId: category.id }))));
      }

      const verdict = assessValidity(categorized);
      await db.updateTable(VALIDATION_OUTCOME_TABLE)
        .set((eb: any) => ({
          valid: eb.and([eb('resource_count', '>', 0), eb.lit(verdict.valid)]),
          uncategorized_count: verdict.uncategorizedIssueCount,
          unacceptable_count: verdict.unacceptableIssueCount,
          updated_at: new Date(),
        }))
        .where('facility_id', '=', key.facilityId).where('report_id', '=', key.reportId).where('patient_id', '=', key.patientId)
        .execute();
    });
  }
}
