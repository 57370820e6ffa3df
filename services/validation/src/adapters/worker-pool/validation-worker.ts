/**
 * Worker-thread side of the validation pool: each worker loads the definitions once (from the
 * start-up cache) and keeps one Validator, so a task only carries resources and profiles.
 * Validation is CPU-bound; running one validator per core is how the service uses all cores.
 */
import { workerData } from 'node:worker_threads';
import { loadDefinitions } from '../fhir-definitions/definition-cache.js';
import { LayeredConformanceSource } from '../../domain/engine/layered-source.js';
import { Validator } from '../../domain/engine/validator.js';
import type { ValidationOutcome } from '../../domain/engine/outcome/issue.js';
import { LocalTerminology } from '../../domain/terminology/local-terminology.js';

export interface WorkerSetup {
  packages: string[];
  /** Loose conformance resources (RESOURCE artifacts) layered over the packages. */
  resources: Record<string, unknown>[];
  cacheDir?: string | false;
}

export interface ValidationTask {
  /** Resources (parsed) or JSON texts, each validated on its own against core + its meta.profile. */
  resources: unknown[];
  profiles?: string[];
}

let validator: Promise<Validator> | undefined;

function setup(): Promise<Validator> {
  validator ??= (async () => {
    const data = (workerData ?? {}) as WorkerSetup;
    const loaded = await loadDefinitions({ packages: data.packages ?? [], cacheDir: data.cacheDir });
    const source = new LayeredConformanceSource((data.resources ?? []) as any, loaded.index);
    return new Validator(source, new LocalTerminology(source));
  })();
  return validator;
}

export default async function validateTask(task: ValidationTask): Promise<ValidationOutcome[]> {
  const v = await setup();
  const out: ValidationOutcome[] = [];
  for (const r of task.resources) out.push(await v.validateAsync(r, { profiles: task.profiles }));
  return out;
}
