/**
 * The validation flow (specification, in order) for one ReadyForValidation event:
 *   (1) fetch the patient's submission from the report service (at the event's payloadUri when it
 *       lies within the report service, see adapters/report-service/payload-uri.ts);
 *   (2) build the Bundle (MeasureReport's contained resources + the MeasureReport, or the Bundle);
 *   (3) validate each entry on its own (core + its meta.profile + terminology) — in the worker pool;
 *       the submission's bytes go to a worker as they came (validateSubmission), which does (2),
 *       (3) and the rebasing of (4) and gives back the outcome's text: this thread parses it once
 *       for the categories and stores that very text (no second serialization);
 *   (4) aggregate into one OperationOutcome (Bundle-style expressions) and store it;
 *   (5) categorize with the latest rules and replace the patient's results;
 *   (6) enqueue ValidationComplete — (4), (5) and (6) in one transaction (flow-store.ts).
 *
 * Failures: report service down/5xx → SubmissionUnavailableError (the consumer holds the message
 * and retries it in place until the service is back, up to `validation.outage-retry-horizon`; the
 * database unreachable likewise); 404 or an unreadable answer → a definite
 * outcome with one fatal issue saying why, and valid = false (never retried forever). Validity is
 * `assessValidity` (domain/categorization/validity.ts), the one rule of the service.
 */
import type { Categorizer } from '../../domain/categorization/categorizer.js';
import { assessValidity } from '../../domain/categorization/validity.js';
import {
  aggregateEntryOutcomes, submissionBundle, submissionFromBytes, SubmissionFormatError, unobtainableOutcome,
  type FacilityScopes, type SubmissionKey, type SubmissionSource, type ValidationScope,
} from '../../domain/flow/index.js';
import type { ScopedResourceValidator, ValidationOutcome } from '../../domain/ports/resource-validator.js';

export type { ScopedResourceValidator, SubmissionValidation } from '../../domain/ports/resource-validator.js';
import { categorizeIssues } from '../../domain/results/submission-categorization.js';
import { issuesFromOperationOutcome } from '../../domain/results/validation-issue.js';
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
  /** How often ctx.working() is called while fetching and validating; default 10 s. */
  readonly progressIntervalMs?: number;
}

export interface FlowResult extends CommitResult {
  readonly key: SubmissionKey;
  readonly valid: boolean;
  readonly counts: Readonly<ValidationIssueCounts>;
  readonly resourceCount: number;
  readonly outcome: ValidationOutcome;
  /** Milliseconds per step (fetch = report service, validate = engine, categorize, commit = the transaction). */
  readonly timings: { readonly fetchMs: number; readonly validateMs: number; readonly categorizeMs: number; readonly commitMs: number };
}

const CORRELATION_HEADER = 'X-Correlation-Id';

export class ValidationFlow {
  private readonly clock: () => Date;
  /** Submissions being handled that have not reached their commit yet (the store's and relay's hint). */
  private beforeCommit = 0;

  constructor(private readonly deps: ValidationFlowDependencies) {
    this.clock = deps.clock ?? (() => new Date());
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

    let outcome: ValidationOutcome | undefined;
    // The outcome's stored text, when the validator gave it (serialized once, where it was validated).
    let outcomeJson: string | undefined;
    let definiteFailure = false;
    let resourceCount = 0;
    if (fetched.kind === 'not-found') {
      outcome = unobtainableOutcome(`Patient submission not found at the report service: ${fetched.detail}`, 'not-found');
      definiteFailure = true;
    } else if (fetched.body instanceof Uint8Array && this.deps.validator.validateSubmission) {
      const scope = await this.deps.scopes?.scopeOf(key.facilityId);
      const validated = await this.withProgress(ctx, () => this.deps.validator.validateSubmission!(fetched.body as Uint8Array, scope ? { scope } : undefined));
      if (validated.kind === 'unreadable') {
        outcome = unobtainableOutcome(`The patient submission could not be read: ${validated.message}`, 'invalid');
        definiteFailure = true;
      } else {
        resourceCount = validated.resourceCount;
        outcomeJson = validated.outcomeJson;
        outcome = JSON.parse(outcomeJson) as ValidationOutcome;
      }
    } else {
      let bundle;
      try {
        bundle = fetched.body instanceof Uint8Array ? submissionFromBytes(fetched.body) : submissionBundle(fetched.body);
      } catch (error) {
        if (!(error instanceof SubmissionFormatError)) throw error;
        outcome = unobtainableOutcome(`The patient submission could not be read: ${error.message}`, 'invalid');
        definiteFailure = true;
      }
      if (bundle) {
        resourceCount = bundle.entry.length;
        const scope = await this.deps.scopes?.scopeOf(key.facilityId);
        outcome = await this.validateEntries(bundle.entry.map((e) => e.resource), ctx, scope);
      }
    }
    outcome ??= unobtainableOutcome('The patient submission could not be read', 'invalid');
    const validateMs = lap();

    // The category service keeps the compiled rules for a short time and drops them when a category
    // is written here, so a submission never sees rules older than a write on this instance (nor a
    // query per submission under load).
    const categorizer = await this.deps.categories.currentCategorizer();
    const issues = categorizer.categorize(issuesFromOperationOutcome(outcome));
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
    // Serialized once: the hash and the stored row use the same text (it is ~100 issues long).
    outcomeJson ??= JSON.stringify(outcome);
    const outcomeHash = distinctOutcomeHash(outcomeJson, valid, counts, categorization.issueCategories);

    const categorizeMs = lap();

    // No traceparent here: the outbox records the trace this handling runs in (the consumer's span
    // of the incoming trace, or a new trace when the incoming header was missing or invalid).
    const headers: Record<string, string> = {};
    const correlation = ctx.headers?.[CORRELATION_HEADER];
    if (correlation) headers[CORRELATION_HEADER] = correlation;
    const validatedAt = this.clock().toISOString();
    const lastInFlight = reachedCommit();
    const committed = await this.deps.store.commit({
      key, eventId: ctx.eventId, outcomeJson, outcomeHash, valid, counts, resourceCount, unobtainable: definiteFailure, categorization,
      completion: (runId) => ({
        subject: this.deps.completion.subject,
        headers,
        payload: validationCompletePayload(this.deps.completion.schemaVersion, key, { valid, runId, counts, validatedAt }),
      }),
    }, { lastInFlight });
    // Read again: the others may have reached their commits (the same statement) meanwhile.
    if (committed.announced) this.deps.afterCommit?.({ lastInFlight: this.beforeCommit === 0 });
    return { ...committed, key, valid, counts, resourceCount, outcome, timings: { fetchMs, validateMs, categorizeMs, commitMs: lap() } };
  }

  /**
   * Step (3): every entry on its own, all at once (the pool queues them), with progress acks. The
   * engine bounds this step (a deadline per resource, a worker-time budget per submission: the
   * resources it stops get a fatal issue instead of an outcome), so the progress acks end; a worker
   * pool that cannot make progress at all fails the service's liveness and the pod is restarted.
   */
  private async validateEntries(resources: Record<string, unknown>[], ctx: FlowContext, scope: ValidationScope | undefined): Promise<ValidationOutcome> {
    const outcomes = await this.withProgress(ctx, () => this.deps.validator.validateEach(resources, scope ? { scope } : undefined));
    if (outcomes.length !== resources.length) throw new Error(`The engine answered ${outcomes.length} outcomes for ${resources.length} entries`);
    return aggregateEntryOutcomes(outcomes.map((outcome, index) => ({
      index, resource: resources[index] as Record<string, unknown> & { resourceType: string }, outcome,
    })));
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
