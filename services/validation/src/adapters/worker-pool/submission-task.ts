/**
 * A whole submission as one worker task (worker side): the main thread sends the report service's
 * answer AS BYTES, shared with the worker (a SharedArrayBuffer: no copy, no structured clone of
 * parsed objects), and the worker reads the Bundle, validates each entry on its own, rebases its
 * issues into the Bundle and serializes them once (entry-outcome.ts encodeEntryIssues), all entries
 * in one text (joinEntryIssues): the outcome's one object → text crossing. What comes back is that
 * one string and a few numbers per entry; the main thread wraps it into the stored outcome
 * (joinedOutcomeJson) without decoding or encoding an issue again, and the flow decodes it once. (One string rather than one per entry: the answer's structured clone,
 * on both threads and between two tasks of the worker, took half the time.)
 *
 * The bytes are read by submissionFromBytes (UTF-8, JSON.parse) here only: the flow's thread never
 * parses a submission. JSON.parse rather
 * than the engine's located-JSON parser: the flow validates entries cut out of the Bundle, whose
 * line/column positions the aggregated outcome drops (they would point into the entry, not into
 * what the facility sent), and the native parser is several times faster.
 *
 * Deadlines as for a batch of resources (validation-pool.ts): the worker publishes the position of
 * the entry in progress (TaskProgress), charges the submission budget with each entry's busy time,
 * and once the budget is used up gives every entry it has not started the submission's deadline
 * issue itself (it holds the entries; the main thread does not) and says so (`budgetStopped`).
 */
import { performance } from 'node:perf_hooks';
import { deadlineOutcome } from '../../domain/engine/outcome/deadline.js';
import type { Issue, ValidationOutcome } from '../../domain/engine/outcome/issue.js';
import type { Validator } from '../../domain/engine/validator.js';
import {
  encodeEntryIssues, joinEntryIssues, MAX_ISSUES_PER_SUBMISSION, submissionFromBytes, SubmissionFormatError, type EncodedEntryIssues, type FhirResourceJson, type JoinedEntryIssues, type SubmissionBundle,
} from '../../domain/flow/index.js';
import type { TaskControls } from './task-controls.js';
import { taskSettings } from './task-settings.js';
import { SharedBudget, TaskProgress } from './task-progress.js';
import type { WorkerMetricsReport } from './worker-metrics.js';

export interface SubmissionTask extends TaskControls {
  /** The report service's answer as received, shared with the worker. */
  bytes: SharedArrayBuffer;
  /** Only these entries (Bundle indexes, ascending); absent = every entry. Positions (progress, budgetFrom) count in these. */
  entries?: number[];
}

/** The task's entries, in order (one value per entry of `entries`, or of the Bundle). */
export interface ValidatedEntries {
  readonly kind: 'validated';
  /** Entries of the submission's Bundle. */
  readonly entryCount: number;
  /** The entries' issues rebased into the Bundle, as encodeEntryIssues gives them, in one text (joinEntryIssues). */
  readonly issues: JoinedEntryIssues;
  readonly resourceTypes: string[];
  /** Milliseconds each entry took in this worker (0 for one the budget stopped). */
  readonly durationsMs: number[];
  /** The submission's budget ran out: the entries not started carry its deadline issue. */
  readonly budgetStopped: boolean;
  metrics?: WorkerMetricsReport;
}

/** The answer is not a submission (not JSON, not a MeasureReport, Bundle or PatientSubmissionModel). */
export interface UnreadableSubmission {
  readonly kind: 'unreadable';
  readonly message: string;
  metrics?: WorkerMetricsReport;
}

export type SubmissionTaskResult = ValidatedEntries | UnreadableSubmission;

/** The Bundle in the shared bytes, or why there is none (SubmissionFormatError's message). */
export function readSharedSubmission(bytes: SharedArrayBuffer): SubmissionBundle | string {
  try {
    return submissionFromBytes(new Uint8Array(bytes));
  } catch (error) {
    if (error instanceof SubmissionFormatError) return error.message;
    throw error;
  }
}

const SEVERITIES = ['information', 'warning', 'error', 'fatal'];

/**
 * An entry's issues as encodeEntryIssues gives them, unless the entries before it already have
 * `maxIssues` (the submission's cap): the stored outcome then keeps only their number and worst
 * severity (aggregatedOutcomeJson), so the entry's worst issue is all that is encoded (its count
 * stays the full count). The aggregated text is the same; the worker does not build the rest.
 */
export function encodeWithinCap(index: number, resource: FhirResourceJson, outcome: ValidationOutcome, issuesSoFar: number, maxIssues = MAX_ISSUES_PER_SUBMISSION): { json: string; count: number } {
  if (issuesSoFar < maxIssues) return encodeEntryIssues(index, resource, outcome);
  return { json: encodeEntryIssues(index, resource, worstIssueOnly(outcome)).json, count: outcome.issue.length };
}

/** The outcome with only its most severe issue (the first of them). */
function worstIssueOnly(outcome: ValidationOutcome): ValidationOutcome {
  let worst: Issue | undefined;
  for (const issue of outcome.issue) if (!worst || SEVERITIES.indexOf(issue.severity) > SEVERITIES.indexOf(worst.severity)) worst = issue;
  return { ...outcome, issue: worst ? [worst] : [] };
}

/** What a submission task needs of the engine (the worker's Validator; a stand-in in the flow's unit tests). */
export type EntryValidator = Pick<Validator, 'validateSettled'>;

export async function validateSubmissionTask(validator: EntryValidator, task: SubmissionTask, maxIssuesPerResource?: number): Promise<SubmissionTaskResult> {
  const bundle = readSharedSubmission(task.bytes);
  if (typeof bundle === 'string') return { kind: 'unreadable', message: bundle };
  const entries = task.entries ?? bundle.entry.map((_, index) => index);
  const progress = task.progress ? new TaskProgress(task.progress) : undefined;
  const budget = task.budget ? new SharedBudget(task.budget) : undefined;
  const encodedEntries: EncodedEntryIssues[] = [];
  const resourceTypes: string[] = [];
  const durationsMs: number[] = [];
  let budgetStopped = false;
  let issuesSoFar = 0;
  const options = { profiles: task.profiles, authorization: task.authorization, settings: taskSettings(task, maxIssuesPerResource) };
  for (const [position, index] of entries.entries()) {
    const entry = bundle.entry[index];
    if (!entry) throw new Error(`Entry ${String(index)} of a submission of ${String(bundle.entry.length)} entries`);
    const { resource } = entry;
    let outcome;
    let ms = 0;
    if (budget?.exhausted && position >= (task.budgetFrom ?? 0)) {
      budgetStopped = true;
      outcome = deadlineOutcome('submission', resource, budget.limitMs);
    } else {
      progress?.begin(position);
      const started = performance.now();
      const busyBefore = budget ? performance.eventLoopUtilization() : undefined;
      // no terminology answer pending (local terminology, cached answers): nothing to wait for
      const settled = validator.validateSettled(resource, options);
      outcome = settled instanceof Promise ? await settled : settled;
      ms = performance.now() - started;
      if (budget && busyBefore) budget.charge(performance.eventLoopUtilization(busyBefore).active);
    }
    const encoded = encodeWithinCap(index, resource, outcome, issuesSoFar);
    issuesSoFar += encoded.count;
    encodedEntries.push(encoded);
    resourceTypes.push(resource.resourceType);
    durationsMs.push(ms);
  }
  progress?.finish();
  return { kind: 'validated', entryCount: bundle.entry.length, issues: joinEntryIssues(encodedEntries), resourceTypes, durationsMs, budgetStopped };
}
