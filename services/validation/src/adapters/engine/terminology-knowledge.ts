import { R4_CORE_PACKAGE } from '../../domain/engine/definitions/index.js';
import type { TerminologyKnowledge } from '../../domain/ports/terminology-knowledge.js';
import { builtinCodeSystemIndex, grammarCodeSystem } from '../../domain/terminology/builtin/builtin-code-systems.js';
import type { EngineHost } from './engine-host.js';

/**
 * What the terminology-dependency reports (`$terminology-dependencies`) count as available without
 * artifacts: value sets and code systems of the R4 core definitions in the current engine generation,
 * and the code systems the service knows built in (BCP-47, MIME types, UCUM, ISO 3166). "Available
 * remotely" means a terminology server is configured, so what is not held locally is asked there
 * (the server is not queried just to fill a report).
 */
export function engineTerminologyKnowledge(engine: EngineHost, remoteServerConfigured: boolean): TerminologyKnowledge {
  return {
    isBuiltIn(kind, url) {
      if (kind === 'CodeSystem' && (grammarCodeSystem(url) || builtinCodeSystemIndex(url))) return true;
      const generation = engine.generation;
      if (!generation) return false;
      const resource = kind === 'ValueSet' ? generation.index.valueSet(url) : generation.index.codeSystem(url);
      return resource !== undefined && generation.index.originOf(resource)?.package?.name === R4_CORE_PACKAGE.name;
    },
    ...(remoteServerConfigured ? { isAvailableRemotely: () => true } : {}),
  };
}
