/**
 * What a Validator holds for all its validations (HL7's worker context): the conformance
 * resources, terminology, compiled plans, the FHIRPath evaluator, the resolved options, and
 * caches keyed by element plans. The resource-type validators belong to the walk (walk/walker.ts),
 * which every NodeContext carries: they take a NodeContext, so naming them here would make an
 * import cycle (context → resource-types → context).
 */
import type { ConformanceResourceSource } from '../../ports/conformance-resources.js';
import type { TerminologyPort } from '../../ports/terminology.js';
import { InvariantEvaluator } from '../checks/invariants.js';
import { isObject } from '../json/json-value.js';
import { PlanRegistry } from '../plan/plan-registry.js';
import type { ElementPlan } from '../plan/structure-plan.js';
import type { ResolvedValidatorOptions } from '../validator-options.js';

/**
 * FHIRPath conformsTo(url) inside invariants: whether `value` follows the profile, walked silently
 * in `ctx` (the NodeContext the invariant runs in). The validator hands in rules/slicing.ts's
 * conformsTo, so the rules reach the walk through the services, not by importing it.
 */
export type ProfileConformance = (ctx: unknown, value: Record<string, unknown>, url: string) => boolean;


export class ValidatorServices {
  readonly plans: PlanRegistry;
  readonly invariants: InvariantEvaluator;
  /** Resource types a Reference element may point to (null: any); see rules/references.ts. */
  readonly referenceTargets = new WeakMap<ElementPlan, Set<string> | null>();
  /** The element inside a slice that a discriminator path points at; see rules/slicing.ts. */
  readonly sliceSubElements = new WeakMap<ElementPlan, Map<string, ElementPlan | null>>();

  constructor(
    readonly source: ConformanceResourceSource,
    readonly terminology: TerminologyPort,
    readonly options: ResolvedValidatorOptions,
    readonly conformsTo?: ProfileConformance,
  ) {
    this.plans = new PlanRegistry(source);
    this.invariants = new InvariantEvaluator(terminology);
  }

  /**
   * A canonical resource by type and url from a source that can resolve any type (the
   * definition index can; a bare source cannot): undefined when unknown or when the source fails.
   */
  resolve(type: string, url: string): unknown {
    try {
      return this.source.resolve?.(type, url);
    } catch {
      return undefined;
    }
  }

  /** As resolve, but only a resource of that type. */
  resolveCanonical(type: string, url: string): Record<string, unknown> | undefined {
    const r = this.resolve(type, url);
    return isObject(r) && r.resourceType === type ? r : undefined;
  }
}
