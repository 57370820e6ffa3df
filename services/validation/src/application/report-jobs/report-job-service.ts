/**
 * Accepts report jobs and runs them in THIS process (the instance that accepted the request):
 * at most `maxConcurrentJobs` jobs at once (the rest wait as `queued`), each over its patients
 * with at most `patientConcurrency` at once. Progress (done, errors, last error) is written after
 * every patient; a failing patient is counted and the job goes on; the job fails when every
 * patient failed, else it succeeds (errors tell how many did not).
 *
 * Restarts: a job's progress lives in this process, so a job whose instance died cannot finish.
 * Live jobs are heart-beaten (updated_at) every `heartbeatMs`; `start()` — at start-up and then
 * every `staleAfterMs` — marks queued/running jobs not touched for `staleAfterMs` as failed with
 * last_error 'interrupted by a restart' (other instances' live jobs keep beating and are spared).
 * Rerun the operation to complete such a report.
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
import type { ReportJob, ReportJobKind, ReportJobStore, ReportSubmissions } from './report-job.js';

export const INTERRUPTED_BY_RESTART = 'interrupted by a restart';

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
  readonly onError?: (error: unknown, context: Record<string, unknown>) => void;
}

export class ReportJobService {
  private readonly active = new Set<string>();
  private readonly waiting: (() => void)[] = [];
  private readonly running = new Set<Promise<void>>();
  private runningJobs = 0;
  private timers: NodeJS.Timeout[] = [];

  constructor(private readonly deps: ReportJobServiceDependencies) {}

  /** Fails orphaned jobs now and periodically; starts heart-beating this instance's jobs. */
  async start(): Promise<number> {
    const staleAfter = this.deps.staleAfterMs ?? 60_000;
    const failed = await this.deps.store.failStale(staleAfter, INTERRUPTED_BY_RESTART);
    this.timers = [
      setInterval(() => void this.deps.store.heartbeat([...this.active]).catch((e: unknown) => this.deps.onError?.(e, { step: 'heartbeat' })), this.deps.heartbeatMs ?? 15_000),
      setInterval(() => void this.deps.store.failStale(staleAfter, INTERRUPTED_BY_RESTART).catch((e: unknown) => this.deps.onError?.(e, { step: 'sweep' })), staleAfter),
    ];
    for (const timer of this.timers) timer.unref();
    return failed;
  }

  /** Stops the timers; running jobs are not awaited (they end as interrupted after a restart). */
  stop(): void {
    for (const timer of this.timers) clearInterval(timer);
    this.timers = [];
  }

  /** Queues a job; NotFoundError when the report has nothing stored to work on. */
  async submit(kind: ReportJobKind, facilityId: string, reportId: string): Promise<ReportJob> {
    const patients = await this.deps.submissions.validatedPatients(facilityId, reportId);
    if (patients.length === 0) {
      throw new NotFoundError(`No stored ${kind === 'revalidate' ? 'validation outcomes' : 'results'} for facility ${facilityId} and report ${reportId}`);
    }
    const job = await this.deps.store.create({ kind, facilityId, reportId, total: patients.length });
    this.active.add(job.id);
    const run = this.run(job, patients).finally(() => {
      this.active.delete(job.id);
      this.running.delete(run);
    });
    this.running.add(run);
    return job;
  }

  get(id: string): Promise<ReportJob | undefined> {
    return this.deps.store.get(id);
  }

  /** Resolves when every job accepted so far has ended (tests, shutdown). */
  async idle(): Promise<void> {
    while (this.running.size > 0) await Promise.all([...this.running]);
  }

  private async run(job: ReportJob, patients: readonly string[]): Promise<void> {
    await this.slot();
    try {
      await this.deps.store.update(job.id, { status: 'running' });
      const work = await this.patientWork(job);
      let done = 0;
      let errors = 0;
      let lastError: string | null = null;
      let next = 0;
      let progress = Promise.resolve();
      const worker = async () => {
        while (next < patients.length) {
          const patientId = patients[next++]!;
          try {
            await work(patientId);
          } catch (error) {
            errors++;
            lastError = `patient ${patientId}: ${error instanceof Error ? error.message : String(error)}`;
            this.deps.onError?.(error, { jobId: job.id, patientId });
          }
          done++;
          const snapshot = { done, errors, lastError };
          // Serialized so a slower write never overwrites newer progress.
          progress = progress.then(() => this.deps.store.update(job.id, snapshot));
          await progress;
        }
      };
      const workers = Math.max(1, Math.min(this.deps.patientConcurrency ?? 4, patients.length));
      await Promise.all(Array.from({ length: workers }, worker));
      await this.deps.store.update(job.id, { status: errors === patients.length ? 'failed' : 'succeeded', done, errors, lastError });
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
