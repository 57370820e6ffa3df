/**
 * One value of the instance being validated, as the engine reads it: the JSON value, its FHIRPath
 * location and its position in the source text, with the small questions every rule asks of it
 * (a named child, the items of a list, a string) and a way to report an issue where it stands.
 * HL7's validator reads its `Element` the same way; medplum's `TypedValue` is the same idea.
 *
 * Why a node and not the raw JSON: a rule that walks raw JSON builds each location by hand
 * (`${path}.group[${gi}]`) and looks each position up by hand (`run.itemPos(arr, i)`), so a rule
 * could report at a location that names one value and a position that names another. A node makes
 * both from the same step down.
 *
 * Positions are looked up only when asked for (an issue is reported): most nodes never report, and
 * the lookup (a WeakMap entry of the parser) is the costly part.
 *
 * The XML reader yields the same JSON model (with its own positions), so one node type serves both.
 */
import type { MessageId } from '../messages.js';
import type { IssueSeverity } from '../outcome/issue.js';
import type { Position } from './located-json.js';
import { isObject } from './json-value.js';

/**
 * Where nodes find their source positions and report their issues (the validation run, which keeps
 * the parser's positions and the issues found so far).
 */
export interface NodeSource {
  pos(value: unknown): Position | undefined;
  propPos(parent: Record<string, unknown>, key: string): Position | undefined;
  itemPos(arr: readonly unknown[], i: number): Position | undefined;
  report(severity: IssueSeverity, id: MessageId, args: readonly unknown[], path: string, at: Position | undefined): void;
}

const NO_NODES: readonly JsonNode[] = [];

export class JsonNode {
  /** The position, once looked up (`null`: looked up, none known). */
  private position: Position | null | undefined;
  /** The location, once made (a rule's nodes are often read and never reported: see `path`). */
  private location: string | undefined;

  private constructor(
    private readonly source: NodeSource,
    /** The JSON value (object, array, string, number, boolean, null). */
    readonly value: unknown,
    /**
     * The node this one is a step down from (its value holds this value), and the step in the
     * location (`.name`, `[i]`; undefined: the same location).
     */
    private readonly parent: JsonNode | undefined,
    private readonly step: string | number | undefined,
    /** The key or index of the value in the parent's value (where a primitive's position is found). */
    private readonly slot: string | number,
  ) {}

  /** A node whose location is given. */
  private static located(source: NodeSource, value: unknown, path: string): JsonNode {
    const node = new JsonNode(source, value, undefined, undefined, '');
    node.location = path;
    return node;
  }

  /** FHIRPath location of the value (`Bundle.entry[0].resource.code`), made when first asked for. */
  get path(): string {
    if (this.location === undefined) {
      const base = this.parent === undefined ? '' : this.parent.path;
      const step = this.step;
      this.location = step === undefined ? base : typeof step === 'number' ? `${base}[${String(step)}]` : `${base}.${step}`;
    }
    return this.location;
  }

  /** A value at a known location and position (a resource where the walk stands). */
  static at(source: NodeSource, value: unknown, path: string, at: Position | undefined): JsonNode {
    const node = JsonNode.located(source, value, path);
    if (at !== undefined) node.position = at;
    return node;
  }

  /**
   * A value at a location given by the caller, reported without a source position (the value a
   * silent slice match walks under a made-up name, a resource whose issues HL7 places by location only).
   */
  static unplaced(source: NodeSource, value: unknown, path: string): JsonNode {
    const node = JsonNode.located(source, value, path);
    node.position = null;
    return node;
  }

  /**
   * This value, reporting to `source` instead (a silent run of slice matching: same positions,
   * its own issues); itself when the source is the same.
   */
  in(source: NodeSource): JsonNode {
    if (source === this.source) return this;
    const node = new JsonNode(source, this.value, this.parent, this.step, this.slot);
    node.location = this.location;
    node.position = this.position;
    return node;
  }

  /** Where the value starts in the source text (JSON or XML input; undefined for values built in memory). */
  get at(): Position | undefined {
    if (this.position === undefined) this.position = this.lookUpPosition() ?? null;
    return this.position ?? undefined;
  }

  private lookUpPosition(): Position | undefined {
    const { slot, value } = this;
    const holder = this.parent?.value;
    // an object or array knows its own start; a primitive is found through what holds it
    const own = this.source.pos(value);
    if (own !== undefined || holder === undefined) return own;
    if (Array.isArray(holder)) return typeof slot === 'number' ? this.source.itemPos(holder, slot) : undefined;
    return isObject(holder) && typeof slot === 'string' ? this.source.propPos(holder, slot) : undefined;
  }

  // ---- the value ------------------------------------------------------------------------------

  /** The value as an object (a resource, a datatype, a backbone element), else undefined. */
  get object(): Record<string, unknown> | undefined {
    return isObject(this.value) ? this.value : undefined;
  }

  get isObject(): boolean {
    return isObject(this.value);
  }

  /** Whether the value is a JSON array (a property written as a list). */
  get isList(): boolean {
    return Array.isArray(this.value);
  }

  /** The value when it is a string, else undefined. */
  get string(): string | undefined {
    return typeof this.value === 'string' ? this.value : undefined;
  }

  // ---- children -------------------------------------------------------------------------------

  /** Whether this object has the property (present, not null). */
  has(name: string): boolean {
    const obj = this.object;
    return obj !== undefined && obj[name] !== undefined && obj[name] !== null;
  }

  /**
   * The property `name` as one node, whatever its JSON shape (a list stays a list: see `children`);
   * undefined when this is not an object or has no such property. `pathName` names it in the
   * location when the FHIRPath name differs from the JSON key (`value.ofType(Quantity)` for `valueQuantity`).
   */
  child(name: string, pathName: string = name): JsonNode | undefined {
    const obj = this.object;
    if (obj === undefined) return undefined;
    const v = obj[name];
    if (v === undefined) return undefined;
    return new JsonNode(this.source, v, this, pathName, name);
  }

  /**
   * The items of the property `name`: each item of a list at `name[i]`, a single value as itself
   * (at `name`, as FHIRPath names a value written without a list). Empty when absent.
   */
  children(name: string, pathName: string = name): readonly JsonNode[] {
    const prop = this.child(name, pathName);
    return prop === undefined ? NO_NODES : prop.items();
  }

  /** The items of `children(name)` that are objects (the usual question: the list's elements). */
  objects(name: string, pathName: string = name): readonly JsonNode[] {
    return this.children(name, pathName).filter((n) => n.isObject);
  }

  /** This value's items: each item of a list at `[i]`; any other value as the only item (null gives none). */
  items(): readonly JsonNode[] {
    const v = this.value;
    if (v === null) return NO_NODES;
    if (!Array.isArray(v)) return [this];
    const list: readonly unknown[] = v;
    const out: JsonNode[] = [];
    for (let i = 0; i < list.length; i++) out.push(new JsonNode(this.source, list[i], this, i, i));
    return out;
  }

  /**
   * Item `i` of this value as the walk reads a property: a list's item, or a single value as item 0
   * (another index of a single value is a value given only by its `_x` companion: no value, found
   * where the property is). `indexed` false keeps this location for every item (XML's repeated
   * non-repeating element, reported where the element is named).
   */
  item(i: number, indexed: boolean): JsonNode {
    const v = this.value;
    const step = indexed ? i : undefined;
    if (Array.isArray(v)) {
      const list: readonly unknown[] = v;
      return new JsonNode(this.source, list[i], this, step, i);
    }
    if (!indexed && i === 0) return this;
    // (a repeating element written as a single value, reported as such: rare, so its position,
    // the property's, is looked up here rather than kept findable)
    const node = new JsonNode(this.source, i === 0 ? v : undefined, this, step, this.slot);
    node.position = this.at ?? null;
    return node;
  }

  /** The first item of the property `name` (HL7's getNamedChild): a single value, or a list's first item. */
  first(name: string, pathName: string = name): JsonNode | undefined {
    return this.children(name, pathName)[0];
  }

  /** The property `name` when it is a string, else undefined. */
  str(name: string): string | undefined {
    const v = this.object?.[name];
    return typeof v === 'string' ? v : undefined;
  }

  // ---- reporting ------------------------------------------------------------------------------

  /** Reports a catalogue message here (at this node's location and position). */
  report(severity: IssueSeverity, id: MessageId, args: readonly unknown[]): void {
    this.source.report(severity, id, args, this.path, this.at);
  }

  error(id: MessageId, args: readonly unknown[]): void {
    this.report('error', id, args);
  }

  warning(id: MessageId, args: readonly unknown[]): void {
    this.report('warning', id, args);
  }

  information(id: MessageId, args: readonly unknown[]): void {
    this.report('information', id, args);
  }

  // ---- lists as the JSON writes them, and locations named from a neighbour ---------------------

  /**
   * The items of the property `name` when the JSON writes it as a list; none for any other shape
   * (a single value where a list belongs is the structural walk's error, and the type rules skip it).
   */
  listed(name: string): readonly JsonNode[] {
    const prop = this.child(name);
    return prop?.isList === true ? prop.items() : NO_NODES;
  }

  /** The items of `listed(name)` that are objects. */
  listedObjects(name: string): readonly JsonNode[] {
    return this.listed(name).filter((n) => n.isObject);
  }

  /**
   * This node's location named from another element: the part that is `ancestor`'s replaced by
   * `name`. HL7 names some values from a neighbour: a primitive's extensions from the primitive
   * (not its `_` sibling), the items inside an answer from the item that holds the answer.
   */
  locationUnder(ancestor: JsonNode, name: string): string {
    return this.path.startsWith(ancestor.path) ? name + this.path.slice(ancestor.path.length) : this.path;
  }
}
