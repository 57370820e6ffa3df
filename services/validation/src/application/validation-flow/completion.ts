/**
 * ValidationComplete, as the service announces a submission's verdict: after a validation (the
 * flow) and after a re-categorization that changed the verdict (report jobs). One payload shape and
 * one notion of "a distinct outcome" for both.
 */
import { createHash } from 'node:crypto';
import type { ValidationComplete, ValidationIssueCounts } from '#contracts/types.js';
import type { SubmissionKey } from '../../domain/ports/submission-source.js';


/** ValidationComplete's subject and contract version (from the catalog). */
export interface CompletionMessage {
  readonly subject: string;
  readonly schemaVersion: string;
}

/**
 * Identifies a distinct outcome: what was found (the aggregated OperationOutcome's text) and what it
 * means now (verdict, counts, the categories of each issue). A rule change that flips the verdict is
 * a new outcome. Every ReadyForValidation is announced (flow-store.ts); the hash decides only for a
 * re-validation job, which announces an outcome that differs from the one last announced.
 */
export function distinctOutcomeHash(outcomeJson: string, valid: boolean, counts: Readonly<ValidationIssueCounts>, issueCategories: readonly (readonly string[])[]): string {
  // Fields in a fixed order: the text hashed must not depend on how the caller built `counts`.
  const { total, errors, warnings, information, categorized, uncategorized, unacceptable } = counts;
  return createHash('sha256')
    .update(outcomeJson)
    .update(JSON.stringify({ valid, counts: { total, errors, warnings, information, categorized, uncategorized, unacceptable }, categories: issueCategories }))
    .digest('hex');
}

/** The ValidationComplete payload of one run of a submission. */
export function validationCompletePayload(
  schemaVersion: string, key: SubmissionKey, run: { valid: boolean; runId: string; counts: Readonly<ValidationIssueCounts>; validatedAt: string },
): ValidationComplete {
  return {
    schemaVersion,
    facilityId: key.facilityId,
    patientId: key.patientId,
    reportTrackingId: key.reportId,
    isValid: run.valid,
    validationRunId: run.runId,
    outcomeReference: `/api/result/${encodeURIComponent(key.facilityId)}/${encodeURIComponent(key.reportId)}/${encodeURIComponent(key.patientId)}`,
    issueCounts: { ...run.counts },
    validatedAt: run.validatedAt,
  };
}
