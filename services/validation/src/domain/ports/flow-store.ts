/**
 * Port of the validation flow's transaction: steps (4)-(6) of a submission (store the outcome and
 * its categorized results, enqueue ValidationComplete) committed together. PostgreSQL implements it
 * (adapters/persistence/pg-flow-store.ts); the flow's unit tests use an in-memory store held to the
 * same contract (test/flow/flow-store.contract.int.spec.ts).
 *
 * The record is complete when it is handed over: the flow has chosen the run id and built the
 * announcement that names it. The store decides only WHETHER to announce (see eventId) and never
 * calls back into the flow.
 */
import type { ValidationComplete, ValidationIssueCounts } from '#contracts/types.js';
import type { SubmissionKey } from './submission-source.js';
import type { SubmissionCategorization } from '../results/submission-categorization.js';

/** ValidationComplete as it is enqueued in the outbox. */
export interface CompletionAnnouncement {
  readonly subject: string;
  readonly payload: ValidationComplete;
  readonly headers?: Readonly<Record<string, string>>;
}

export interface FlowRecord {
  readonly key: SubmissionKey;
  /**
   * The event this commit answers. A store announces each event once: a commit for an event it has
   * already announced (a redelivery) stores the outcome but announces nothing; a commit for another
   * event announces, even when the outcome is the same. Without one (a re-validation job), it
   * announces only when the outcome (outcomeHash) differs from the one last announced.
   */
  readonly eventId?: string;
  /** The run this commit announces when it announces (a new id per commit; `announcement` carries it). */
  readonly runId: string;
  /** The aggregated OperationOutcome as JSON text (what is stored). */
  readonly outcomeJson: string;
  readonly outcomeHash: string;
  readonly valid: boolean;
  readonly counts: Readonly<ValidationIssueCounts>;
  readonly resourceCount: number;
  /** The submission could not be obtained or read (its outcome is a definite failure). */
  readonly unobtainable: boolean;
  /** The categories of every issue of the outcome, and their groups. */
  readonly categorization: SubmissionCategorization;
  /** The ValidationComplete of run `runId`, enqueued only if the commit announces. */
  readonly announcement: CompletionAnnouncement;
}

export interface CommitResult {
  /**
   * False when nothing new was announced: the event was already announced (a redelivery), or,
   * without an event, the same outcome was. `runId` is then the run last announced.
   */
  readonly announced: boolean;
  readonly runId: string;
  readonly msgId: string;
}


/** What the flow knows when it commits (plain data) that a store may use to decide when to write. */
export interface CommitOptions {
  /**
   * No other submission of this flow is being fetched or validated: no commit can follow soon to
   * share a statement, so a store that gathers commits (pg-flow-store.ts) writes this one and those
   * waiting at once instead of waiting out its interval.
   */
  readonly lastInFlight?: boolean;
}

export interface FlowStore {
  commit(record: FlowRecord, options?: CommitOptions): Promise<CommitResult>;
}

/** The Nats-Msg-Id of the ValidationComplete that announces one run of a submission. */
export function completionMsgId(key: SubmissionKey, runId: string): string {
  return `${key.facilityId}:${key.reportId}:${key.patientId}:${runId}`;
}
