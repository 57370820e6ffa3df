/**
 * The validation flow (specification, in order) for one ReadyForValidation event:
 *   (1) fetch the patient's submission from the report service (at the event's payloadUri when it
 *       lies within the report service, see adapters/report-service/payload-uri.ts);
 *   (2) build the Bundle (MeasureReport's contained resources + the MeasureReport, or the Bundle);
 *   (3) validate each entry on its own (core + its meta.profile + terminology) — in the worker pool;
 *       the submission's bytes go to a worker as they came (validateSubmission, the only way the
 *       flow validates), which does (2), (3) and the rebasing of (4) and gives back the outcome's
 *       text: this thread decodes it once into the issues it categorizes (outcomeIssues) and stores
 *       that very text (no second serialization);
 *   (4) aggregate into one OperationOutcome (Bundle-style expressions) and store it;
 *   (5) categorize with the latest rules and replace the patient's results;
 *   (6) enqueue ValidationComplete — (4), (5) and (6) in one transaction (flow-store.ts): the flow
 *       hands the store a complete record (run id and announcement included).
 * The path hop by hop, with the shape of the outcome at each hop: README, "The path of a ReadyForValidation".
 *
 * Failures: report service down/5xx → SubmissionUnavailableError (the consumer holds the message
 * and retries it in place until the service is back, up to `validation.outage-retry-horizon`; the
 * database unreachable likewise); 404 or an unreadable answer → a definite
 * outcome with one fatal issue saying why, and valid = false (never retried forever). Validity is
 * `assessValidity` (domain/categorization/validity.ts), the one rule of the service.
 */
import { randomUUID } from 'node:crypto';
import type { Categorizer } from '../../domain/categorization/categorizer.js';
import { assessValidity } from '../../domain/categorization/validity.js';
import { outcomeIssues, unobtainableOutcomeJson, type FacilityScopes, type SubmissionKey, type SubmissionSource } from '../../domain/flow/index.js';
import type { ScopedResourceValidator } from '../../domain/ports/resource-validator.js';

export type { ScopedResourceValidator, SubmissionValidation } from '../../domain/ports/resource-validator.js';
import { categorizeIssues } from '../../domain/results/submission-categorization.js';
import type { ValidationIssue } from '../../domain/results/validation-issue.js';
import { distinctOutcomeHash, validationCompletePayload } from './completion.js';
import type { CommitResult, FlowStore } from '../../domain/ports/flow-store.js';
import type { ReadyForValidation, ValidationIssueCounts } from '#contracts/types.js';

/** ReadyForValidation v1 (contracts/schemas/ReadyForValidation.v1.schema.json), as the contract types it. */
export type ReadyForValidationEvent = ReadyForValidation;

export interface FlowContext {
  /** Progress ack: keeps the message ours during long validations. */
  working?(): void;
  headers?: Record<string, string>;
  /**
   * The identity of the ReadyForValidation being answered (the consumer's stored message id, the
   * same for every redelivery). Each event gets its ValidationComplete once however often it is
   * delivered, and every event gets one, whatever the outcome (specification lines 9, 19 and the
   * flow's step 6: one ValidationComplete per ReadyForValidation). Absent (a re-validation job):
   * announced only when the outcome differs from the one last announced.
   */
  eventId?: string;
}


export interface ValidationFlowDependencies {
  readonly source: SubmissionSource;
  readonly validator: ScopedResourceValidator;
  /** Per-facility validation scope; absent = every facility validates against all artifacts. */
  readonly scopes?: FacilityScopes;
  readonly categories: { currentCategorizer(): Promise<Categorizer> };
  readonly store: FlowStore;
  /** ValidationComplete's subject and contract version (from the catalog). */
  readonly completion: { subject: string; schemaVersion: string };
  /**
   * Called after a commit that enqueued an announcement (the outbox relay's notify). `lastInFlight`:
   * no other submission of this flow is still before its commit, so no other announcement follows
   * soon and a relay that gathers them may publish at once.
   */
  readonly afterCommit?: (context: { readonly lastInFlight: boolean }) => void;
  readonly clock?: () => Date;
  /** The id of a new run (default randomUUID): chosen here, so that the store gets a complete record. */
  readonly newRunId?: () => string;
  /** How often ctx.working() is called while fetching and validating; default 10 s. */
  readonly progressIntervalMs?: number;
}

export interface FlowResult extends CommitResult {
  readonly key: SubmissionKey;
  readonly valid: boolean;
  readonly counts: Readonly<ValidationIssueCounts>;
  readonly resourceCount: number;
  /** The aggregated OperationOutcome's text, as stored. */
  readonly outcomeJson: string;
  /** Its issues, as decoded once (outcomeIssues) and categorized. */
  readonly issues: readonly ValidationIssue[];
  /** Milliseconds per step (fetch = report service, validate = engine, categorize, commit = the transaction). */
  readonly timings: { readonly fetchMs: number; readonly validateMs: number; readonly categorizeMs: number; readonly commitMs: number };
}

const CORRELATION_HEADER = 'X-Correlation-Id';

export class ValidationFlow {
  private readonly clock: () => Date;
  private readonly newRunId: () => string;
  /** Submissions being handled that have not reached their commit yet (the store's and relay's hint). */
  private beforeCommit = 0;

  constructor(private readonly deps: ValidationFlowDependencies) {
    this.clock = deps.clock ?? (() => new Date());
    this.newRunId = deps.newRunId ?? randomUUID;
  }

  async handle(event: ReadyForValidationEvent, ctx: FlowContext = {}): Promise<FlowResult> {
    this.beforeCommit += 1;
    let counted = true;
    const reachedCommit = () => {
      if (counted) this.beforeCommit -= 1;
      counted = false;
      return this.beforeCommit === 0;
    };
    try {
      return await this.handleCounted(event, ctx, reachedCommit);
    } finally {
      reachedCommit();
    }
  }

  private async handleCounted(event: ReadyForValidationEvent, ctx: FlowContext, reachedCommit: () => boolean): Promise<FlowResult> {
    const key: SubmissionKey = { facilityId: event.facilityId, reportId: event.reportTrackingId, patientId: idPart(event.patientId) };
    let mark = performance.now();
    const lap = () => {
      const now = performance.now();
      const ms = now - mark;
      mark = now;
      return ms;
    };
    // SubmissionUnavailableError propagates: retry later. Progress acks during the fetch too: it may
    // take longer than the consumer's ack wait (svc.report-service.timeout-ms per request, twice with
    // a payloadUri, 60 s against 60 s in production), and a message whose ack wait runs out is
    // delivered again meanwhile, spending a delivery and fetching the submission twice.
    const fetched = await this.withProgress(ctx, () => this.deps.source.fetch(key, event.payloadUri ? { payloadUri: event.payloadUri } : {}));
    const fetchMs = lap();

    // The outcome's text from wherever it came: the worker (written once, where it was validated)
    // or a definite failure (a 404, bytes that are no submission).
    let outcomeJson: string;
    let definiteFailure = false;
    let resourceCount = 0;
    if (fetched.kind === 'not-found') {
      outcomeJson = unobtainableOutcomeJson(`Patient submission not found at the report service: ${fetched.detail}`, 'not-found');
      definiteFailure = true;
    } else {
      const scope = await this.deps.scopes?.scopeOf(key.facilityId);
      const validated = await this.withProgress(ctx, () => this.deps.validator.validateSubmission(fetched.body, scope ? { scope } : undefined));
      if (validated.kind === 'unreadable') {
        outcomeJson = unobtainableOutcomeJson(`The patient submission could not be read: ${validated.message}`, 'invalid');
        definiteFailure = true;
      } else {
        resourceCount = validated.resourceCount;
        outcomeJson = validated.outcomeJson;
      }
    }
    const validateMs = lap();

    // The category service keeps the compiled rules for a short time and drops them when a category
    // is written here, so a submission never sees rules older than a write on this instance (nor a
    // query per submission under load).
    const categorizer = await this.deps.categories.currentCategorizer();
    // Text → object, the one crossing on this thread: straight into the issues that are categorized.
    const issues = categorizer.categorize(outcomeIssues(outcomeJson));
    const verdict = assessValidity(issues);
    const valid = !definiteFailure && verdict.valid;
    const categorization = categorizeIssues(issues);
    const { severities } = categorization;
    const counts: ValidationIssueCounts = {
      total: severities.issues,
      errors: severities.errors,
      warnings: severities.warnings,
      information: severities.information,
      categorized: issues.length - verdict.uncategorizedIssueCount,
      uncategorized: verdict.uncategorizedIssueCount,
      unacceptable: verdict.unacceptableIssueCount,
    };
    // The hash and the stored row use the same text (it is ~100 issues long).
    const outcomeHash = distinctOutcomeHash(outcomeJson, valid, counts, categorization.issueCategories);

    const categorizeMs = lap();

    // No traceparent here: the outbox records the trace this handling runs in (the consumer's span
    // of the incoming trace, or a new trace when the incoming header was missing or invalid).
    const headers: Record<string, string> = {};
    const correlation = ctx.headers?.[CORRELATION_HEADER];
    if (correlation) headers[CORRELATION_HEADER] = correlation;
    const validatedAt = this.clock().toISOString();
    const runId = this.newRunId();
    const lastInFlight = reachedCommit();
    const committed = await this.deps.store.commit({
      key, eventId: ctx.eventId, runId, outcomeJson, outcomeHash, valid, counts, resourceCount, unobtainable: definiteFailure, categorization,
      announcement: {
        subject: this.deps.completion.subject,
        headers,
        payload: validationCompletePayload(this.deps.completion.schemaVersion, key, { valid, runId, counts, validatedAt }),
      },
    }, { lastInFlight });
    // Read again: the others may have reached their commits (the same statement) meanwhile.
    if (committed.announced) this.deps.afterCommit?.({ lastInFlight: this.beforeCommit === 0 });
    return { ...committed, key, valid, counts, resourceCount, outcomeJson, issues, timings: { fetchMs, validateMs, categorizeMs, commitMs: lap() } };
  }

  /** Runs a long step (the fetch, the validation) with progress acks every progressIntervalMs. */
  private async withProgress<T>(ctx: FlowContext, validate: () => Promise<T>): Promise<T> {
    const timer = ctx.working ? setInterval(() => ctx.working?.(), this.deps.progressIntervalMs ?? 10_000) : undefined;
    try {
      return await validate();
    } finally {
      if (timer) clearInterval(timer);
    }
  }
}

/** "Patient/123" → "123" (the original normalized ids on read; the contract asks for the id part). */
function idPart(patientId: string): string {
  const slash = patientId.lastIndexOf('/');
  return slash >= 0 && slash < patientId.length - 1 ? patientId.slice(slash + 1) : patientId;
}
