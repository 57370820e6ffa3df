/**
 * The walk as one object (NodeWalker, declared in context/node-context.ts), made once per
 * Validator and carried by every NodeContext. The walk's modules and the rules recurse through
 * `ctx.walker` rather than importing each other, so the imports run one way: this module →
 * instance-validator / object-walker → property-walker → value-walker → profile-choice → rules →
 * context, and no rule imports walk/.
 *
 * Methods, not closures: the walk calls them on every object, and one shared instance costs no
 * allocation per call.
 */
import type { NodeContext, NodeWalker } from '../context/node-context.js';
import type { ResourceContext } from '../context/resource-context.js';
import type { Position } from '../json/located-json.js';
import type { ChildIndex, StructurePlan } from '../plan/structure-plan.js';
import type { ResourceTypeValidators } from '../resource-types/resource-type-validator.js';
import { validateAgainstProfile, validateResource } from './instance-validator.js';
import { walkObject } from './object-walker.js';
import { walkComplexValue } from './value-walker.js';

export class ResourceWalker implements NodeWalker {
  /** `resourceTypes`: the resource-type validators run around the structural walk of each resource. */
  constructor(readonly resourceTypes: ResourceTypeValidators) {}

  walkObject(ctx: NodeContext, obj: Record<string, unknown>, children: ChildIndex, ownConstraints = true): void {
    walkObject(ctx, obj, children, ownConstraints);
  }

  walkComplexValue(ctx: NodeContext, v: Record<string, unknown>, type: string | undefined): void {
    walkComplexValue(ctx, v, type);
  }

  validateResource(host: ResourceContext, extraProfiles: readonly string[], structural: boolean): void {
    validateResource(this, this.resourceTypes, host, extraProfiles, structural);
  }

  validateAgainstProfile(host: ResourceContext, plan: StructurePlan, reportPath: string, at: Position | undefined): void {
    validateAgainstProfile(this, host, plan, reportPath, at);
  }
}
