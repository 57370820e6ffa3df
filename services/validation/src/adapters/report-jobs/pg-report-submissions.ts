/**
 * The stored submissions of a report as the report jobs see them (table validation_outcome, one
 * row per patient submission: submission-results-table.ts).
 *
 * Re-categorizing one patient is one transaction holding the submission's row lock (the lock the
 * flow's upsert takes), so it never interleaves with a validation of that submission: the stored issues
 * are categorized with the given rules, and the stored verdict (valid, uncategorized and
 * unacceptable counts) is updated. An unobtainable submission (report not found or unreadable) is
 * a definite failure and stays invalid whatever the rules say, as in the flow.
 *
 * When the verdict changes (and only then), the change is announced like a validation's: a new
 * run id, a ValidationComplete in the outbox in the same transaction (so the new verdict and its
 * announcement commit together), and the outcome hash of what is now stored and announced, so a
 * later re-validation job that finds the same outcome announces nothing new (a new ReadyForValidation
 * is always answered). When it does not change, the
 * hash is left alone: it names the outcome last ANNOUNCED, so the next validation of the submission
 * announces the new categorization.
 */
import { randomUUID } from 'node:crypto';
import type { MikroORM } from '@mikro-orm/postgresql';
import { enqueueOutboxMessage } from '#adapters/persistence/index.js';
import type { ValidationIssueCounts } from '#contracts/types.js';
import type { ReportSubmissions } from '../../domain/ports/report-submissions.js';
import { completionMsgId, distinctOutcomeHash, validationCompletePayload, type CompletionMessage } from '../../application/validation-flow/index.js';
import type { Categorizer } from '../../domain/categorization/categorizer.js';
import { assessValidity } from '../../domain/categorization/validity.js';
import type { SubmissionKey } from '../../domain/ports/submission-source.js';
import { categorizeIssues } from '../../domain/results/submission-categorization.js';
import { readSubmissionIssues, updateCategorizationIn } from '../persistence/result-repository.js';
import { SUBMISSION_RESULTS_TABLE, type SubmissionResultsDatabase } from '../persistence/submission-results-table.js';

export interface PgReportSubmissionsOptions {
  /** ValidationComplete's subject and version: a verdict changed by re-categorization is announced with it. */
  readonly completion: CompletionMessage;
  /** Called after a transaction that enqueued an announcement committed (the outbox relay's notify). */
  readonly afterCommit?: () => void;
  readonly clock?: () => Date;
}

export class PgReportSubmissions implements ReportSubmissions {
  constructor(private readonly orm: MikroORM, private readonly options: PgReportSubmissionsOptions) {}

  async validatedPatients(facilityId: string, reportId: string, after?: string): Promise<string[]> {
    let query = this.orm.em.fork().getKysely<SubmissionResultsDatabase>().selectFrom(SUBMISSION_RESULTS_TABLE).select('patient_id')
      .where('facility_id', '=', facilityId).where('report_id', '=', reportId);
    // The database's order both times (its collation, not JavaScript's), so `after` cuts where the first run got to.
    if (after !== undefined) query = query.where('patient_id', '>', after);
    const rows = await query.orderBy('patient_id').execute();
    return rows.map((row) => row.patient_id);
  }

  async recategorizePatient(key: SubmissionKey, categorizer: Categorizer): Promise<void> {
    const announced = await this.orm.em.fork().transactional(async (tx) => {
      const stored = await readSubmissionIssues(tx, key, { lock: true });
      if (!stored) return false;
      const categorized = categorizer.categorize(stored.issues);
      const verdict = assessValidity(categorized);
      const valid = !stored.unobtainable && verdict.valid;
      const categorization = categorizeIssues(categorized);
      const newVerdict = { valid, uncategorizedCount: verdict.uncategorizedIssueCount, unacceptableCount: verdict.unacceptableIssueCount };
      if (valid === stored.valid) {
        await updateCategorizationIn(tx, key, categorization, newVerdict);
        return false;
      }
      const { severities } = stored;
      const counts: ValidationIssueCounts = {
        total: severities.issues, errors: severities.errors, warnings: severities.warnings, information: severities.information,
        categorized: severities.issues - verdict.uncategorizedIssueCount, uncategorized: verdict.uncategorizedIssueCount,
        unacceptable: verdict.unacceptableIssueCount,
      };
      const runId = randomUUID();
      const outcomeHash = distinctOutcomeHash(stored.outcomeJson, valid, counts, categorization.issueCategories);
      await updateCategorizationIn(tx, key, categorization, newVerdict, { runId, outcomeHash });
      const validatedAt = (this.options.clock?.() ?? new Date()).toISOString();
      await enqueueOutboxMessage(tx, {
        subject: this.options.completion.subject,
        payload: validationCompletePayload(this.options.completion.schemaVersion, key, { valid, runId, counts, validatedAt }),
        msgId: completionMsgId(key, runId),
      });
      return true;
    });
    if (announced) this.options.afterCommit?.();
  }
}
