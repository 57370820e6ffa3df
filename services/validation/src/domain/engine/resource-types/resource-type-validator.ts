/**
 * Rules that belong to a resource type (as the HL7 validator's `instance.type` package:
 * BundleValidator, QuestionnaireValidator, MeasureValidator, ...). The structural walk of a
 * resource asks the registry for its type's validator and runs it around the element walk.
 *
 * To add rules: put them in the type's `<name>-validator.ts` (or a new one implementing
 * ResourceTypeValidator, added to `defaultResourceTypeValidators` in resource-types/index.ts).
 * `ctx` stands at the resource: `ctx.host` is its root resource and Bundle, `ctx.services` the
 * definitions and terminology. Read the instance through its node, `const node = ctx.nodeOf(resource)`:
 * `node.objects('group')`, `g.child('criteria')`, `c.str('expression')` give values with their
 * FHIRPath location and source position made from the same step down, and `n.error(id, args)` /
 * `n.warning(...)` report where the node stands (wording in messages.ts). Never build a location
 * by hand.
 */
import type { NodeContext } from '../context/node-context.js';

export interface ResourceTypeValidator {
  /** The resource types whose rules these are (the HL7 validator's MeasureValidator covers MeasureReport too). */
  readonly resourceTypes: readonly string[];
  /**
   * Before the resource's elements are walked: what the walk of the elements depends on
   * (a Bundle indexes its entries so that references inside them resolve).
   */
  beforeElements?(ctx: NodeContext, resource: Record<string, unknown>): void;
  /** After the element walk: the type's own rules. */
  validate?(ctx: NodeContext, resource: Record<string, unknown>): void;
}

/** Resource type → its validator. */
export class ResourceTypeValidators {
  private readonly byType = new Map<string, ResourceTypeValidator>();

  constructor(validators: Iterable<ResourceTypeValidator> = []) {
    for (const v of validators) this.register(v);
  }

  register(validator: ResourceTypeValidator): this {
    for (const type of validator.resourceTypes) {
      if (this.byType.has(type)) throw new Error(`a validator for ${type} is registered already`);
      this.byType.set(type, validator);
    }
    return this;
  }

  get(resourceType: string): ResourceTypeValidator | undefined {
    return this.byType.get(resourceType);
  }

  get resourceTypes(): string[] {
    return [...this.byType.keys()];
  }
}
