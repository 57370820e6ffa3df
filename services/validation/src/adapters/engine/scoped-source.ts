/**
 * The conformance source of one generation, whole or seen through a facility's validation scope:
 * packages by `DefinitionIndex.scoped` (shares the index's tables; costs only the view), the
 * scope's RESOURCE artifacts layered on top. Used by every validation worker for each scope it
 * meets (and by tests that validate in their own thread), so all see exactly the same definitions.
 */
import type { CanonicalResource, ConformanceResourceSource } from '../../domain/ports/conformance-resources.js';
import type { DefinitionIndex } from '../../domain/engine/definitions/index.js';
import { LayeredConformanceSource } from '../../domain/engine/layered-source.js';
import { scopeIncludesResource, type ValidationScope } from '../../domain/flow/validation-scope.js';

export function conformanceSource(index: DefinitionIndex, resources: readonly CanonicalResource[], scope?: ValidationScope): ConformanceResourceSource {
  const base = scope ? index.scoped(scope.packages, [], { exclusive: scope.exclusive ?? true }) : index;
  const loose = scope ? resources.filter((r) => scopeIncludesResource(scope, r)) : resources;
  return loose.length > 0 ? new LayeredConformanceSource(loose, base) : base;
}
