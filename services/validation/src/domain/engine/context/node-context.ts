/**
 * Where the walk stands, as HL7's NodeStack: one JSON value being checked against one element
 * of one structure (the resource's core definition, a profile, a datatype, an extension
 * definition), its FHIRPath location and source position, the walk's mode and nesting depth,
 * and the resource it belongs to (see ResourceContext). Every rule and every resource-type
 * validator takes one of these instead of positional parameters.
 *
 * Immutable: each step down makes a new one (a few fields, cheap in the hot walk).
 *
 * It also carries the walk itself (`walker`, one object per Validator, handed on by reference), so
 * that a rule which must walk a nested value (an extension's value, a slice's candidate, a `_x`
 * companion) calls back into the walk through this interface instead of importing walk/: the
 * imports run walk → rules → context only. NodeWalker is declared here, beside NodeContext, because
 * each names the other (a separate module would make an import cycle, type imports included).
 */
import { JsonNode } from '../json/json-node.js';
import type { Position } from '../json/located-json.js';
import type { MessageId } from '../messages.js';
import type { IssueSeverity } from '../outcome/issue.js';
import type { ChildIndex, ElementPlan, StructurePlan } from '../plan/structure-plan.js';
import type { ResourceContext } from './resource-context.js';
import type { ValidationRun } from './validation-run.js';
import type { ValidatorServices } from './validator-services.js';

/**
 * `structural`: the walk against a resource's core definition (JSON shape, unknown properties,
 * primitives, extensions by url, references, nested resources, resource-type rules).
 * `profile`: a walk against a profile, checking only what a profile adds.
 */
export type WalkMode = 'structural' | 'profile';

/** The walk, as rules and the walk's own modules reach it (implemented by walk/walker.ts's ResourceWalker). */
export interface NodeWalker {
  /** `obj` (at ctx.path) against `children`, the children of ctx.element; `ownConstraints` false skips ctx.element's invariants. */
  walkObject(ctx: NodeContext, obj: Record<string, unknown>, children: ChildIndex, ownConstraints?: boolean): void;
  /** The complex value `v` of `type` at ctx (an item of a property; ctx.element is its element). */
  walkComplexValue(ctx: NodeContext, v: Record<string, unknown>, type: string | undefined): void;
  /** host.resource at host.path: `structural` for a resource met for the first time, `extraProfiles` the caller's. */
  validateResource(host: ResourceContext, extraProfiles: readonly string[], structural: boolean): void;
  /** A profile walk of host.resource; problems with the profile itself are reported at `reportPath`. */
  validateAgainstProfile(host: ResourceContext, plan: StructurePlan, reportPath: string, at: Position | undefined): void;
}

/**
 * What the nodes of one structure's walk share: the walk, the resource, the structure and the
 * mode. A NodeContext is one, so an item of a property is made from its parent without a new
 * object besides itself.
 */
export interface WalkFrame {
  /** The walk (one per Validator): how a rule walks a nested value. */
  readonly walker: NodeWalker;
  readonly host: ResourceContext;
  /** The structure whose elements are walked; its label names it in messages. */
  readonly plan: StructurePlan;
  readonly mode: WalkMode;
}

export class NodeContext implements WalkFrame {
  readonly walker: NodeWalker;
  readonly host: ResourceContext;
  readonly plan: StructurePlan;
  readonly mode: WalkMode;
  /** The value checked here, with its location and source position (both from the same step down). */
  readonly node: JsonNode;

  constructor(
    frame: WalkFrame,
    /** The element the value is checked against. */
    readonly element: ElementPlan,
    node: JsonNode,
    /** Nesting depth (objects, not properties), against ValidatorOptions.maxDepth. */
    readonly depth: number,
  ) {
    // copied, not held: the walk reads these on every node
    this.walker = frame.walker;
    this.host = frame.host;
    this.plan = frame.plan;
    this.mode = frame.mode;
    // the node reports where this context does (a silent run's context, a silent node)
    this.node = node.in(frame.host.run);
  }

  /**
   * The walk of a resource against the root of a structure (its core definition or a profile):
   * `root` is `plan.root`. Issues at the resource itself are placed where it starts, as HL7 places them.
   */
  static resourceRoot(walker: NodeWalker, host: ResourceContext, plan: StructurePlan, root: ElementPlan, mode: WalkMode): NodeContext {
    return new NodeContext({ walker, host, plan, mode }, root, JsonNode.at(host.run, host.resource, host.path, undefined), host.depth);
  }

  /** FHIRPath location of the value. */
  get path(): string {
    return this.node.path;
  }

  /** Where the value was found in the source text (looked up when asked: most values never report). */
  get at(): Position | undefined {
    return this.node.at;
  }

  get run(): ValidationRun {
    return this.host.run;
  }

  get services(): ValidatorServices {
    return this.host.run.services;
  }

  /** One item of a property of this node's value (`node`, made from this one): same structure and depth, its own element. */
  item(element: ElementPlan, node: JsonNode): NodeContext {
    return new NodeContext(this, element, node, this.depth);
  }

  /**
   * Into this complex value's children, one level deeper: against `plan` (its datatype's, or this
   * one), for `host`'s resource; `node` is what holds the children when it is not this value (a
   * primitive's `_x` companion, at the primitive's location).
   */
  inside(plan: StructurePlan, host: ResourceContext = this.host, node: JsonNode = this.node): NodeContext {
    return new NodeContext({ walker: this.walker, host, plan, mode: this.mode }, this.element, node, this.depth + 1);
  }

  /** This value walked as a profile walk against the root of another structure (a type profile, an extension definition). */
  againstProfile(plan: StructurePlan, root: ElementPlan, depth: number): NodeContext {
    return new NodeContext({ walker: this.walker, host: this.host, plan, mode: 'profile' }, root, this.node, depth);
  }

  /**
   * `value` as a node at this context's location and position: this context's own node when it is
   * the value the context stands at (a type validator's resource), so nothing is looked up twice.
   */
  nodeOf(value: unknown): JsonNode {
    return value === this.node.value ? this.node : JsonNode.at(this.host.run, value, this.path, this.at);
  }

  // ---- reporting ------------------------------------------------------------------------------

  /** Reports a catalogue message at a location (identical issues are reported once per validation). */
  report(severity: IssueSeverity, id: MessageId, args: readonly unknown[], path: string, at: Position | undefined): void {
    this.host.run.report(severity, id, args, path, at);
  }

  error(id: MessageId, args: readonly unknown[], path: string = this.path, at: Position | undefined = this.at): void {
    this.host.run.report('error', id, args, path, at);
  }

  warning(id: MessageId, args: readonly unknown[], path: string = this.path, at: Position | undefined = this.at): void {
    this.host.run.report('warning', id, args, path, at);
  }

  information(id: MessageId, args: readonly unknown[], path: string = this.path, at: Position | undefined = this.at): void {
    this.host.run.report('information', id, args, path, at);
  }
}
