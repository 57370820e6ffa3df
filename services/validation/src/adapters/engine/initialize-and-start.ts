/**
 * Start-up order of the artifacts and the engine: the default artifacts are stored FIRST (when
 * `artifact.init` is on and none are stored), and their change notice builds the engine; only when
 * nothing was loaded (artifacts already stored, or initialization off) is the engine started from
 * what is stored. So the first start of a fresh installation builds the engine once, with the
 * embedded packages, instead of once empty (warning that it has no package) and again with them.
 */
import type { InitializationReport } from '../../application/artifact-service.js';
import type { ImportOutcome } from '../../domain/ports/category-repository.js';
import type { EngineGeneration } from './engine-host.js';

export interface StartableEngine {
  readonly generation: EngineGeneration | undefined;
  start(): Promise<EngineGeneration>;
}

export interface InitializableApi {
  initializeIfEmpty(options: { artifactInit: boolean }): Promise<{ artifacts?: InitializationReport; categories?: ImportOutcome }>;
}

export async function initializeAndStartEngine(api: InitializableApi, engine: StartableEngine, options: { artifactInit: boolean }): Promise<{
  initialized: { artifacts?: InitializationReport; categories?: ImportOutcome };
  generation: EngineGeneration;
}> {
  const initialized = await api.initializeIfEmpty(options);
  // The change notice of the initialization built the engine, unless nothing was stored or that build failed.
  const generation = engine.generation ?? await engine.start();
  return { initialized, generation };
}
