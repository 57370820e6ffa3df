/**
 * The engine host: owns the FHIR engine of this process and keeps it in step with the stored
 * artifacts. It implements the ResourceValidator port (the validation API and the flow call it).
 *
 * One "generation" = definition index (R4 core + every PACKAGE artifact, through the start-up
 * cache) + RESOURCE artifacts layered over it + terminology + a Validator + (when
 * `validation.workers` ≠ 1) a worker pool that received the index state in a SharedArrayBuffer.
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
import os from 'node:os';
import type { Histogram, Registry } from 'prom-client';
import type { Logger } from '../../../../../adapters/observability/logger.js';
import type { ServiceMetrics } from '../../../../../adapters/observability/metrics.js';
import type { ArtifactRepository } from '../../domain/artifacts/artifact-repository.js';
import type { CanonicalResource, ConformanceResourceSource } from '../../domain/conformance-resources.js';
import { DefinitionIndex } from '../../domain/engine/definitions/index.js';
import { Validator } from '../../domain/engine/validator.js';
import { scopeKey, type ValidationScope } from '../../domain/flow/validation-scope.js';
import type { OperationOutcome, ResourceValidator, ValidateOptions } from '../../domain/ports/resource-validator.js';
import { loadDefinitions } from '../fhir-definitions/definition-cache.js';
import { createTerminology, type CachedValidateCode, type TerminologySettings, type ValidateCodeCacheStore } from '../terminology/index.js';
import { ValidationPool, type WorkerCacheSettings } from '../worker-pool/validation-pool.js';
import { conformanceSource } from './scoped-source.js';
import { readStoredArtifacts } from './stored-artifacts.js';

export interface EngineHostOptions {
  readonly artifacts: ArtifactRepository;
  /** validation.workers: 0 = one per core; 1 = validate in this thread (no pool). */
  readonly workers: number;
  /** validation.definition-cache-dir; false = no start-up cache. */
  readonly definitionCacheDir?: string | false;
  readonly terminology: TerminologySettings;
  /** The validate-code cache of this process (main-thread validations). */
  readonly terminologyCache?: ValidateCodeCacheStore<CachedValidateCode>;
  /** How workers reach the validate-code cache (only used with a terminology server). */
  readonly workerCache?: WorkerCacheSettings;
  readonly logger: Logger;
  readonly registry?: Registry;
  readonly logLevel?: string;
  /** Where the per-resource-type validation duration histogram goes; none when absent. */
  readonly metrics?: ServiceMetrics;
}

/** Seconds: 1 ms (a small resource on a warm engine) to 5 s (a huge bundle entry or a slow terminology server). */
export const VALIDATION_DURATION_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5];

/** Fewest resources worth a batch of their own in validateEach (below, the per-task cost dominates). */
const MIN_BATCH = 8;

/** The label for resource types the engine does not know: keeps the label set bounded whatever clients send. */
export const UNKNOWN_RESOURCE_TYPE = 'unknown';

/** The port's options plus the facility's validation scope (issue 6 item 7). */
export interface EngineValidateOptions extends ValidateOptions {
  /** Only these packages/resources apply (absent: every artifact). */
  readonly scope?: ValidationScope;
}

export interface EngineGeneration {
  readonly number: number;
  readonly index: DefinitionIndex;
  readonly source: ConformanceResourceSource;
  readonly validator: Validator;
  readonly looseResources: readonly CanonicalResource[];
  /** Validators of the scopes met so far in this thread, by scope content. */
  readonly scoped: Map<string, Validator>;
  readonly pool?: ValidationPool;
  readonly builtAt: Date;
  readonly packages: number;
  readonly resources: number;
  /** The generation of the stored artifacts it was built from (read before them; see ArtifactRepository.generation). */
  readonly artifactsGeneration?: number;
}

export class EngineHost implements ResourceValidator {
  private current: EngineGeneration | undefined;
  private generations = 0;
  private chain: Promise<unknown> = Promise.resolve();
  private queued: Promise<EngineGeneration> | undefined;
  private closed = false;
  private readonly retiring = new Set<Promise<void>>();
  private readonly threads: number;
  private readonly duration: Histogram<'resource_type'> | undefined;
  /** Resource types seen so far that the definitions know (label values; bounded by the FHIR types). */
  private readonly knownTypes = new Set<string>();

  constructor(private readonly options: EngineHostOptions) {
    this.threads = options.workers === 0 ? os.availableParallelism() : options.workers;
    this.duration = options.metrics?.histogram({
      name: 'validation_resource_duration_seconds', help: 'Time to validate one resource (including the wait for a worker), by resource type',
      labelNames: ['resource_type'], buckets: VALIDATION_DURATION_BUCKETS,
    });
  }

  /** Worker threads per generation (1 = in-process, no pool). */
  get workerThreads(): number {
    return this.threads <= 1 ? 0 : this.threads;
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

  async validate(resource: Record<string, unknown>, options: EngineValidateOptions = {}): Promise<OperationOutcome> {
    const generation = this.current;
    if (!generation) throw new Error('The validation engine is not started yet');
    const profiles = options.profiles ? [...options.profiles] : undefined;
    const started = this.duration ? performance.now() : 0;
    try {
      const outcome = generation.pool
        ? await generation.pool.validateOne(resource, { profiles, authorization: options.authorization, scope: options.scope })
        : await this.validatorIn(generation, options.scope).validateAsync(resource, { profiles, authorization: options.authorization });
      return outcome as unknown as OperationOutcome;
    } finally {
      if (this.duration) this.observe(generation, resource, performance.now() - started);
    }
  }

  /**
   * Validates each resource ON ITS OWN (core, its meta.profile profiles, terminology), outcomes in
   * the same order. With a pool, the resources go to the workers as at most one batch per worker
   * (of at least MIN_BATCH resources): a task per resource cost more CPU in messaging than the
   * validation itself (bench:flow engine-only, validation.workers=0, 58-resource submissions:
   * 21.7 CPU ms per submission with a task per resource, 13.3-13.9 in batches; 8-10 in-thread).
   * Each resource's histogram entry is its time in the worker plus its batch's wait for a worker.
   */
  async validateEach(resources: readonly Record<string, unknown>[], options: EngineValidateOptions = {}): Promise<OperationOutcome[]> {
    const generation = this.current;
    if (!generation) throw new Error('The validation engine is not started yet');
    const { pool } = generation;
    // In this thread: all at once, as validate() would be called (remote terminology lookups overlap).
    if (!pool) return Promise.all(resources.map((resource) => this.validate(resource, options)));
    const profiles = options.profiles ? [...options.profiles] : undefined;
    const batches = Math.max(1, Math.min(pool.threads, Math.ceil(resources.length / MIN_BATCH)));
    const size = Math.ceil(resources.length / batches);
    const results = await Promise.all(Array.from({ length: batches }, async (_, b) => {
      const batch = resources.slice(b * size, (b + 1) * size);
      const started = this.duration ? performance.now() : 0;
      const { outcomes, durationsMs } = await pool.validateTimed({ resources: batch, profiles, authorization: options.authorization, scope: options.scope });
      if (this.duration) {
        const waitMs = Math.max(0, performance.now() - started - durationsMs.reduce((sum, ms) => sum + ms, 0));
        batch.forEach((resource, i) => this.observe(generation, resource, waitMs + (durationsMs[i] ?? 0)));
      }
      return outcomes as unknown as OperationOutcome[];
    }));
    return results.flat();
  }

  private observe(generation: EngineGeneration, resource: Record<string, unknown>, ms: number): void {
    this.duration?.observe({ resource_type: this.resourceTypeLabel(generation, resource.resourceType) }, ms / 1_000);
  }

  private resourceTypeLabel(generation: EngineGeneration, resourceType: unknown): string {
    if (typeof resourceType !== 'string') return UNKNOWN_RESOURCE_TYPE;
    if (this.knownTypes.has(resourceType)) return resourceType;
    if (!/^[A-Z][A-Za-z]{0,63}$/.test(resourceType) || !generation.index.structureDefinitionForType(resourceType)) return UNKNOWN_RESOURCE_TYPE;
    this.knownTypes.add(resourceType);
    return resourceType;
  }

  private validatorIn(generation: EngineGeneration, scope: ValidationScope | undefined): Validator {
    if (!scope) return generation.validator;
    const key = scopeKey(scope);
    let validator = generation.scoped.get(key);
    if (!validator) {
      const source = conformanceSource(generation.index, generation.looseResources, scope);
      validator = new Validator(source, this.terminologyFor(source));
      generation.scoped.set(key, validator);
    }
    return validator;
  }

  private terminologyFor(source: ConformanceResourceSource) {
    const { logger, terminology, terminologyCache, registry } = this.options;
    return createTerminology({ source, settings: terminology, cacheStore: terminologyCache, logger, registry }).terminology;
  }

  /**
   * Stops the workers (shutdown): waits for retiring pools, then destroys the current one. A rebuild
   * still running is not waited for (it can take seconds); its pool is closed when it finishes.
   */
  async close(): Promise<void> {
    this.closed = true;
    await Promise.allSettled([...this.retiring]);
    await this.current?.pool?.close();
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
      const source = conformanceSource(index, inputs.resources);
      const terminology = this.terminologyFor(source);
      const pool = this.workerThreads > 0
        ? ValidationPool.create({
          threads: this.workerThreads,
          state: DefinitionIndex.shareState(index.toState()),
          resources: inputs.resources as Record<string, unknown>[],
          terminology: this.options.terminology,
          cache: this.options.workerCache,
          logLevel: this.options.logLevel,
          registry: this.options.registry,
        })
        : undefined;
      generation = {
        number: ++this.generations, index, source, validator: new Validator(source, terminology), pool,
        looseResources: inputs.resources, scoped: new Map(),
        builtAt: new Date(), packages: inputs.packageFiles.length - loaded.failures.length, resources: inputs.resources.length, artifactsGeneration,
      };
      if (pool) await this.warmUp(pool);
      logger.info({
        reason, generation: generation.number, packages: generation.packages, resources: generation.resources, workers: pool?.threads ?? 0,
        cacheHit: loaded.cacheHit, ms: Math.round(performance.now() - started),
      }, 'validation engine ready');
    } finally {
      await inputs.dispose();
    }
    if (this.closed) {
      await generation.pool?.close();
      throw new Error('The engine host was closed during a rebuild');
    }
    const previous = this.current;
    this.current = generation;
    if (previous?.pool) this.retire(previous.pool);
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
