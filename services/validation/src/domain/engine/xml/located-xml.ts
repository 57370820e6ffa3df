/**
 * FHIR XML read into the same located model as the JSON reader (json/located-json.ts): the
 * JSON-shaped value of FHIR's JSON representation, a WeakMap of positions per object and
 * array, and the problems found. Every rule of the engine then runs on XML unchanged.
 *
 * The XML is shaped with the R4 definitions (the compiled plans of the core types), as the HL7
 * validator's XmlParser reads it into its element model:
 * - a primitive element's `value` attribute becomes the JSON primitive (numbers and booleans as
 *   JSON numbers and booleans, the text kept when a number's JSON rendering differs: `1.50`),
 *   its `id` attribute and `extension` children the `_x` companion;
 * - an element repeats as a JSON array when its base cardinality does (`max` > 1), else it is a
 *   single value (a non-repeating element written twice becomes an array, so the walker counts
 *   it as HL7 does: `max allowed = 1, but found 2`);
 * - choice elements keep their typed name (`valueQuantity`), `contained`, `Bundle.entry.resource`
 *   and other Resource-typed elements hold the resource written inside them;
 * - an xhtml element (`Narrative.div`) is kept verbatim as XHTML text, as in JSON.
 * The XML-only rules of HL7's XmlParser are reported here, worded and located as HL7 does
 * (XPath-like locations such as `/f:Observation/f:status`): wrong namespaces, unknown elements
 * and attributes, text, CDATA and processing instructions where FHIR has none, empty elements,
 * and elements out of the order of their definition (XML is ordered, JSON is not).
 *
 * Hostile input: saxes is a streaming, linear, non-validating parser with no DTD support; a
 * DOCTYPE (the door to XXE and entity expansion such as billion laughs) is refused outright and
 * no entity beyond XML's five is known, so nothing expands. Every problem of well-formedness is a
 * fatal issue at the failing line. The reader keeps its own stack (no recursion), so depth is
 * bounded by `maxDepth`, and size by `maxLength`.
 */
import { SaxesParser } from 'saxes';
import type { ArrayLocation, LocatedJson, ObjectLocation, Position } from '../json/located-json.js';
import type { MessageId } from '../messages.js';
import type { PlanRegistry } from '../plan/plan-registry.js';
import { PRIMITIVE_TYPES, type ChildIndex, type ElementPlan } from '../plan/structure-plan.js';
import { scanXml, type TagAttributes } from './xml-scanner.js';

export const FHIR_NS = 'http://hl7.org/fhir';
export const XHTML_NS = 'http://www.w3.org/1999/xhtml';
const XSI_NS = 'http://www.w3.org/2001/XMLSchema-instance';

export interface XmlReadOptions {
  /** Element nesting deeper than this is a fatal error (default 500). */
  maxDepth?: number;
  /** Inputs longer than this many characters are refused (default unlimited). */
  maxLength?: number;
  /** Accept `xsi:schemaLocation` on FHIR elements (HL7's allowXsiLocation; default false, as HL7). */
  allowXsiLocation?: boolean;
  /**
   * A longer attribute value is refused before parsing (default 16 MiB). The XML parser reads an
   * attribute character by character (about 20 ms per MiB), so a huge value costs seconds; a scan
   * with the native indexOf finds one in milliseconds. FHIR strings stop at 1 MB; only
   * base64Binary values come near this.
   */
  maxAttributeLength?: number;
  /**
   * Read with saxes alone, not the fast scanner first (xml-scanner.ts). The result is the same
   * either way: the tests compare the two readings.
   */
  fullParser?: boolean;
}

/** One XML problem, as the HL7 validator words (message id and arguments) and locates it. */
export interface XmlParseIssue {
  severity: 'fatal' | 'error' | 'warning';
  messageId: MessageId;
  args: string[];
  /** The location HL7 gives (an XPath-like path, a FHIRPath, `(xml)` or `(document)`). */
  expression: string;
  line: number;
  col: number;
}

/** The located model of the JSON reader, with the XML reader's issues. */
export type LocatedXml = Omit<LocatedJson, 'issues'> & { issues: XmlParseIssue[] };

/** Whether text is XML rather than JSON (its first character after a byte order mark and whitespace is `<`). */
export function looksLikeXml(text: string): boolean {
  for (let i = 0; i < text.length && i < 4096; i++) {
    const c = text.charCodeAt(i);
    if (c === 0xfeff || c === 32 || c === 9 || c === 10 || c === 13) continue;
    return c === 60;
  }
  return false;
}

type Obj = Record<string, unknown>;

/** An array the reader made for a property, with its location. */
interface ArrayEntry {
  arr: unknown[];
  loc: ArrayLocation;
}

/** Where a child's value goes: a property of an object frame. */
interface Slot {
  parent: ObjectFrame;
  key: string;
  /** The property's array when it repeats (or is repeated). */
  array: ArrayEntry | undefined;
  /** The item index (repeating) the value takes. */
  index: number;
}

/**
 * An element as read, its namespaces resolved by the reader (saxes' own namespace processing
 * doubled its time; FHIR documents declare one or two namespaces).
 */
interface XmlTag {
  name: string;
  prefix: string;
  local: string;
  uri: string;
  attributes: XmlAttribute[];
  /** It declares its default namespace itself (`xmlns="..."`). */
  declaresDefault: boolean;
}

interface XmlAttribute {
  name: string;
  prefix: string;
  local: string;
  uri: string;
  value: string;
}

/** Namespace bindings in scope: the default namespace and prefixes, inherited until an element declares its own. */
interface NamespaceScope {
  defaultUri: string;
  prefixes: Map<string, string>;
}

/** An element just opened: its tag and the namespaces in scope inside it (one per element, passed along as read). */
interface OpenedTag {
  readonly tag: XmlTag;
  readonly scope: NamespaceScope;
}

/**
 * Locations are built only when an issue needs one (most elements never do): each frame keeps its
 * step and its parent's frame.
 */
interface FrameBase {
  /** The parent's frame for HL7's XPath-like location (`/f:Patient/f:name`); undefined at a root (a nested resource starts again). */
  xParent: FrameBase | undefined;
  /** This element's XPath step (`f:name`; a root's: `/f:Patient`, a nested resource's: `Patient`). */
  xStep: string;
  /** The parent's frame for the FHIRPath of the value, as the walker names it (`Patient.name[0]`). */
  fParent: FrameBase | undefined;
  /** This element's FHIRPath step (`name`, `value.ofType(Quantity)`; '' adds nothing: a resource in its holder). */
  fStep: string;
  /** The item index in the step, -1 for none. */
  fIndex: number;
  scope: NamespaceScope;
  /** The element's qualified name, for messages. */
  qname: string;
  pos: Position;
  /** The element had an attribute (other than xmlns), a child element or non-blank text. */
  hasContent: boolean;
}

/** A complex element or a resource: its JSON object and the children its definition allows. */
interface ObjectFrame extends FrameBase {
  kind: 'object';
  obj: Obj;
  loc: ObjectLocation;
  children: ChildIndex | undefined;
  /** The FHIR type, for messages (`Observation`, `HumanName`, `Patient.contact`'s BackboneElement). */
  type: string;
  /** The definition that orders the children, named as HL7 names a profile (`url|version`). */
  orderedBy: string;
  lastIndex: number;
  lastName: string;
  /** The arrays made for its properties (repeating elements and their `_x` companions), made on first need. */
  arrays: Map<string, ArrayEntry> | undefined;
  /** It has a `_x` companion property (most objects have none: no need to look for one). */
  companions: boolean;
}

/** A primitive element: its value goes to the slot, its id and extensions to the `_x` companion. */
interface PrimitiveFrame extends FrameBase {
  kind: 'primitive';
  slot: Slot;
  /** The `_x` companion, as an object frame its extensions attach to (made when needed: most primitives have none). */
  companion: ObjectFrame | undefined;
  type: string;
  children: ChildIndex | undefined;
  orderedBy: string;
  lastIndex: number;
  lastName: string;
}

/** A Resource-typed element (`contained`, `Bundle.entry.resource`): holds one resource element. */
interface HolderFrame extends FrameBase {
  kind: 'holder';
  slot: Slot;
  filled: boolean;
}

/** An element whose content is not read: unknown, or past a holder's resource. */
interface SkipFrame extends FrameBase {
  kind: 'skip';
}

/** An xhtml element: its source text is kept verbatim. */
interface XhtmlFrame extends FrameBase {
  kind: 'xhtml';
  slot: Slot;
  start: number;
  /** Namespace to declare when the element does not declare its own (it inherited one). */
  addNamespace: string | undefined;
  nested: number;
}

type Frame = ObjectFrame | PrimitiveFrame | HolderFrame | SkipFrame | XhtmlFrame;

class FatalXml extends Error {}

/** The fast scanner met something it leaves to saxes (an issue located where only saxes knows: the document is read again with it). */
class LeftToSaxes extends Error {}

const NUMERIC = new Set(['integer', 'positiveInt', 'unsignedInt', 'decimal']);
const XML_NS = 'http://www.w3.org/XML/1998/namespace';
const XMLNS_NS = 'http://www.w3.org/2000/xmlns/';
const ROOT_SCOPE: NamespaceScope = { defaultUri: '', prefixes: new Map([['xml', XML_NS], ['xmlns', XMLNS_NS]]) };

function xpathOf(frame: FrameBase): string {
  const steps: string[] = [];
  for (let f: FrameBase | undefined = frame; f; f = f.xParent) steps.push(f.xStep);
  return steps.reverse().join('/');
}

function fhirPathOf(frame: FrameBase): string {
  const steps: string[] = [];
  for (let f: FrameBase | undefined = frame; f; f = f.fParent) {
    if (f.fStep) steps.push(f.fIndex >= 0 ? `${f.fStep}[${f.fIndex}]` : f.fStep);
  }
  return steps.reverse().join('.');
}

/**
 * Reads FHIR XML into the located model. `plans` gives the core definitions that shape it;
 * never throws: bad XML is a fatal issue.
 */
export function parseLocatedXml(text: string, plans: PlanRegistry, options: XmlReadOptions = {}): LocatedXml {
  const locations = new WeakMap<object, ObjectLocation | ArrayLocation>();
  const issues: XmlParseIssue[] = [];
  const result = (value: unknown): LocatedXml => ({ value, locations, issues, unquotedValues: false });
  const issue = (severity: XmlParseIssue['severity'], messageId: MessageId, args: string[], expression: string, at: Position): void => {
    issues.push({ severity, messageId, args, expression, line: at.line, col: at.col });
  };
  if (options.maxLength !== undefined && text.length > options.maxLength) {
    issue('fatal', 'XML_TOO_LARGE', [`The input is too large (${text.length} characters; the limit is ${options.maxLength})`], '(xml)', { line: 1, col: 1 });
    return result(undefined);
  }

  const huge = longQuotedRun(text, options.maxAttributeLength ?? 16 * 1024 * 1024);
  if (huge) {
    issue('fatal', 'XML_TOO_LARGE', [`An attribute value is too large (${huge.length} characters; the limit is ${options.maxAttributeLength ?? 16 * 1024 * 1024})`], '(xml)', huge.at);
    return result(undefined);
  }
  // the fast scanner first; what it leaves (rare in FHIR: CDATA, DOCTYPEs, bad markup...) saxes reads, from the start
  return (options.fullParser ? undefined : readXml(text, plans, options, false)) ?? readXml(text, plans, options, true) ?? result(undefined);
}

/**
 * Reads the document with the fast scanner (`withSaxes` false: undefined when it leaves the
 * document to saxes) or with saxes. Both drive the same handlers.
 */
function readXml(text: string, plans: PlanRegistry, options: XmlReadOptions, withSaxes: boolean): LocatedXml | undefined {
  const maxDepth = options.maxDepth ?? 500;
  const locations = new WeakMap<object, ObjectLocation | ArrayLocation>();
  const issues: XmlParseIssue[] = [];
  const result = (value: unknown): LocatedXml => ({ value, locations, issues, unquotedValues: false });
  const issue = (severity: XmlParseIssue['severity'], messageId: MessageId, args: string[], expression: string, at: Position): void => {
    issues.push({ severity, messageId, args, expression, line: at.line, col: at.col });
  };
  const parser = withSaxes ? new SaxesParser({ xmlns: false, position: true }) : undefined;
  const stack: Frame[] = [];
  let root: Obj | undefined;
  /** Set by the handlers: whether a root element opened, and in FHIR's namespace. */
  const doc = { sawRoot: false, rootIsFhir: false };
  /** Processing instructions outside the root element (HL7 reports them when the root is FHIR). */
  const documentInstructions: Position[] = [];
  /** Where the element being opened starts (its `<`), set at opentagstart. */
  let tagStart = 0;
  let tagPos: Position = { line: 1, col: 1 };

  /** Where saxes is (for issues at text, instructions, errors): only saxes knows, so the scanner leaves those documents to it. */
  const here = (): Position => {
    if (!parser) throw new LeftToSaxes();
    return { line: parser.line, col: parser.column + 1 };
  };
  const fatal = (messageId: MessageId, args: string[], at: Position = here()): never => {
    issue('fatal', messageId, args, '(xml)', at);
    throw new FatalXml(args[0]);
  };

  // ---- namespaces (as saxes' xmlns mode would: unbound prefixes are fatal)

  /** An element's tag with its namespaces resolved: its name and its attributes as written. */
  function readTag(name: string, written: TagAttributes, parentScope: NamespaceScope): OpenedTag {
    const { names, values, count } = written;
    let scope = parentScope;
    let declaresDefault = false;
    for (let a = 0; a < count; a++) {
      const attr = names[a];
      const value = values[a];
      if (attr === undefined || value === undefined) break;
      if (attr === 'xmlns') {
        if (scope === parentScope) scope = { defaultUri: parentScope.defaultUri, prefixes: parentScope.prefixes };
        scope.defaultUri = value;
        declaresDefault = true;
      } else if (attr.startsWith('xmlns:')) {
        if (scope === parentScope) scope = { defaultUri: parentScope.defaultUri, prefixes: parentScope.prefixes };
        if (scope.prefixes === parentScope.prefixes) scope.prefixes = new Map(parentScope.prefixes);
        scope.prefixes.set(attr.slice(6), value);
      }
    }
    const prefix = prefixOfName(name);
    const local = localOfName(name);
    const uri = prefix ? scope.prefixes.get(prefix) : scope.defaultUri;
    if (uri === undefined) return fatal('XML_PARSE_ERROR', [`The prefix "${prefix}" for element "${name}" is not bound.`]);
    const attributes: XmlAttribute[] = [];
    for (let a = 0; a < count; a++) {
      const attr = names[a];
      const value = values[a];
      if (attr === undefined || value === undefined) break;
      const p = prefixOfName(attr);
      const l = localOfName(attr);
      let u = '';
      if (attr === 'xmlns' || p === 'xmlns') u = XMLNS_NS;
      else if (p) {
        const bound = scope.prefixes.get(p);
        if (bound === undefined) return fatal('XML_PARSE_ERROR', [`The prefix "${p}" for attribute "${attr}" associated with an element type "${name}" is not bound.`]);
        u = bound;
      }
      attributes.push({ name: attr, prefix: p, local: l, uri: u, value });
    }
    return { tag: { name, prefix, local, uri, attributes, declaresDefault }, scope };
  }

  // ---- building the JSON value

  function newObject(at: Position): { obj: Obj; loc: ObjectLocation } {
    const obj: Obj = {};
    // a plain object: its keys are names of FHIR's definitions (and `_` companions), none of them Object.prototype's
    const loc: ObjectLocation = { line: at.line, col: at.col, props: {} };
    locations.set(obj, loc);
    return { obj, loc };
  }

  /** An array for `parent`'s property `key`, at `at`, remembered in the frame. */
  function newArray(parent: ObjectFrame, key: string, arr: unknown[], loc: ArrayLocation): ArrayEntry {
    const entry: ArrayEntry = { arr, loc };
    locations.set(arr, loc);
    parent.obj[key] = arr;
    (parent.arrays ??= new Map()).set(key, entry);
    return entry;
  }

  /** The slot a new child of `parent` called `key` takes (its item index when it repeats, or is repeated). */
  function slotFor(parent: ObjectFrame, key: string, repeating: boolean, at: Position): Slot {
    let entry = parent.arrays?.get(key);
    if (!entry) {
      const existing = parent.obj[key];
      const companion = parent.companions ? parent.obj['_' + key] : undefined;
      if (!repeating && existing === undefined && companion === undefined) {
        parent.loc.props[key] = at;
        return { parent, key, array: undefined, index: 0 };
      }
      // a repeating element, or a non-repeating one written again: a list, so the walker counts it
      const aloc: ArrayLocation = { ...(parent.loc.props[key] ?? at), items: [] };
      const arr: unknown[] = [];
      if (existing !== undefined || companion !== undefined) {
        arr.push(existing ?? null);
        const first = parent.loc.props[key] ?? parent.loc.props['_' + key] ?? at;
        aloc.items.push(first);
        const raw = parent.loc.rawNumbers?.[key];
        if (raw !== undefined) (aloc.rawNumbers ??= {})[0] = raw;
        if (companion !== undefined) newArray(parent, '_' + key, [companion], { ...aloc, items: [first] });
      }
      entry = newArray(parent, key, arr, aloc);
      parent.loc.props[key] ??= at;
    }
    entry.arr.push(null);
    entry.loc.items.push(at);
    return { parent, key, array: entry, index: entry.arr.length - 1 };
  }

  function put(slot: Slot, value: unknown, raw?: string): void {
    const { parent, key, array } = slot;
    if (array) {
      array.arr[slot.index] = value;
      if (raw !== undefined) (array.loc.rawNumbers ??= {})[slot.index] = raw;
    } else {
      parent.obj[key] = value;
      if (raw !== undefined) (parent.loc.rawNumbers ??= {})[key] = raw;
    }
  }

  /** A primitive's `_x` companion (id, extensions), aligned with its value by item index. */
  function putCompanion(slot: Slot, companion: Obj, at: Position): void {
    const { parent } = slot;
    const key = '_' + slot.key;
    parent.companions = true;
    if (!slot.array) {
      parent.obj[key] = companion;
      parent.loc.props[key] = at;
      return;
    }
    let entry = parent.arrays?.get(key);
    if (!entry) {
      entry = newArray(parent, key, [], { ...at, items: [] });
      parent.loc.props[key] = at;
    }
    while (entry.arr.length < slot.index) {
      entry.arr.push(null);
      entry.loc.items.push(at);
    }
    entry.arr[slot.index] = companion;
    entry.loc.items[slot.index] = at;
  }

  /** A primitive's text as its JSON value: numbers and booleans when they read as such; the text otherwise (the checks judge it). */
  function putPrimitive(slot: Slot, type: string, v: string): void {
    if (type === 'boolean') {
      put(slot, v === 'true' ? true : v === 'false' ? false : v);
    } else if (NUMERIC.has(type) && isNumberText(v)) {
      // the text is kept when the number's JSON rendering differs (`1.50`)
      const n = Number(v);
      put(slot, n, String(n) === v ? undefined : v);
    } else {
      put(slot, v);
    }
  }

  // ---- definitions

  /** The children of an element of `type` (its own for backbone elements, a content reference's, or its type's). */
  function childrenOf(el: ElementPlan, type: string | undefined): { children: ChildIndex | undefined; orderedBy: string } {
    if (el.ownChildren) return { children: el.ownChildren, orderedBy: el.structure.label };
    if (el.contentReference) {
      const ref = el.structure.byId.get(el.contentReference.slice(el.contentReference.indexOf('#') + 1));
      if (ref?.ownChildren) return { children: ref.ownChildren, orderedBy: el.structure.label };
    }
    const tp = type ? plans.typePlan(type) : undefined;
    return { children: tp?.root?.ownChildren, orderedBy: tp?.label ?? '' };
  }

  /** The child element of `parent` named `local` (a choice name with any type, as HL7's getElementProp). */
  function childElement(children: ChildIndex | undefined, local: string): { element: ElementPlan; type: string | undefined } | undefined {
    if (!children) return undefined;
    const hit = children.byJsonName.get(local);
    if (hit) return hit.element.xmlAttr ? undefined : hit;
    for (const c of children.choices) {
      if (local.length > c.name.length && local.startsWith(c.name)) {
        const c0 = local.charCodeAt(c.name.length);
        if (c0 < 65 || c0 > 90) continue;
        const suffix = local.slice(c.name.length);
        const lower = suffix.charAt(0).toLowerCase() + suffix.slice(1);
        const type = PRIMITIVE_TYPES.has(lower) ? lower : suffix;
        // a type the choice does not allow: read as that type, for the walker to report
        if (plans.typePlan(type)) return { element: c, type };
      }
    }
    return undefined;
  }

  // ---- XML rules

  function prefixOf(uri: string): string {
    if (!uri) return '';
    if (uri === FHIR_NS) return 'f:';
    if (uri === XHTML_NS) return 'h:';
    return '?:';
  }

  function undefinedAttribute(attr: XmlAttribute, tag: XmlTag, type: string, frame: FrameBase): void {
    if (attr.uri === XMLNS_NS) return;
    if (attr.uri === XSI_NS && attr.local === 'schemaLocation' && (options.allowXsiLocation || tag.uri !== FHIR_NS)) return;
    issue('error', 'Undefined_attribute__on__for_type__properties__', [attr.name, tag.name, type], xpathOf(frame), tagPos);
  }

  /** The element is in order after its previous sibling (HL7's Validation_VAL_Profile_OutOfOrder, against the base definition). */
  function checkOrder(parent: ObjectFrame | PrimitiveFrame, el: ElementPlan, local: string, frame: FrameBase): void {
    const index = parent.children ? orderOf(parent.children, el) : -1;
    if (index < 0) return;
    if (index < parent.lastIndex) {
      issue('error', 'Validation_VAL_Profile_OutOfOrder', [parent.orderedBy, local, parent.lastName], fhirPathOf(frame), tagPos);
    }
    parent.lastIndex = index;
    parent.lastName = local;
  }

  /** The location fields of a child frame: its XPath step under `xParent`, its FHIRPath step under `fParent`. */
  function steps(xParent: FrameBase | undefined, opened: OpenedTag, fParent: FrameBase | undefined, fStep: string, fIndex: number): FrameBase {
    const { tag, scope } = opened;
    return { xParent, xStep: prefixOf(tag.uri) + tag.local, fParent, fStep, fIndex, scope, qname: tag.name, pos: tagPos, hasContent: false };
  }

  function skip(parent: FrameBase, opened: OpenedTag): void {
    stack.push({ kind: 'skip', ...steps(parent, opened, parent, '', -1), hasContent: true });
  }

  // ---- opening elements

  function openRoot(opened: OpenedTag): void {
    const { tag } = opened;
    const name = tag.local;
    doc.rootIsFhir = tag.uri === FHIR_NS;
    if (!tag.uri) fatal('This__cannot_be_parsed_as_a_FHIR_object_no_namespace', [name], tagPos);
    if (tag.uri !== FHIR_NS) fatal('This_does_not_appear_to_be_a_FHIR_resource_unknown_namespacename_', [tag.uri, name], tagPos);
    if (!plans.isResourceType(name)) fatal('This_does_not_appear_to_be_a_FHIR_resource_unknown_name_', [name], tagPos);
    const frame = openResource(tag, { ...steps(undefined, opened, undefined, name, -1), xStep: '/' + prefixOf(tag.uri) + name });
    root = frame.obj;
  }

  function openResource(tag: XmlTag, at: FrameBase): ObjectFrame {
    const { obj, loc } = newObject(tagPos);
    obj.resourceType = tag.local;
    const plan = plans.typePlan(tag.local);
    const frame: ObjectFrame = {
      kind: 'object', obj, loc, children: plan?.root?.ownChildren, type: tag.local, orderedBy: plan?.label ?? '',
      ...at, hasContent: false, lastIndex: -1, lastName: '', arrays: undefined, companions: false,
    };
    readAttributes(frame, tag);
    stack.push(frame);
    return frame;
  }

  /** Attributes of a complex element or resource: those its definition represents as XML attributes (id, url). */
  function readAttributes(frame: ObjectFrame, tag: XmlTag): void {
    for (const attr of tag.attributes) {
      if (attr.uri === XMLNS_NS) continue;
      frame.hasContent = true;
      const hit = !attr.prefix ? frame.children?.byJsonName.get(attr.local) : undefined;
      if (hit && hit.element.xmlAttr) {
        frame.obj[attr.local] = attr.value;
        frame.loc.props[attr.local] = tagPos;
      } else {
        undefinedAttribute(attr, tag, frame.type, frame);
      }
    }
  }

  function openChild(parent: ObjectFrame | PrimitiveFrame, opened: OpenedTag): void {
    const { tag } = opened;
    parent.hasContent = true;
    const local = tag.local;
    // a primitive holds extensions only (its id and value are attributes)
    const hit = childElement(parent.children, local);
    if (!hit || (parent.kind === 'primitive' && hit.element.name !== 'extension')) {
      const at = xpathOf(parent);
      issue('error', 'Undefined_element_', [local, at], at, tagPos);
      skip(parent, opened);
      return;
    }
    const { element: el, type: choiceType } = hit;
    const type = choiceType ?? el.types[0]?.code;
    const repeating = el.baseMax > 1;
    const target: ObjectFrame = parent.kind === 'object' ? parent : companionOf(parent);
    const slot = slotFor(target, local, repeating, tagPos);
    const at = steps(parent, opened, target, choiceType ? `${el.name}.ofType(${choiceType})` : local, slot.array && repeating ? slot.index : -1);
    checkOrder(parent, el, local, at);
    if (type === 'xhtml') {
      // The tag's start as the readers count it is one past the `<` when a CRLF ends the tag name
      // (saxes counts the pair as one character; the scanner reproduces its positions): the verbatim
      // XHTML must begin at the `<` itself.
      const start = text.charCodeAt(tagStart) === 0x3c ? tagStart : text.lastIndexOf('<', tagStart);
      stack.push({ kind: 'xhtml', slot, start, addNamespace: tag.declaresDefault || tag.prefix ? undefined : tag.uri, nested: 0, ...at, hasContent: true });
      return;
    }
    if (tag.uri !== FHIR_NS) issue('error', 'Wrong_namespace__expected_', [FHIR_NS], xpathOf(at), tagPos);
    if (type === 'Resource' || (type !== undefined && type !== 'Element' && type !== 'BackboneElement' && !el.ownChildren && plans.isResourceType(type))) {
      const holder: HolderFrame = { kind: 'holder', slot, filled: false, ...at, hasContent: false };
      stack.push(holder);
      for (const attr of tag.attributes) undefinedAttribute(attr, tag, type, holder);
      return;
    }
    if (type !== undefined && PRIMITIVE_TYPES.has(type)) {
      openPrimitive(tag, slot, type, at);
      return;
    }
    const { obj, loc } = newObject(tagPos);
    put(slot, obj);
    const { children, orderedBy } = childrenOf(el, type);
    const frame: ObjectFrame = { kind: 'object', obj, loc, children, type: type ?? el.path, orderedBy, ...at, hasContent: false, lastIndex: -1, lastName: '', arrays: undefined, companions: false };
    readAttributes(frame, tag);
    stack.push(frame);
  }

  /** A primitive's companion frame (its extensions attach there; its location is the primitive's), made on first need. */
  function companionOf(p: PrimitiveFrame): ObjectFrame {
    if (!p.companion) {
      const { obj, loc } = newObject(p.pos);
      p.companion = {
        kind: 'object', obj, loc, children: p.children, type: p.type, orderedBy: p.orderedBy,
        xParent: p.xParent, xStep: p.xStep, fParent: p.fParent, fStep: p.fStep, fIndex: p.fIndex, scope: p.scope,
        qname: p.qname, pos: p.pos, hasContent: true, lastIndex: -1, lastName: '', arrays: undefined, companions: false,
      };
    }
    return p.companion;
  }

  function openPrimitive(tag: XmlTag, slot: Slot, type: string, at: FrameBase): void {
    const frame: PrimitiveFrame = {
      kind: 'primitive', slot, companion: undefined, type, children: plans.primitiveCompanionChildren(type), orderedBy: plans.typePlan(type)?.label ?? '',
      ...at, hasContent: false, lastIndex: -1, lastName: '',
    };
    let value: string | undefined;
    for (const attr of tag.attributes) {
      if (attr.uri === XMLNS_NS) continue;
      frame.hasContent = true;
      if (!attr.prefix && attr.local === 'value') value = attr.value;
      else if (!attr.prefix && attr.local === 'id') {
        const companion = companionOf(frame);
        companion.obj.id = attr.value;
        companion.loc.props.id = tagPos;
      } else undefinedAttribute(attr, tag, type, frame);
    }
    if (value !== undefined) putPrimitive(slot, type, value);
    stack.push(frame);
  }

  function openInHolder(holder: HolderFrame, opened: OpenedTag): void {
    const { tag } = opened;
    holder.hasContent = true;
    if (holder.filled) {
      // HL7 reads the first element of a resource holder only
      skip(holder, opened);
      return;
    }
    holder.filled = true;
    if (tag.uri !== FHIR_NS || !plans.isResourceType(tag.local)) {
      issue('error', 'Contained_resource_does_not_appear_to_be_a_FHIR_resource_unknown_name_', [tag.local], xpathOf(holder), tagPos);
      skip(holder, opened);
      return;
    }
    // HL7 starts the XPath of a nested resource again from its name; its FHIRPath is the holder's
    const frame = openResource(tag, { ...steps(undefined, opened, holder, '', -1), xStep: tag.local });
    put(holder.slot, frame.obj);
  }

  // ---- closing elements

  function close(frame: Frame, end: number): void {
    switch (frame.kind) {
      case 'object':
      case 'holder':
        if (!frame.hasContent) issue('error', 'Element_must_have_some_content', [], xpathOf(frame), frame.pos);
        return;
      case 'primitive': {
        if (!frame.hasContent) issue('error', 'Element_must_have_some_content', [], xpathOf(frame), frame.pos);
        const { array, parent, key, index } = frame.slot;
        const hasValue = array ? array.arr[index] !== null : parent.obj[key] !== undefined;
        // a value-less primitive keeps its (possibly empty) companion, so the walker sees the element
        if (frame.companion || !hasValue) putCompanion(frame.slot, companionOf(frame).obj, frame.pos);
        return;
      }
      case 'xhtml': {
        let xhtml = text.slice(frame.start, end);
        if (frame.addNamespace) {
          const nameEnd = 1 + frame.qname.length;
          xhtml = xhtml.slice(0, nameEnd) + ` xmlns="${frame.addNamespace}"` + xhtml.slice(nameEnd);
        }
        put(frame.slot, xhtml);
        return;
      }
      case 'skip':
        return;
    }
  }

  // ---- events (from the fast scanner or from saxes)

  function onOpenTag(name: string, attributes: TagAttributes): void {
    const top = stack[stack.length - 1];
    if (stack.length >= maxDepth) fatal('XML_TOO_DEEP', [`The XML is nested too deeply (more than ${maxDepth} levels)`], tagPos);
    if (top?.kind === 'xhtml') {
      // the narrative is kept as text: its elements are only counted
      top.nested++;
      return;
    }
    const opened = readTag(name, attributes, top?.scope ?? ROOT_SCOPE);
    if (!top) {
      doc.sawRoot = true;
      openRoot(opened);
      return;
    }
    switch (top.kind) {
      case 'object':
      case 'primitive':
        openChild(top, opened);
        return;
      case 'holder':
        openInHolder(top, opened);
        return;
      case 'skip':
        skip(top, opened);
        return;
    }
  }

  /** An element closes; `end` is the index past its closing `>`. */
  function onCloseTag(end: number): void {
    const top = stack[stack.length - 1];
    if (!top) return;
    if (top.kind === 'xhtml' && top.nested > 0) {
      top.nested--;
      return;
    }
    stack.pop();
    close(top, end);
  }

  function onText(t: string): void {
    const top = stack[stack.length - 1];
    if (!top || top.kind === 'xhtml' || top.kind === 'skip' || isBlank(t)) return;
    top.hasContent = true;
    issue('error', 'Text_should_not_be_present', [singleLine(t.trim())], xpathOf(top), here());
  }

  if (!parser) {
    try {
      const read = scanXml(text, {
        openTag(name, start, at, attributes) {
          tagStart = start;
          tagPos = at;
          onOpenTag(name, attributes);
        },
        closeTag: onCloseTag,
        text: onText,
      });
      return read ? result(root) : undefined;
    } catch (e) {
      if (e instanceof FatalXml) return result(undefined);
      // anything else (an issue only saxes can locate) is read again with saxes, which answers as before
      return undefined;
    }
  }

  parser.on('doctype', () => fatal('XML_PARSE_ERROR', ['DOCTYPE is disallowed when the feature "http://apache.org/xml/features/disallow-doctype-decl" set to true.']));
  parser.on('opentagstart', (tag) => {
    const end = parser.position;
    tagStart = end - tag.name.length - 2;
    const col = parser.columnIndex - tag.name.length - 1;
    tagPos = col >= 1 ? { line: parser.line, col } : { line: parser.line - 1, col: 1 };
  });
  parser.on('opentag', (raw) => {
    const names: string[] = [];
    const values: string[] = [];
    for (const [name, value] of Object.entries(raw.attributes)) {
      // without namespace processing saxes gives each attribute's value as a string
      names.push(name);
      values.push(value);
    }
    onOpenTag(raw.name, { names, values, count: names.length });
  });
  parser.on('closetag', () => {
    onCloseTag(parser.position);
  });
  parser.on('text', onText);
  parser.on('cdata', () => {
    const top = stack[stack.length - 1];
    if (!top || top.kind === 'xhtml' || top.kind === 'skip') return;
    issue('error', 'CDATA_is_not_allowed', [], xpathOf(top), here());
  });
  parser.on('processinginstruction', () => {
    const top = stack[stack.length - 1];
    if (!top) {
      documentInstructions.push(here());
      return;
    }
    if (top.kind === 'xhtml' || top.kind === 'skip') return;
    issue('error', 'Node_type__is_not_allowed', ['7'], xpathOf(top), here());
  });
  parser.on('xmldecl', (decl) => {
    if (decl.encoding !== undefined && decl.encoding.toUpperCase() !== 'UTF-8') {
      issue('error', 'xml_stated_encoding_invalid', [], '(document)', here());
    }
  });

  try {
    parser.write(text).close();
  } catch (e) {
    if (e instanceof FatalXml) return result(undefined);
    if (!(e instanceof Error)) throw e;
    issue('fatal', 'XML_PARSE_ERROR', [xercesWording(e.message, text, parser.position)], '(xml)', here());
    return result(undefined);
  }
  if (!doc.sawRoot) {
    issue('fatal', 'XML_PARSE_ERROR', ['Premature end of file.'], '(xml)', here());
    return result(undefined);
  }
  if (doc.rootIsFhir) for (const at of documentInstructions) issue('error', 'No_processing_instructions_allowed_in_resources', [], '(document)', at);
  return result(root);
}

/** saxes' messages in the words of the Java XML parser the HL7 validator reports (the common ones). */
function xercesWording(message: string, text: string, position: number): string {
  const m = message.replace(/^\d+:\d+: / /* linear: anchored digits */, '');
  if (m.startsWith('undefined entity')) {
    const amp = text.lastIndexOf('&', position);
    const name = amp >= 0 && position - amp < 200 ? text.slice(amp + 1, position).replace(/;.*$/s /* linear: one scan */, '') : '';
    return `The entity "${name}" was referenced, but not declared.`;
  }
  if (m.startsWith('unclosed tag')) return 'XML document structures must start and end within the same entity.';
  if (m.startsWith('documents may contain only one root') || m.startsWith('text data outside of root node')) return 'The markup in the document following the root element must be well-formed.';
  if (m.startsWith('document must contain a root element')) return 'Premature end of file.';
  return m;
}

/**
 * The first quoted value after `=` (an attribute value, or text that looks like one) longer than
 * `limit`, found with the native indexOf: linear, each character is passed once.
 */
function longQuotedRun(text: string, limit: number): { length: number; at: Position } | undefined {
  if (text.length <= limit) return undefined;
  let i = 0;
  for (;;) {
    const eq = text.indexOf('=', i);
    if (eq < 0) return undefined;
    let q = eq + 1;
    while (q < text.length && (text.charCodeAt(q) === 32 || text.charCodeAt(q) === 9 || text.charCodeAt(q) === 10 || text.charCodeAt(q) === 13)) q++;
    const quote = text[q];
    if (quote !== '"' && quote !== "'") {
      i = eq + 1;
      continue;
    }
    const end = text.indexOf(quote, q + 1);
    const length = (end < 0 ? text.length : end) - q - 1;
    if (length > limit) {
      let line = 1;
      let lineStart = 0;
      for (let n = text.indexOf('\n'); n >= 0 && n < q; n = text.indexOf('\n', n + 1)) {
        line++;
        lineStart = n + 1;
      }
      return { length, at: { line, col: q - lineStart + 1 } };
    }
    if (end < 0) return undefined;
    i = end + 1;
  }
}

/** `p:local` → 'p'; `local` → ''. */
function prefixOfName(name: string): string {
  const colon = name.indexOf(':');
  return colon < 0 ? '' : name.slice(0, colon);
}

/** `p:local` → 'local'; `local` → 'local'. */
function localOfName(name: string): string {
  const colon = name.indexOf(':');
  return colon < 0 ? name : name.slice(colon + 1);
}

/** The position of each child in its definition's order, per child index (made once per definition, not searched per element). */
const childOrders = new WeakMap<ChildIndex, Map<ElementPlan, number>>();

function orderOf(children: ChildIndex, el: ElementPlan): number {
  let order = childOrders.get(children);
  if (!order) {
    order = new Map();
    for (let i = 0; i < children.list.length; i++) {
      const child = children.list[i];
      if (child && !order.has(child)) order.set(child, i);
    }
    childOrders.set(children, order);
  }
  return order.get(el) ?? -1;
}

/** A number as JSON writes it (with the HL7 lexer's leniency: the checks judge `007` or `1.` on the text). */
function isNumberText(v: string): boolean {
  if (v.length === 0 || v.length > 100) return false;
  let digits = false;
  for (let i = 0; i < v.length; i++) {
    const c = v.charCodeAt(i);
    if (c >= 48 && c <= 57) digits = true;
    else if (c !== 46 && c !== 43 && c !== 45 && c !== 101 && c !== 69) return false;
  }
  return digits && !Number.isNaN(Number(v));
}

function isBlank(s: string): boolean {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c !== 32 && c !== 9 && c !== 10 && c !== 13) return false;
  }
  return true;
}

function singleLine(s: string): string {
  let out = '';
  let space = false;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c === 10 || c === 13 || c === 9) {
      if (!space) out += ' ';
      space = true;
    } else {
      out += s.charAt(i);
      space = false;
    }
  }
  return out;
}
