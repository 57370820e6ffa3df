/**
 * TerminologyKnowledge on the engine's conformance resources: what the engine holds besides the
 * stored artifacts (the FHIR R4 core value sets and code systems, built-in code systems) counts as
 * available locally in the terminology dependencies.
 */
import type { TerminologyKnowledge } from '../domain/artifacts/package-summary.js';
import type { ConformanceResourceSource } from '../domain/conformance-resources.js';

export function conformanceSourceKnowledge(
  source: Pick<ConformanceResourceSource, 'valueSet' | 'codeSystem'>,
  /** e.g. "a terminology server is configured and knows it"; absent: nothing counts as remote. */
  isAvailableRemotely?: TerminologyKnowledge['isAvailableRemotely'],
): TerminologyKnowledge {
  return {
    isBuiltIn: (kind, url) => (kind === 'ValueSet' ? source.valueSet(url) : source.codeSystem(url)) !== undefined,
    ...(isAvailableRemotely ? { isAvailableRemotely } : {}),
  };
}
