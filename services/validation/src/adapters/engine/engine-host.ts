/**
 * The engine host: owns the FHIR engine of this process and keeps it in step with the stored
 * artifacts. It implements the ResourceValidator port (the validation API and the flow call it).
 *
 * One "generation" = definition index (R4 core + every PACKAGE artifact, through the start-up
 * cache) + RESOURCE artifacts layered over it + a worker pool that received the index state in a
 * SharedArrayBuffer (each worker builds its Validator and terminology from it).
 *
 * Every validation runs in a worker thread, never in this one: the engine's checks are synchronous,
 * so only terminating the thread that runs one can stop it, and this thread must stay free for
 * the watchdog, HTTP, health probes and message acks. Deadlines (validation-pool.ts): a resource
 * that passes `resourceTimeoutMs` has its worker terminated and replaced and gets one fatal issue;
 * a submission (validateEach) whose resources use up `submissionTimeoutMs` of worker time gets one
 * for each resource not validated. Either way the caller gets an outcome for every resource.
 *
 * Rebuild on artifact change, without restart and without failing in-flight validations: the
 * new generation is built completely while the old one keeps serving, then the reference is
 * swapped; calls that already started finish on the old validator/pool, and the old pool is
 * retired (closed after its queued and running tasks). Rebuilds run one at a time; requests that
 * arrive while one is waiting to start share it (it reads the artifacts when it starts).
 *
 * With `metrics`, every validated resource (API and flow alike) is timed into
 * `validation_resource_duration_seconds{resource_type}`: its validation time plus any wait for a
 * free worker, which is what a submission experiences. With `registry`, the validate-code cache and
 * terminology counters (cache_requests_total, terminology_validate_code_*) count the workers'
 * lookups too: each worker's changes come back with its results (worker-pool/worker-metrics.ts).
 */
import type { MessageWording } from '../../domain/engine/wording.js';
import os from 'node:os';
import type { Counter, Histogram, Registry } from 'prom-client';
import type { Logger } from '#adapters/observability/logger.js';
import type { ServiceMetrics } from '#adapters/observability/metrics.js';
import type { ArtifactRepository } from '../../domain/ports/artifact-repository.js';
import { DefinitionIndex, R4_CORE_PACKAGE } from '../../domain/engine/definitions/index.js';
import { joinedOutcomeJson } from '../../domain/flow/entry-outcome.js';
import type { ValidationScope } from '../../domain/flow/validation-scope.js';
import type { SubmissionValidation } from '../../domain/ports/resource-validator.js';
import type { FhirXmlReader } from '../../domain/ports/fhir-xml-reader.js';
import type { CategorizationRun, CategorizationRunner, CategorizationTask } from '../../domain/ports/categorization-runner.js';
import { PlanRegistry } from '../../domain/engine/plan/plan-registry.js';
import { parseResourceText, UnreadableResourceError } from '../../domain/engine/xml/resource-text.js';
import { isFhirJsonText, isFhirXmlText, ValidatorBusyError, type RequestDeadline, type ResourceInput, type ResourceValidator, type ValidateOptions, type ValidationOutcome } from '../../domain/ports/resource-validator.js';
import { loadDefinitions } from '../fhir-definitions/definition-cache.js';
import type { TerminologySettings } from '../terminology/index.js';
import { PoolSaturatedError, ValidationPool, type PoolEvent, type WorkerCacheSettings } from '../worker-pool/validation-pool.js';
import { readStoredArtifacts } from './stored-artifacts.js';
import { workerHeapMb } from './worker-memory.js';

export interface EngineHostOptions {
  readonly artifacts: ArtifactRepository;
  /** validation.workers: worker threads; 0 = one per core. */
  readonly workers: number;
  /** validation.resource-timeout-ms: longest one resource may take in a worker; absent = no deadline. */
  readonly resourceTimeoutMs?: number;
  /** validation.max-issues-per-resource: issues kept per resource (the rest counted); absent = no cap. */
  readonly maxIssuesPerResource?: number;
  /** validation.worker-heap-mb: each worker's heap limit in MB, 0 = derived from the pod's memory (worker-memory.ts); absent = no limit. */
  readonly workerHeapMb?: number;
  /** validation.submission-timeout-ms: worker time all resources of one validateEach call may take; absent = no budget. */
  readonly submissionTimeoutMs?: number;
  /** validation.queue-limit: tasks of each lane (API, flow) that may wait for a worker before validate() is refused (ValidatorBusyError) or whenRoom() waits. */
  readonly queueLimit?: number;
  /** validation.max-mb-in-flight: MB of submissions and resource texts queued or running beyond which validate() is refused and whenRoom() waits. */
  readonly maxMbInFlight?: number;
  /** validation.definition-cache-dir; false = no start-up cache. */
  readonly definitionCacheDir?: string | false;
  readonly terminology: TerminologySettings;
  /** How workers reach the validate-code cache (only used with a terminology server). */
  readonly workerCache?: WorkerCacheSettings;
  readonly logger: Logger;
  readonly registry?: Registry;
  readonly logLevel?: string;
  /** The wording of the issues' texts (validation.message-wording); the workers default to HAPI's. */
  readonly messageWording?: MessageWording;
  /** Where the validation duration histogram and the deadline counters go; none when absent. */
  readonly metrics?: ServiceMetrics;
  /** validation.reference-server-url (and its timeout): where a reference policy may fetch references from; absent = no network. */
  readonly referenceServer?: { readonly url: string; readonly timeoutMs?: number };
  /** The worker module (tests: one whose validator can be made to hang); default the production worker. */
  readonly workerFile?: string;
}

/** Seconds: 1 ms (a small resource on a warm engine) to 5 s (a huge bundle entry or a slow terminology server). */
export const VALIDATION_DURATION_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5];

/**
 * Said at warn level by every build without a stored package: such an engine checks FHIR core only,
 * and every US Core / QI-Core / DEQM / NHSN profile a submission claims is "Can't find profile".
 */
export const NO_PACKAGES_WARNING = 'THE VALIDATION ENGINE RUNS WITHOUT ANY IG PACKAGE: only FHIR R4 core is checked; every profile a submission claims '
  + '(US Core, QI-Core, DEQM, NHSN) gives "Can\'t find profile" and makes the submission invalid. Load the embedded packages with '
  + 'POST /api/artifact/$initialize, or upload packages with PUT /api/artifact/PACKAGE/{name}';

/** Fewest resources worth a batch of their own in validateEach (below, the per-task cost dominates). */
const MIN_BATCH = 8;

/** The label for resource types the engine does not know: keeps the label set bounded whatever clients send. */
export const UNKNOWN_RESOURCE_TYPE = 'unknown';

/** What a client refused for lack of room is told to wait before trying again. */
export const BUSY_RETRY_AFTER_SECONDS = 5;

/** The port's options plus the facility's validation scope. */
export interface EngineValidateOptions extends ValidateOptions {
  /** Only these packages/resources apply (absent: every artifact). */
  readonly scope?: ValidationScope;
}

export interface EngineGeneration {
  readonly number: number;
  readonly index: DefinitionIndex;
  readonly pool: ValidationPool;
  readonly builtAt: Date;
  /** Stored packages loaded (FHIR R4 core, which is built in, not counted). */
  readonly packages: number;
  /** Those packages as `name#version`, in load order: what the start-up log names. */
  readonly packageIds: readonly string[];
  readonly resources: number;
  /** The generation of the stored artifacts it was built from (read before them; see ArtifactRepository.generation). */
  readonly artifactsGeneration?: number;
}

export class EngineHost implements ResourceValidator, FhirXmlReader, CategorizationRunner {
  private current: EngineGeneration | undefined;
  private generations = 0;
  private chain: Promise<unknown> = Promise.resolve();
  private queued: Promise<EngineGeneration> | undefined;
  private closed = false;
  private readonly retiring = new Set<Promise<void>>();
  private readonly threads: number;
  private readonly duration: Histogram<'resource_type'> | undefined;
  private readonly timeouts: Counter<'deadline'> | undefined;
  private readonly replacements: Counter<'reason'> | undefined;
  /** Resource types seen so far that the definitions know (label values; bounded by the FHIR types). */
  private readonly knownTypes = new Set<string>();
  /** Plans that shape XML, per generation (compiled on first use). */
  private readonly xmlShapes = new WeakMap<EngineGeneration, PlanRegistry>();

  constructor(private readonly options: EngineHostOptions) {
    this.threads = options.workers === 0 ? os.availableParallelism() : options.workers;
    this.duration = options.metrics?.histogram({
      name: 'validation_resource_duration_seconds', help: 'Time to validate one resource (including the wait for a worker), by resource type',
      labelNames: ['resource_type'], buckets: VALIDATION_DURATION_BUCKETS,
    });
    this.timeouts = options.metrics?.counter({
      name: 'validation_timeouts_total', help: 'Validations stopped at a deadline: a resource past validation.resource-timeout-ms, or a submission past validation.submission-timeout-ms',
      labelNames: ['deadline'],
    });
    this.replacements = options.metrics?.counter({
      name: 'validation_worker_replacements_total', help: 'Validation worker threads terminated and replaced: timeout = a deadline passed, memory = its heap limit (validation.worker-heap-mb) passed, crash = the worker exited on its own',
      labelNames: ['reason'],
    });
    // Series at 0 from the start, so increase() and the alerts see them before the first event.
    for (const deadline of ['resource', 'submission']) this.timeouts?.inc({ deadline }, 0);
    for (const reason of ['timeout', 'memory', 'crash']) this.replacements?.inc({ reason }, 0);
  }

  /**
   * FHIR XML read into its JSON (RESOURCE artifacts uploaded as XML), shaped by the current
   * generation's core definitions.
   */
  readXml(xml: string): Record<string, unknown> {
    const generation = this.current;
    if (!generation) throw new Error('The validation engine is not started yet');
    let shapes = this.xmlShapes.get(generation);
    if (!shapes) this.xmlShapes.set(generation, (shapes = new PlanRegistry(generation.index)));
    const resource = parseResourceText(xml, shapes);
    if (typeof resource !== 'object' || resource === null || Array.isArray(resource)) throw new UnreadableResourceError('not a FHIR resource');
    return resource as Record<string, unknown>;
  }

  /** Worker threads per generation. */
  get workerThreads(): number {
    return this.threads;
  }

  /** How long the current pool has had work without any progress (0 when idle or not started); see ValidationPool.stalledForMs. */
  stalledForMs(): number {
    return this.current?.pool.stalledForMs() ?? 0;
  }

  /** Resolves when the current pool has room for more tasks (the ReadyForValidation consumer waits for it before fetching). */
  whenRoom(): Promise<void> {
    return this.current?.pool.whenRoom() ?? Promise.resolve();
  }

  get generation(): EngineGeneration | undefined {
    return this.current;
  }

  /** Builds the first generation (call before serving). */
  async start(): Promise<EngineGeneration> {
    return this.reload('start');
  }

  /**
   * Rebuilds from the stored artifacts and swaps. A failed rebuild keeps the previous generation
   * (and rejects). Safe to call often: a rebuild not yet started is shared.
   */
  reload(reason = 'artifacts changed'): Promise<EngineGeneration> {
    if (this.queued) return this.queued;
    const run = this.chain.then(() => {
      this.queued = undefined;
      return this.build(reason);
    });
    this.queued = run;
    this.chain = run.catch(() => undefined);
    return run;
  }

  /**
   * One resource (the API's $validate): refused with ValidatorBusyError when `queueLimit` tasks
   * already wait for a worker. Past `resourceTimeoutMs`, or past the request's `deadline` (queued or
   * running), its outcome is the fatal timeout issue.
   */
  async validate(resource: ResourceInput, options: EngineValidateOptions = {}): Promise<ValidationOutcome> {
    const generation = this.current;
    if (!generation) throw new Error('The validation engine is not started yet');
    const profiles = options.profiles ? [...options.profiles] : undefined;
    const started = this.duration ? performance.now() : 0;
    try {
      const outcome = await generation.pool.validateOne(resource, { profiles, authorization: options.authorization, scope: options.scope, settings: options.settings }, { admission: 'refuse', deadline: options.deadline });
      if (this.duration) this.observe(generation, resource, performance.now() - started);
      return outcome;
    } catch (error) {
      if (error instanceof PoolSaturatedError) throw new ValidatorBusyError(BUSY_RETRY_AFTER_SECONDS, { cause: error });
      throw error;
    }
  }

  /**
   * $categorize's matching (CategorizationRunner), in a worker under the per-resource deadline:
   * refused with ValidatorBusyError when `queueLimit` tasks already wait for a worker.
   */
  async categorize(task: CategorizationTask, deadline?: RequestDeadline): Promise<CategorizationRun> {
    const generation = this.current;
    if (!generation) throw new Error('The validation engine is not started yet');
    try {
      const { metrics: _metrics, ...answer } = await generation.pool.categorize(task, deadline) as CategorizationRun & { metrics?: unknown };
      return answer as CategorizationRun;
    } catch (error) {
      if (error instanceof PoolSaturatedError) throw new ValidatorBusyError(BUSY_RETRY_AFTER_SECONDS, { cause: error });
      throw error;
    }
  }

  /**
   * Validates each resource ON ITS OWN (core, its meta.profile profiles, terminology), outcomes in
   * the same order: the resources of one submission (the flow). They go to the workers as at most
   * one batch per worker (of at least MIN_BATCH resources): a task per resource cost more CPU in
   * messaging than the validation itself (bench:flow engine-only, validation.workers=0,
   * 58-resource submissions: 21.7 CPU ms per submission with a task per resource, 13.3-13.9 in
   * batches). The batches are always queued (the consumer waits for whenRoom() before fetching)
   * and share one submission budget. Each resource's histogram entry is its time in the worker plus
   * its batch's wait for a worker.
   */
  async validateEach(resources: readonly Record<string, unknown>[], options: EngineValidateOptions = {}): Promise<ValidationOutcome[]> {
    const generation = this.current;
    if (!generation) throw new Error('The validation engine is not started yet');
    const { pool } = generation;
    const profiles = options.profiles ? [...options.profiles] : undefined;
    const budget = this.options.submissionTimeoutMs === undefined ? undefined : pool.budget(this.options.submissionTimeoutMs);
    const batches = Math.max(1, Math.min(pool.threads, Math.ceil(resources.length / MIN_BATCH)));
    const size = Math.ceil(resources.length / batches);
    const results = await Promise.all(Array.from({ length: batches }, async (_, b) => {
      const batch = resources.slice(b * size, (b + 1) * size);
      const started = this.duration ? performance.now() : 0;
      const { outcomes, durationsMs } = await pool.validateTimed({ resources: batch, profiles, authorization: options.authorization, scope: options.scope }, { budget });
      if (this.duration) {
        const waitMs = Math.max(0, performance.now() - started - durationsMs.reduce((sum, ms) => sum + ms, 0));
        batch.forEach((resource, i) => this.observe(generation, resource, waitMs + (durationsMs[i] ?? 0)));
      }
      return outcomes;
    }));
    return results.flat();
  }

  /**
   * One submission from the bytes the report service answered (the flow): shared with ONE worker,
   * which reads the Bundle, validates each entry on its own and encodes the issues once
   * (worker-pool/submission-task.ts); the outcome's text is their concatenation. A task per
   * submission, not per resource: the pool's parallelism comes from the submissions in flight
   * (the consumer's concurrency). Deadlines and the submission budget as for validateEach; each
   * entry's histogram entry is its time in the worker plus the task's wait for a worker.
   */
  async validateSubmission(bytes: Uint8Array, options: EngineValidateOptions = {}): Promise<SubmissionValidation> {
    const generation = this.current;
    if (!generation) throw new Error('The validation engine is not started yet');
    const { pool } = generation;
    const budget = this.options.submissionTimeoutMs === undefined ? undefined : pool.budget(this.options.submissionTimeoutMs);
    // One copy into memory both threads see (the received buffer may be a slice of a shared pool):
    // the worker reads it in place, and a deadline's re-run reads it again.
    const shared = new SharedArrayBuffer(bytes.byteLength);
    new Uint8Array(shared).set(bytes);
    const started = this.duration ? performance.now() : 0;
    const result = await pool.validateSubmission({
      bytes: shared, profiles: options.profiles ? [...options.profiles] : undefined, authorization: options.authorization, scope: options.scope,
    }, { budget });
    if (result.kind === 'unreadable') return result;
    const { resourceTypes, durationsMs } = result;
    if (this.duration) {
      const waitMs = Math.max(0, performance.now() - started - durationsMs.reduce((sum, ms) => sum + ms, 0));
      resourceTypes.forEach((type, i) => this.observeType(generation, type, waitMs + (durationsMs[i] ?? 0)));
    }
    const outcomeJson = joinedOutcomeJson(result.issues);
    return { kind: 'validated', resourceCount: result.entryCount, outcomeJson };
  }

  private observe(generation: EngineGeneration, resource: ResourceInput, ms: number): void {
    this.observeType(generation, isFhirXmlText(resource) ? xmlRootName(resource.xml) : isFhirJsonText(resource) ? resource.rootType : resource.resourceType, ms);
  }

  private observeType(generation: EngineGeneration, resourceType: unknown, ms: number): void {
    this.duration?.observe({ resource_type: this.resourceTypeLabel(generation, resourceType) }, ms / 1_000);
  }

  private resourceTypeLabel(generation: EngineGeneration, resourceType: unknown): string {
    if (typeof resourceType !== 'string') return UNKNOWN_RESOURCE_TYPE;
    if (this.knownTypes.has(resourceType)) return resourceType;
    if (!/^[A-Z][A-Za-z]{0,63}$/.test(resourceType) || !generation.index.structureDefinitionForType(resourceType)) return UNKNOWN_RESOURCE_TYPE;
    this.knownTypes.add(resourceType);
    return resourceType;
  }

  /** Deadline events of a generation's pool: counted, and logged without any content of the resource. */
  private onPoolEvent(generation: () => EngineGeneration | undefined, event: PoolEvent): void {
    const { logger } = this.options;
    switch (event.kind) {
      case 'timeout': {
        this.timeouts?.inc({ deadline: event.deadline });
        const current = generation();
        const resourceType = current && event.resourceType !== undefined ? this.resourceTypeLabel(current, event.resourceType) : undefined;
        logger.warn({ deadline: event.deadline, resourceType, budgetMs: event.budgetMs }, 'validation passed its deadline; reported as a fatal issue');
        break;
      }
      case 'out-of-memory': {
        const current = generation();
        const resourceType = current && event.resourceType !== undefined ? this.resourceTypeLabel(current, event.resourceType) : undefined;
        logger.warn({ resourceType, budgetMb: event.budgetMb }, 'validation worker passed its heap limit; the resource is reported with a fatal issue');
        break;
      }
      case 'worker-terminated':
        this.replacements?.inc({ reason: event.reason });
        logger.warn({ reason: event.reason }, 'validation worker terminated; a new one is starting');
        break;
      case 'worker-replaced':
        logger.info({ ms: Math.round(event.afterMs) }, 'validation worker replaced');
        break;
      default:
        logger.warn({ err: event.error }, 'validation worker pool error');
    }
  }

  /**
   * Stops the workers (shutdown): waits for retiring pools, then destroys the current one. A rebuild
   * still running is not waited for (it can take seconds); its pool is closed when it finishes.
   */
  async close(): Promise<void> {
    this.closed = true;
    await Promise.allSettled([...this.retiring]);
    await this.current?.pool.close();
  }

  private async build(reason: string): Promise<EngineGeneration> {
    if (this.closed) throw new Error('The engine host is closed');
    const { logger } = this.options;
    const started = performance.now();
    // Before the artifacts: a change committed in between makes the next check rebuild again, never miss it.
    const artifactsGeneration = await this.options.artifacts.generation?.();
    const inputs = await readStoredArtifacts(this.options.artifacts);
    let generation: EngineGeneration;
    try {
      const loaded = await loadDefinitions({ packages: inputs.packageFiles, cacheDir: this.options.definitionCacheDir });
      for (const failure of loaded.failures) logger.error({ err: failure.error }, 'a stored package could not be read; validating without it');
      if (inputs.unreadable.length > 0) logger.error({ artifacts: inputs.unreadable }, 'stored RESOURCE artifacts are not readable FHIR JSON; skipped');
      const index = loaded.index;
      let built: EngineGeneration | undefined;
      const pool = ValidationPool.create({
        threads: this.workerThreads,
        state: DefinitionIndex.shareState(index.toState()),
        resources: inputs.resources as Record<string, unknown>[],
        terminology: this.options.terminology,
        cache: this.options.workerCache,
        ...(this.options.referenceServer ? { referenceServer: { ...this.options.referenceServer } } : {}),
        logLevel: this.options.logLevel,
        ...(this.options.messageWording ? { messageWording: this.options.messageWording } : {}),
        registry: this.options.registry,
        resourceTimeoutMs: this.options.resourceTimeoutMs,
        ...(this.options.maxIssuesPerResource === undefined ? {} : { maxIssuesPerResource: this.options.maxIssuesPerResource }),
        workerHeapMb: this.options.workerHeapMb === undefined ? undefined : workerHeapMb(this.options.workerHeapMb, this.workerThreads),
        queueLimit: this.options.queueLimit,
        ...(this.options.maxMbInFlight === undefined ? {} : { maxBytesInFlight: this.options.maxMbInFlight * 1024 * 1024 }),
        workerFile: this.options.workerFile,
        onEvent: (event) => this.onPoolEvent(() => built, event),
      });
      generation = built = {
        number: ++this.generations, index, pool,
        builtAt: new Date(), packages: inputs.packageFiles.length - loaded.failures.length, resources: inputs.resources.length, artifactsGeneration,
        packageIds: index.packages().filter((p) => p.name !== R4_CORE_PACKAGE.name).map((p) => `${p.name}#${p.version}`),
      };
      await this.warmUp(pool);
      logger.info({
        reason, generation: generation.number, packages: generation.packageIds, resources: generation.resources, workers: pool.threads,
        cacheHit: loaded.cacheHit, ms: Math.round(performance.now() - started),
      }, `validation engine ready with FHIR R4 core and ${generation.packages} IG package(s)${generation.packages > 0 ? `: ${generation.packageIds.join(', ')}` : ''}`);
      if (generation.packages === 0) logger.warn({ reason, generation: generation.number }, NO_PACKAGES_WARNING);
    } finally {
      await inputs.dispose();
    }
    if (this.closed) {
      await generation.pool.close();
      throw new Error('The engine host was closed during a rebuild');
    }
    const previous = this.current;
    this.current = generation;
    if (previous) this.retire(previous.pool);
    return generation;
  }

  /** One tiny task per worker, so a worker that cannot start fails the rebuild instead of the next validation. */
  private async warmUp(pool: ValidationPool): Promise<void> {
    try {
      await Promise.all(Array.from({ length: pool.threads }, () => pool.validateOne({ resourceType: 'Basic', code: { text: 'warm-up' } })));
    } catch (error) {
      await pool.close().catch(() => undefined);
      throw error;
    }
  }

  private retire(pool: ValidationPool): void {
    const done = pool.retire().catch((err: unknown) => this.options.logger.warn({ err }, 'retiring a worker pool failed'));
    this.retiring.add(done);
    void done.finally(() => this.retiring.delete(done));
  }
}

/** The root element's name of FHIR XML (its resource type), for the duration histogram's label; a linear scan of the first tag. */
function xmlRootName(xml: string): string | undefined {
  for (let i = xml.indexOf('<'); i >= 0 && i < 4096; i = xml.indexOf('<', i + 1)) {
    const c = xml.charCodeAt(i + 1);
    if (c === 63 /* ? */ || c === 33 /* ! */) continue;
    let end = i + 1;
    while (end < xml.length && end - i < 70 && /[A-Za-z]/.test(xml.charAt(end))) end++;
    return xml.slice(i + 1, end);
  }
  return undefined;
}
