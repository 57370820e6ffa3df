/**
 * Worker-thread side of the validation pool. Each worker builds ONE Validator when it starts:
 *
 * - definitions: from the index state the main thread posted (`state`, its JSON in a
 *   SharedArrayBuffer: no worker parses the packages, each one only decodes the definitions it
 *   uses), or — when no state is given (benchmarks, tools) — from the start-up cache (`packages`);
 * - loose conformance resources (RESOURCE artifacts) layered over them;
 * - terminology: local terminology always; when a terminology server is configured the worker
 *   calls it directly (with its own near cache and, for `cache.type=distributed`, the shared
 *   Redis cache), exactly as the main thread would. That keeps every validation inside one
 *   thread and one event loop; the cost is one HTTP connection pool per worker. Its cache and
 *   terminology counters travel back with each result (worker-metrics.ts).
 *
 * A worker never changes its definitions: when artifacts change the host builds a new pool with
 * the new state and retires this one after its in-flight tasks (see validation-pool.ts).
 *
 * A task is a batch of resources (the API, tools: parsed, or JSON/XML text read here) or a whole submission as bytes, read and
 * validated here (submission-task.ts: the flow's path, nothing parsed crosses the thread boundary).
 *
 * Each task carries a progress buffer (task-progress.ts) where the worker says which resource it is
 * validating and since when: the pool terminates a worker whose resource passes its budget and
 * blames that resource alone. A task of a submission also carries the submission's shared budget:
 * the worker charges it the busy time of each resource and starts none once it is used up.
 */
import { setMessageWording, type MessageWording } from '../../domain/engine/wording.js';
import { performance } from 'node:perf_hooks';
import { threadId, workerData } from 'node:worker_threads';
import { createLogger } from '#adapters/observability/logger.js';
import type { CacheType, RedisConnectionOptions } from '#adapters/cache/index.js';
import { loadDefinitions } from '../fhir-definitions/definition-cache.js';
import {
  createTerminology, createValidateCodeCacheStore, remoteTerminologyConfigured, VALIDATE_CODE_CACHE_NAMESPACE, type CachedValidateCode, type TerminologySettings, type ValidateCodeCacheStore,
} from '../terminology/index.js';
import { conformanceSource } from '../engine/scoped-source.js';
import type { CanonicalResource, ConformanceResourceSource } from '../../domain/ports/conformance-resources.js';
import { DefinitionIndex, type DefinitionIndexState } from '../../domain/engine/definitions/index.js';
import type { ValidationOutcome } from '../../domain/engine/outcome/issue.js';
import { Validator } from '../../domain/engine/validator.js';
import { scopeIncludesResource, scopeKey, type ValidationScope } from '../../domain/flow/validation-scope.js';
import { ArtifactFetcher } from '../engine/artifact-fetcher.js';
import { FhirServerFetcher } from '../engine/fhir-server-fetcher.js';
import { LocalTerminology } from '../../domain/terminology/local-terminology.js';
import type { TerminologyPort } from '../../domain/ports/terminology.js';
import { engineInput } from '../../domain/ports/resource-validator.js';
import { validateSubmissionTask, type SubmissionTask, type SubmissionTaskResult } from './submission-task.js';
import { isCategorizeTask, runCategorizeTask, type CategorizeTask, type CategorizeTaskResult } from './categorize-task.js';
import { taskSettings } from './task-settings.js';
import type { TaskControls } from './task-controls.js';
import { SharedBudget, TaskProgress } from './task-progress.js';
import { WorkerCounters, type WorkerMetricsReport } from './worker-metrics.js';

/** Cache settings a worker needs to reach the validate-code cache (plain data: it crosses threads). */
export interface WorkerCacheSettings {
  type: CacheType;
  ttlSeconds?: number;
  memoryMaxEntries?: number;
  /** Plain data, cloned into the worker: the same connection (TLS included) as the main thread's cache. */
  redis?: RedisConnectionOptions;
  /** Default `validation:validate-code`; also the `cache` label its lookups are counted under in the main thread. */
  namespace?: string;
}

export interface WorkerSetup {
  /** The definition index state (share it with `DefinitionIndex.shareState`); wins over `packages`. */
  state?: DefinitionIndexState;
  /** `.tgz` files or folders, loaded through the start-up cache when no `state` is given. */
  packages?: string[];
  /** Loose conformance resources (RESOURCE artifacts) layered over the packages. */
  resources?: Record<string, unknown>[];
  cacheDir?: string | false;
  /** Absent or without a server URL: local terminology only. */
  terminology?: TerminologySettings;
  cache?: WorkerCacheSettings;
  logLevel?: string;
  /** The wording of this worker's issue texts (default HAPI's). */
  messageWording?: MessageWording;
  /**
   * The FHIR server references may be fetched from when a reference policy asks
   * (`validation.reference-server-url`); absent = the RESOURCE artifacts only, no network.
   */
  referenceServer?: { url: string; timeoutMs?: number };
  /**
   * At most this many issues per resource (validation.max-issues-per-resource): the rest are
   * counted, not built, and one information issue says how many. A call's own maxValidationMessages
   * may lower it, never raise it. Absent = no cap.
   */
  maxIssuesPerResource?: number;
}

export interface ValidationTask extends TaskControls {
  /** Resources (parsed) or JSON texts, each validated on its own against core + its meta.profile. */
  resources: unknown[];
}

/** What a task gives back to the pool (ValidationPool.validate unwraps it). */
export interface ValidationTaskResult {
  /** One per resource, in order; fewer (the first ones) when the submission used up its budget. */
  outcomes: ValidationOutcome[];
  /** Milliseconds each resource took in this worker (same order as the outcomes). */
  durationsMs: number[];
  /** This worker's counter changes since its previous result; absent when none. */
  metrics?: WorkerMetricsReport;
}

/** What the pool gave this worker when it started it (piscina's workerData: structured-cloned, untyped). */
const setup = (workerData ?? {}) as WorkerSetup;

/** The per-resource issue cap of this worker (a call may only lower it). */
const setupMaxIssues = setup.maxIssuesPerResource;

// The wording is the thread's, set before the first message is formatted.
const setupWording = setup.messageWording;
if (setupWording) setMessageWording(setupWording);

let base: Promise<{ index: DefinitionIndex; resources: CanonicalResource[]; data: WorkerSetup }> | undefined;
/** One validator per scope content ('' = unscoped), built on first use. */
const validators = new Map<string, Promise<Validator>>();

function validatorFor(scope: ValidationScope | undefined): Promise<Validator> {
  const key = scope ? scopeKey(scope) : '';
  let validator = validators.get(key);
  if (!validator) {
    base ??= (async () => {
      const data = setup;
      const index = data.state
        ? DefinitionIndex.fromState(data.state)
        : (await loadDefinitions({ packages: data.packages ?? [], cacheDir: data.cacheDir })).index;
      // RESOURCE artifacts are FHIR resources (checked when stored): each has its resourceType.
      return { index, resources: (data.resources ?? []).filter(isCanonicalResource), data };
    })();
    validator = base.then(async ({ index, resources, data }) => {
      const source = conformanceSource(index, resources, scope);
      return new Validator(source, await terminologyFor(source, data), {
        fetcher: fetcherFor(resources, scope, data), ...(data.maxIssuesPerResource === undefined ? {} : { maxValidationMessages: data.maxIssuesPerResource }),
      });
    });
    validators.set(key, validator);
  }
  return validator;
}

/** One FHIR server fetcher per worker (one connection pool), whatever the number of scopes. */
let serverFetcher: FhirServerFetcher | undefined;

/** What references resolve to beyond the resource and its Bundle: the scope's RESOURCE artifacts, then the configured server. */
function fetcherFor(resources: readonly CanonicalResource[], scope: ValidationScope | undefined, data: WorkerSetup): ArtifactFetcher {
  if (data.referenceServer && !serverFetcher) {
    serverFetcher = new FhirServerFetcher({ baseUrl: data.referenceServer.url, timeoutMs: data.referenceServer.timeoutMs, logger: createLogger('validation-worker', data.logLevel) });
  }
  return new ArtifactFetcher(scope ? resources.filter((r) => scopeIncludesResource(scope, r)) : resources, serverFetcher);
}

/** This thread's counters: the main thread's registry receives their changes with each result. */
const counters = new WorkerCounters();
/** One validate-code cache per worker, whatever the number of scopes (one Redis connection). */
let cacheStore: Promise<ValidateCodeCacheStore<CachedValidateCode> | undefined> | undefined;

async function terminologyFor(source: ConformanceResourceSource, data: WorkerSetup): Promise<TerminologyPort> {
  const settings = data.terminology;
  if (!settings || !remoteTerminologyConfigured(settings)) return new LocalTerminology(source);
  const logger = createLogger('validation-worker', data.logLevel);
  cacheStore ??= (async () => {
    if (!data.cache || data.cache.type === 'none') return undefined;
    // The cache label is the namespace, as for the main thread's own validate-code cache.
    const namespace = data.cache.namespace ?? VALIDATE_CODE_CACHE_NAMESPACE;
    const store = await createValidateCodeCacheStore({ ...data.cache, namespace, logger });
    counters.addCache(namespace, store);
    return store;
  })();
  return createTerminology({ source, settings, cacheStore: await cacheStore, logger, metrics: counters.terminology }).terminology;
}

type AnyTask = ValidationTask | SubmissionTask | CategorizeTask;
type AnyTaskResult = ValidationTaskResult | SubmissionTaskResult | CategorizeTaskResult;

/** The task this worker is running, while there is one. */
let running: Promise<AnyTaskResult> | undefined;

/**
 * A batch of resources (ValidationTask), a whole submission as bytes (SubmissionTask,
 * submission-task.ts), or $categorize's matching (categorize-task.ts).
 *
 * One task at a time. The pool gives a worker its next task while it runs one (validation-pool.ts),
 * so that the worker need not wait for the main thread between two tasks; piscina calls this as
 * soon as that task's message is read, which is during the running task's first real wait (a
 * terminology server's answer, say). The held task starts only after the running one has ended
 * and its answer has been posted (the next turn of the event loop): its deadline, its budget and
 * its progress are its own, and the pool knows the worker is free for another task before this
 * one takes the thread.
 */
export default async function validateTask(task: AnyTask): Promise<AnyTaskResult> {
  const previous = running;
  const current = previous ? afterTurnOf(previous).then(() => runTask(task)) : runTask(task);
  running = current;
  try {
    return await current;
  } finally {
    if (running === current) running = undefined;
  }
}

/** Settles after `previous` has, and after the event loop's next turn (its answer posted by then). */
async function afterTurnOf(previous: Promise<unknown>): Promise<void> {
  await previous.then(() => undefined, () => undefined);
  await new Promise((resolve) => setImmediate(resolve));
}

async function runTask(task: AnyTask): Promise<AnyTaskResult> {
  // Taken by this worker from now on: the pool terminates this thread for it, and no longer gives it to another.
  if (task.progress) new TaskProgress(task.progress).take(threadId);
  if (isCategorizeTask(task)) return runCategorizeTask(task);
  const v = await validatorFor(task.scope);
  if ('bytes' in task) {
    const result = await validateSubmissionTask(v, task, setupMaxIssues);
    const metrics = counters.takeReport();
    if (metrics) result.metrics = metrics;
    return result;
  }
  const settings = taskSettings(task, setupMaxIssues);
  const progress = task.progress ? new TaskProgress(task.progress) : undefined;
  const budget = task.budget ? new SharedBudget(task.budget) : undefined;
  const outcomes: ValidationOutcome[] = [];
  const durationsMs: number[] = [];
  for (const [index, r] of task.resources.entries()) {
    // The submission is out of budget: the outcomes so far; the pool reports the rest as not validated.
    if (budget?.exhausted && index >= (task.budgetFrom ?? 0)) break;
    progress?.begin(index);
    const started = performance.now();
    const busyBefore = budget ? performance.eventLoopUtilization() : undefined;
    // FHIR JSON or XML text is read here, with locations and the reader's limits (engineInput)
    const input = engineInput(r);
    outcomes.push(await v.validateAsync(input.value, { profiles: task.profiles, authorization: task.authorization, settings, ...(input.format ? { format: input.format } : {}) }));
    durationsMs.push(performance.now() - started);
    if (budget && busyBefore) budget.charge(performance.eventLoopUtilization(busyBefore).active);
  }
  progress?.finish();
  const metrics = counters.takeReport();
  return metrics ? { outcomes, durationsMs, metrics } : { outcomes, durationsMs };
}

function isCanonicalResource(resource: Record<string, unknown>): resource is CanonicalResource {
  return typeof resource.resourceType === 'string';
}
