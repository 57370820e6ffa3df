/**
 * Accepts report jobs and runs them in THIS process (the instance that accepted the request):
 * at most `maxConcurrentJobs` jobs at once (the rest wait as `queued`), each over its patients
 * with at most `patientConcurrency` at once. Progress (done, errors, last error) is written after
 * every patient; a failing patient is counted and the job goes on; the job fails when every
 * patient failed, else it succeeds (errors tell how many did not).
 *
 * Restarts: a job cut off by a restart (or by its instance dying) is resumed, not failed. Live jobs
 * are heart-beaten (updated_at) every `heartbeatMs`, and their progress records a checkpoint: the
 * last patient before which every patient is done. `start()` — at start-up and then every
 * `staleAfterMs` — takes over the queued/running jobs not touched for `staleAfterMs` (each by one
 * instance; other instances' live jobs keep beating and are spared) and runs them on from their
 * checkpoint. A job taken over `maxRestarts` times (default 3) fails with last_error
 * 'interrupted by a restart' instead: it is more likely what stops the instances than a victim.
 *
 * Re-categorization announces a submission (ValidationComplete, through the outbox in the
 * transaction that stores it) when its verdict changes, and only then: consumers act on validity.
 * Other changes of its categories are read from the results API, and the next re-validation
 * announces them (the flow's outcome hash includes the categories; a re-validation, which answers
 * no event, announces a patient only when its outcome differs from the one last announced). See
 * PgReportSubmissions.
 */
import { NotFoundError } from '#shared-kernel/domain/errors.js';
import type { Categorizer } from '../../domain/categorization/categorizer.js';
import type { ReadyForValidationEvent } from '../validation-flow/validation-flow.js';
import type { ReportJob, ReportJobCheckpoint, ReportJobKind } from '../../domain/report-jobs/report-job.js';
import type { ReportJobStore } from '../../domain/ports/report-job-store.js';
import type { ReportSubmissions } from '../../domain/ports/report-submissions.js';

export const INTERRUPTED_BY_RESTART = 'interrupted by a restart';

/** Where a job starts: nothing done yet, or a checkpoint it reached before a restart. */
const FROM_THE_START: ReportJobCheckpoint | undefined = undefined;

/** The validation flow as re-validation uses it (ValidationFlow satisfies it). */
export interface RevalidationFlow {
  handle(event: ReadyForValidationEvent): Promise<unknown>;
}

export interface ReportJobServiceDependencies {
  readonly store: ReportJobStore;
  readonly submissions: ReportSubmissions;
  readonly flow: RevalidationFlow;
  readonly categories: { currentCategorizer(): Promise<Categorizer> };
  /** ReadyForValidation's contract version, put on the events handed to the flow. */
  readonly schemaVersion: string;
  /** Default 2. */
  readonly maxConcurrentJobs?: number;
  /** Default 4 (re-validation fetches and validates; the engine's pool queues the rest). */
  readonly patientConcurrency?: number;
  /** Default 15 s. */
  readonly heartbeatMs?: number;
  /** Default 60 s. */
  readonly staleAfterMs?: number;
  /** How often a job is taken over after restarts before it is failed; default 3. */
  readonly maxRestarts?: number;
  readonly onError?: (error: unknown, context: Record<string, unknown>) => void;
}

export class ReportJobService {
  private readonly active = new Set<string>();
  private readonly waiting: (() => void)[] = [];
  private readonly running = new Set<Promise<void>>();
  private runningJobs = 0;
  private timers: NodeJS.Timeout[] = [];

  constructor(private readonly deps: ReportJobServiceDependencies) {}

  /**
   * Resumes jobs cut off by a restart now and periodically (those this instance takes over);
   * starts heart-beating this instance's jobs. Returns how many it resumed and how many it failed.
   */
  async start(): Promise<{ resumed: number; failed: number }> {
    const staleAfter = this.deps.staleAfterMs ?? 60_000;
    const first = await this.resumeStale(staleAfter);
    this.timers = [
      setInterval(() => void this.deps.store.heartbeat([...this.active]).catch((e: unknown) => this.deps.onError?.(e, { step: 'heartbeat' })), this.deps.heartbeatMs ?? 15_000),
      setInterval(() => void this.resumeStale(staleAfter).catch((e: unknown) => this.deps.onError?.(e, { step: 'sweep' })), staleAfter),
    ];
    for (const timer of this.timers) timer.unref();
    return first;
  }

  /** Stops the timers; running jobs are not awaited (another instance, or this one restarted, resumes them). */
  stop(): void {
    for (const timer of this.timers) clearInterval(timer);
    this.timers = [];
  }

  private async resumeStale(staleAfterMs: number): Promise<{ resumed: number; failed: number }> {
    const { claimed, failed } = await this.deps.store.claimStale(staleAfterMs, this.deps.maxRestarts ?? 3, INTERRUPTED_BY_RESTART);
    for (const { job, checkpoint } of claimed) {
      const patients = await this.deps.submissions.validatedPatients(job.facilityId, job.reportId, checkpoint?.after);
      this.launch(job, patients, checkpoint);
    }
    return { resumed: claimed.length, failed };
  }

  /** Queues a job; NotFoundError when the report has nothing stored to work on. */
  async submit(kind: ReportJobKind, facilityId: string, reportId: string): Promise<ReportJob> {
    const patients = await this.deps.submissions.validatedPatients(facilityId, reportId);
    if (patients.length === 0) {
      throw new NotFoundError(`No stored ${kind === 'revalidate' ? 'validation outcomes' : 'results'} for facility ${facilityId} and report ${reportId}`);
    }
    const job = await this.deps.store.create({ kind, facilityId, reportId, total: patients.length });
    this.launch(job, patients, FROM_THE_START);
    return job;
  }

  /** Runs `job` over `patients` (those after its checkpoint, when it is resumed) in the background. */
  private launch(job: ReportJob, patients: readonly string[], checkpoint: ReportJobCheckpoint | undefined): void {
    this.active.add(job.id);
    const run = this.run(job, patients, checkpoint).finally(() => {
      this.active.delete(job.id);
      this.running.delete(run);
    });
    this.running.add(run);
  }

  get(id: string): Promise<ReportJob | undefined> {
    return this.deps.store.get(id);
  }

  /** Resolves when every job accepted so far has ended (tests, shutdown). */
  async idle(): Promise<void> {
    while (this.running.size > 0) await Promise.all([...this.running]);
  }

  private async run(job: ReportJob, patients: readonly string[], from: ReportJobCheckpoint | undefined): Promise<void> {
    await this.slot();
    try {
      const before = { done: from?.done ?? 0, errors: from?.errors ?? 0 };
      const total = before.done + patients.length;
      await this.deps.store.update(job.id, { status: 'running', total, done: before.done, errors: before.errors });
      const work = await this.patientWork(job);
      let done = before.done;
      let errors = before.errors;
      let lastError: string | null = from ? job.lastError : null;
      // The checkpoint: patients[0 .. finished) are all done (they finish out of order), `failedBefore` of them failed.
      const outcomes: boolean[] = [];
      let finished = 0;
      let failedBefore = 0;
      let next = 0;
      let progress = Promise.resolve();
      const worker = async () => {
        for (let patientId = patients[next]; patientId !== undefined; patientId = patients[next]) {
          const index = next++;
          let ok = true;
          try {
            await work(patientId);
          } catch (error) {
            ok = false;
            errors++;
            lastError = `patient ${patientId}: ${error instanceof Error ? error.message : String(error)}`;
            this.deps.onError?.(error, { jobId: job.id, patientId });
          }
          done++;
          outcomes[index] = ok;
          while (outcomes[finished] !== undefined) failedBefore += outcomes[finished++] ? 0 : 1;
          const after = finished > 0 ? patients[finished - 1] : undefined;
          const checkpoint = after !== undefined ? { after, done: before.done + finished, errors: before.errors + failedBefore } : undefined;
          const snapshot = { done, errors, lastError, ...(checkpoint ? { checkpoint } : {}) };
          // Serialized so a slower write never overwrites newer progress.
          progress = progress.then(() => this.deps.store.update(job.id, snapshot));
          await progress;
        }
      };
      const workers = Math.max(1, Math.min(this.deps.patientConcurrency ?? 4, patients.length));
      await Promise.all(Array.from({ length: workers }, worker));
      await this.deps.store.update(job.id, { status: total > 0 && errors === total ? 'failed' : 'succeeded', done, errors, lastError });
    } catch (error) {
      this.deps.onError?.(error, { jobId: job.id });
      await this.deps.store.update(job.id, { status: 'failed', lastError: error instanceof Error ? error.message : String(error) })
        .catch((e: unknown) => this.deps.onError?.(e, { jobId: job.id }));
    } finally {
      this.release();
    }
  }

  private async patientWork(job: ReportJob): Promise<(patientId: string) => Promise<unknown>> {
    const { facilityId, reportId } = job;
    if (job.kind === 'revalidate') {
      return (patientId) => this.deps.flow.handle({ schemaVersion: this.deps.schemaVersion, facilityId, reportTrackingId: reportId, patientId, reportTypes: [] });
    }
    const categorizer = await this.deps.categories.currentCategorizer(); // the latest rules, once for the whole job
    return (patientId) => this.deps.submissions.recategorizePatient({ facilityId, reportId, patientId }, categorizer);
  }

  private async slot(): Promise<void> {
    if (this.runningJobs < (this.deps.maxConcurrentJobs ?? 2)) {
      this.runningJobs++;
      return;
    }
    await new Promise<void>((resolve) => this.waiting.push(resolve));
  }

  private release(): void {
    const next = this.waiting.shift();
    if (next) next(); // the slot passes on
    else this.runningJobs--;
  }
}
