/**
 * Snapshot generation for StructureDefinitions that carry only a differential (the HL7
 * test-suite profiles mostly; IG packages ship snapshots).
 *
 * The standard algorithm, in the shape the HL7 Java generator produces:
 * - start from a copy of the base definition's snapshot (generating the base's first if needed);
 * - walk the differential in order and merge each element onto the snapshot element with the
 *   same id (constraints/mappings add up; cardinality, types, binding, fixed/pattern, texts override);
 * - an element the snapshot does not have yet is made on the way:
 *   - a slice (`path:name`, re-slice `path:name/sub`) is a copy of the sliced element and its
 *     children, inserted after the last slice of that element;
 *   - a renamed choice (`valueQuantity`) becomes the slice `value[x]:valueQuantity` of the
 *     type-sliced `value[x]`;
 *   - children below a datatype (`Patient.identifier.system`) are unfolded from the type's (or
 *     the type profile's) snapshot, below a contentReference from the referenced element.
 * Problems in the differential are collected as messages, never thrown.
 */
import type { CanonicalResource } from '../../ports/conformance-resources.js';
import { isArray, isObject } from '../json/json-value.js';

/** An ElementDefinition as JSON (the generator reads and writes only what it needs; the rest is carried as is). */
export interface ElementDefinition {
  id?: string; path: string; sliceName?: string;
  type?: { code: string; profile?: string[] }[];
  slicing?: { discriminator?: unknown; rules?: string; ordered?: boolean; [key: string]: unknown };
  binding?: Record<string, unknown>; constraint?: { key?: string; source?: string; [key: string]: unknown }[];
  [key: string]: unknown;
}

export interface StructureDefinitionSource {
  structureDefinition(canonical: string): CanonicalResource | undefined;
}

export interface SnapshotMessage {
  severity: 'error' | 'warning' | 'information';
  message: string;
  /** The differential element concerned (its id, else its path). */
  element?: string;
}

export interface SnapshotResult {
  /** A shallow copy of the input with `snapshot.element` filled in (the input is not modified). */
  structureDefinition: CanonicalResource;
  elements: ElementDefinition[];
  /** Problems in the differential (element not found, bad slicing ...); never thrown. */
  messages: SnapshotMessage[];
}

export interface SnapshotGeneratorOptions {
  /** Regenerate even when the StructureDefinition already has a snapshot. Default false. */
  regenerate?: boolean;
  /**
   * How a renamed choice (`valueQuantity`) is rendered. `constrain` (default, the current HL7
   * generator): `value[x]` itself is narrowed to the type. `slice` (generators up to ~2020,
   * as in the snapshots US Core 3.1.1 ships): `value[x]` is narrowed and type-sliced and the
   * constraints go to the slice `value[x]:valueQuantity` (except inside another slice).
   */
  choiceRenames?: 'constrain' | 'slice';
  /**
   * Where a new slice of a backbone element takes its children from. `sliced` (default, the
   * current HL7 generator, as the HL7 validator's own test outcomes show): the sliced element's
   * children as the differential has constrained them so far, so what the profile says of them
   * holds in every slice. `base` (generators up to ~2020, as US Core 3.1.1's snapshots): the
   * children the sliced element had in the base.
   */
  sliceChildren?: 'sliced' | 'base';
}

const CORE_SD = 'http://hl7.org/fhir/StructureDefinition/';

const BINDABLE_TYPES = new Set(['code', 'Coding', 'CodeableConcept', 'CodeableReference', 'Quantity', 'string', 'uri', 'canonical']);

/** Properties merged specially (or never copied) rather than simply overridden. */
const NOT_OVERRIDDEN = new Set(['id', 'path', 'base', 'constraint', 'mapping', 'condition', 'alias', 'slicing', 'binding', 'extension', 'type', 'sliceName', 'isModifier', 'isModifierReason']);

interface SliceSegment {
  name: string;
  slice?: string;
}

export class SnapshotGenerator {
  /** Generated SDs by URL, so each base is generated once per generator. */
  private readonly generated = new Map<string, CanonicalResource>();
  private readonly inProgress = new Set<string>();

  constructor(private readonly source: StructureDefinitionSource) {}

  /**
   * The StructureDefinition with a snapshot: as given when it already has one (unless
   * `regenerate`), else generated from its differential.
   */
  generate(sd: CanonicalResource, options: SnapshotGeneratorOptions = {}): SnapshotResult {
    const existing = snapshotOf(sd);
    if (existing && !options.regenerate) return { structureDefinition: sd, elements: existing, messages: [] };
    const messages: SnapshotMessage[] = [];
    const url = typeof sd.url === 'string' ? sd.url : undefined;
    if (url && this.inProgress.has(url)) {
      messages.push({ severity: 'error', message: `circular baseDefinition chain at ${url}` });
      return { structureDefinition: sd, elements: [], messages };
    }
    if (url) this.inProgress.add(url);
    try {
      const elements = new Build(this, sd, messages, options.choiceRenames ?? 'constrain', options.sliceChildren ?? 'sliced').run();
      const structureDefinition: CanonicalResource = { ...sd, snapshot: { element: elements } };
      if (url && elements.length) this.generated.set(url, structureDefinition);
      return { structureDefinition, elements, messages };
    } finally {
      if (url) this.inProgress.delete(url);
    }
  }

  /** A StructureDefinition with a snapshot by canonical, generating it when only a differential exists. */
  withSnapshot(canonical: string, messages?: SnapshotMessage[]): CanonicalResource | undefined {
    const done = this.generated.get(canonical);
    if (done) return done;
    const sd = this.source.structureDefinition(canonical);
    if (!sd) return undefined;
    if (snapshotOf(sd)) return sd;
    const result = this.generate(sd);
    messages?.push(...result.messages.map((m) => ({ ...m, message: `${canonical}: ${m.message}` })));
    return result.elements.length ? result.structureDefinition : undefined;
  }
}

/**
 * An element the generator can work with: an object with a path (and an id, if any, as text). The
 * rest of its shape (type, slicing, binding ...) is read as the definition loader does, trusting
 * the package's StructureDefinitions.
 */
function isElementDefinition(v: unknown): v is ElementDefinition {
  return isObject(v) && typeof v.path === 'string' && (v.id === undefined || typeof v.id === 'string');
}

/** The `element` list of a snapshot or differential, as read from the StructureDefinition. */
function elementList(holder: unknown): readonly unknown[] {
  const els = isObject(holder) ? holder.element : undefined;
  return isArray(els) ? els : [];
}

/** The snapshot's elements when every one is usable: the StructureDefinition's own list, narrowed, not copied. */
function snapshotOf(sd: CanonicalResource): ElementDefinition[] | undefined {
  const els = elementList(sd.snapshot);
  return els.length && isElementList(els) ? els : undefined;
}

function isElementList(els: readonly unknown[]): els is ElementDefinition[] {
  return els.every(isElementDefinition);
}

/** The differential's elements that have a path (applyDiff reports the others). */
function differentialOf(sd: CanonicalResource): ElementDefinition[] {
  return elementList(sd.differential).filter(isElementDefinition);
}

/** An element's id; an element without one (never in a well-formed snapshot) is known by its path. */
function idOf(el: ElementDefinition): string {
  return el.id ?? el.path;
}

function clone<T>(value: T): T {
  return structuredClone(value);
}

/** One generation run: the working snapshot list and its helpers. */
class Build {
  private els: ElementDefinition[] = [];
  /** The base snapshot before this profile's differential: new slices copy their children from it. */
  private baseById = new Map<string, number>();
  private baseEls: ElementDefinition[] = [];
  /** Legacy choice slices: the [x] element that also takes the differential's cardinality. */
  private alsoMergeOnto: number | undefined;
  /** Slice context for differentials without ids: path → current slice name. */
  private readonly activeSlices = new Map<string, string>();
  private readonly url: string;

  constructor(
    private readonly generator: SnapshotGenerator,
    private readonly sd: CanonicalResource,
    private readonly messages: SnapshotMessage[],
    private readonly choiceRenames: 'constrain' | 'slice',
    private readonly sliceChildren: 'sliced' | 'base',
  ) {
    this.url = typeof sd.url === 'string' ? sd.url : '(no url)';
  }

  run(): ElementDefinition[] {
    const baseUrl = typeof this.sd.baseDefinition === 'string' ? this.sd.baseDefinition : undefined;
    if (!baseUrl) {
      // A base type itself (Element, Resource) has no base: its differential is its snapshot.
      this.els = differentialOf(this.sd).map((e) => ({ ...clone(e), id: e.id ?? e.path }));
      return this.els;
    }
    const base = this.generator.withSnapshot(baseUrl, this.messages);
    if (!base) {
      this.error(`cannot find the base definition ${baseUrl} (or generate its snapshot)`);
      return [];
    }
    this.els = clone(snapshotOf(base) ?? []);
    this.rebaseRoot(base);
    this.baseEls = clone(this.els);
    this.baseEls.forEach((e, i) => this.baseById.set(idOf(e), i));
    for (const diff of elementList(this.sd.differential)) {
      if (isElementDefinition(diff)) this.applyDiff(diff);
      else this.error('differential element without a path', isObject(diff) && typeof diff.id === 'string' ? diff.id : undefined);
    }
    this.fixExtensionUrl(baseUrl);
    return this.els;
  }

  /**
   * An extension derived from another extension is its own extension: its `Extension.url` is fixed
   * to its own url, not its base's (as HL7's ProfileUtilities sets it), unless the differential
   * fixes it otherwise. Sub-extension urls (`Extension.extension:x.url`) keep theirs.
   */
  private fixExtensionUrl(baseUrl: string): void {
    if (this.sd.type !== 'Extension' || typeof this.sd.url !== 'string' || baseUrl === 'http://hl7.org/fhir/StructureDefinition/Extension') return;
    const urlElement = this.els.find((e) => e.id === 'Extension.url' || (e.id === undefined && e.path === 'Extension.url'));
    if (!urlElement) return;
    const diffFixes = differentialOf(this.sd).some((d) => (d.id ?? d.path) === 'Extension.url' && d.fixedUri !== undefined);
    if (!diffFixes) urlElement.fixedUri = this.sd.url;
  }

  // ---- root ----------------------------------------------------------------------------------

  /** A specialization (new type) renames the base's root, e.g. DomainResource → MyLogicalModel. */
  private rebaseRoot(base: CanonicalResource): void {
    const baseRoot = this.els[0]?.path.split('.')[0];
    const firstDiff = differentialOf(this.sd)[0]?.path.split('.')[0];
    const type = typeof this.sd.type === 'string' && !this.sd.type.includes('/') ? this.sd.type : firstDiff;
    if (!baseRoot || !type || type === baseRoot) return;
    if (this.sd.derivation === 'constraint') {
      this.warn(`type ${type} differs from the base definition's ${baseRoot} (${String(base.url)})`);
      return;
    }
    for (const e of this.els) {
      e.path = type + e.path.slice(baseRoot.length);
      if (e.id) e.id = type + e.id.slice(baseRoot.length);
    }
  }

  // ---- differential --------------------------------------------------------------------------

  private applyDiff(diff: ElementDefinition): void {
    const label = diff.id ?? diff.path;
    if (typeof diff.path !== 'string' || diff.path === '') {
      this.error('differential element without a path', label);
      return;
    }
    const segments = this.segmentsOf(diff);
    this.alsoMergeOnto = undefined;
    const index = this.locate(segments, diff, label);
    if (index === undefined) return;
    this.merge(this.at(index), diff);
    if (this.alsoMergeOnto !== undefined) {
      const choice = this.at(this.alsoMergeOnto);
      for (const key of ['min', 'max'] as const) if (diff[key] !== undefined) choice[key] = diff[key];
    }
  }

  /** Path segments with their slice names, from the id when it is usable, else from slice context. */
  private segmentsOf(diff: ElementDefinition): SliceSegment[] {
    const pathParts = diff.path.split('.');
    let segments: SliceSegment[] | undefined;
    if (typeof diff.id === 'string') {
      const idParts = splitId(diff.id);
      if (idParts.length === pathParts.length) {
        segments = idParts.map((p) => {
          const colon = p.indexOf(':');
          return colon === -1 ? { name: p } : { name: p.slice(0, colon), slice: p.slice(colon + 1) };
        });
      }
    }
    if (!segments) {
      segments = pathParts.map((name, i) => {
        const prefix = pathParts.slice(0, i + 1).join('.');
        const slice = i < pathParts.length - 1 ? this.activeSlices.get(prefix) : undefined;
        return slice ? { name, slice } : { name };
      });
    }
    const last = segments[segments.length - 1];
    if (last && typeof diff.sliceName === 'string' && diff.sliceName && !last.slice) last.slice = diff.sliceName;
    // Keep the slice context for later id-less elements.
    for (const key of [...this.activeSlices.keys()]) if (key.startsWith(`${diff.path}.`)) this.activeSlices.delete(key);
    if (last?.slice) this.activeSlices.set(diff.path, last.slice);
    else this.activeSlices.delete(diff.path);
    return segments;
  }

  /** Finds (or makes) the snapshot element for the segments; undefined after reporting why not. */
  private locate(segments: SliceSegment[], diff: ElementDefinition, label: string): number | undefined {
    const root = this.els[0];
    const first = segments[0];
    if (!root || !first || first.name !== root.path) {
      this.error(`element ${label} is not inside ${root?.path ?? 'the base definition'}`, label);
      return undefined;
    }
    let index = 0;
    // Legacy choice slices were never made inside a backbone slice (see choiceRenames).
    let insideBackboneSlice = false;
    if (first.slice) this.warn(`a slice name on the root element is ignored`, label);
    for (const [i, seg] of segments.entries()) {
      if (i === 0) continue;
      const parentId = idOf(this.at(index));
      let child = this.findChild(index, seg.name);
      const slice = seg.slice;
      if (child === undefined) {
        // A renamed choice: valueQuantity → value[x]:valueQuantity.
        const choice = this.findRenamedChoice(index, seg.name);
        if (choice && choice.typeCode === undefined) {
          child = choice.index;
        } else if (choice && choice.typeCode !== undefined) {
          const typeCode = choice.typeCode;
          // An existing slice value[x]:valueQuantity (older generators made them) is used as is;
          // otherwise the rename constrains value[x] itself, narrowed to the named type.
          const existingSlice = this.indexOfId(`${idOf(this.at(choice.index))}:${seg.name}`);
          if (existingSlice !== -1) {
            index = existingSlice;
            continue;
          }
          this.narrowChoice(choice.index, typeCode);
          child = choice.index;
          if (this.choiceRenames === 'slice' && !insideBackboneSlice) {
            if (!this.at(child).slicing) this.addTypeSlicing(child);
            const sliceIndex = this.findOrCreateSlice(child, seg.name, diff, label, false);
            if (sliceIndex === undefined) return undefined;
            const sliceEl = this.at(sliceIndex);
            sliceEl.type = (sliceEl.type ?? []).filter((t) => t.code === typeCode);
            index = sliceIndex;
            if (i === segments.length - 1) this.alsoMergeOnto = this.indexOfId(idOf(this.at(child)));
            continue;
          }
        }
      }
      if (child === undefined) {
        this.error(`element ${label}: ${parentId} has no child ${seg.name}`, label);
        return undefined;
      }
      index = child;
      if (slice) {
        const sliceIndex = this.findOrCreateSlice(index, slice, diff, label, i === segments.length - 1);
        if (sliceIndex === undefined) return undefined;
        index = sliceIndex;
        if (!this.isUnfoldableType(this.at(index))) insideBackboneSlice = true;
      }
    }
    return index;
  }

  private indexOfId(id: string): number {
    return this.els.findIndex((e) => e.id === id);
  }

  /** The working element at an index the build found or made itself (locate, indexOfId, a splice). */
  private at(index: number): ElementDefinition {
    const el = this.els[index];
    if (el === undefined) throw new Error(`snapshot of ${this.url}: no working element at ${index}`);
    return el;
  }

  /** The child `name` of the element at `parent`, unfolding the parent's type first if needed. */
  private findChild(parent: number, name: string): number | undefined {
    const parentId = idOf(this.at(parent));
    let found = this.indexOfId(`${parentId}.${name}`);
    if (found !== -1) return found;
    if (this.hasChildren(parent)) return undefined;
    if (!this.unfold(parent, name)) return undefined;
    found = this.indexOfId(`${parentId}.${name}`);
    return found === -1 ? undefined : found;
  }

  private hasChildren(index: number): boolean {
    const id = idOf(this.at(index));
    const next = this.els[index + 1];
    return next !== undefined && typeof next.id === 'string' && next.id.startsWith(`${id}.`);
  }

  private findRenamedChoice(parent: number, name: string): { index: number; typeCode: string | undefined } | undefined {
    const parentId = idOf(this.at(parent));
    // `Library.subject` for `Library.subject[x]` (no type named): the choice element itself.
    const plain = this.indexOfId(`${parentId}.${name}[x]`);
    if (plain !== -1) return { index: plain, typeCode: undefined };
    for (let cut = name.length - 1; cut > 0; cut--) {
      const ch = name.charAt(cut);
      if (ch !== ch.toUpperCase() || ch === ch.toLowerCase()) continue;
      const base = name.slice(0, cut);
      let idx = this.indexOfId(`${parentId}.${base}[x]`);
      if (idx === -1 && !this.hasChildren(parent) && this.unfold(parent, `${base}[x]`)) idx = this.indexOfId(`${parentId}.${base}[x]`);
      if (idx === -1) continue;
      const suffix = name.slice(cut);
      const choiceEl = this.at(idx);
      const types = this.narrowedChoices.get(idOf(choiceEl))?.original ?? choiceEl.type ?? [];
      const type = types.find((t) => typeSuffix(t.code) === suffix);
      if (type) return { index: idx, typeCode: type.code };
    }
    return undefined;
  }

  // ---- slices --------------------------------------------------------------------------------

  /** The slice `sliceName` of the element at `sliced`, created after the existing slices if new. */
  private findOrCreateSlice(sliced: number, sliceName: string, diff: ElementDefinition, label: string, isTarget: boolean): number | undefined {
    const slicedEl = this.at(sliced);
    const slicedId = idOf(slicedEl);
    const existing = this.indexOfId(`${slicedId}:${sliceName}`);
    if (existing !== -1) return existing;
    // Re-slice a/b: the sliced element is the slice a.
    const slash = sliceName.lastIndexOf('/');
    let source = sliced;
    if (slash !== -1) {
      const parentSlice = this.findOrCreateSlice(sliced, sliceName.slice(0, slash), diff, label, false);
      if (parentSlice === undefined) return undefined;
      source = parentSlice;
    }
    const sourceEl = this.at(source);
    if (!sourceEl.slicing && slash === -1 && isExtensionElement(sourceEl)) {
      // Extensions are always sliced by url, declared or not.
      sourceEl.slicing = { discriminator: [{ type: 'value', path: 'url' }], ordered: false, rules: 'open' };
    }
    if (!sourceEl.slicing && !(isTarget && diff.slicing) && !isChoice(sourceEl) && slash === -1) {
      this.warn(`slice ${sliceName} on ${slicedId}, which has no slicing defined`, label);
    }
    if (isChoice(sourceEl) && !sourceEl.slicing) this.addTypeSlicing(source);
    const sourceId = idOf(sourceEl);
    const newId = `${slicedId}:${sliceName}`;
    const top = clone(sourceEl);
    delete top.slicing;
    top.id = newId;
    top.sliceName = sliceName;
    const copies: ElementDefinition[] = [top];
    // A datatype slice gets its children unfolded from the type when the differential goes into
    // it; a backbone slice cannot, so it takes the children the sliced element has so far (the
    // base's, with what this differential already said of them: sliceChildren `sliced`) or had in
    // the base (`base`). A re-slice starts as a copy of its parent slice, children and constraints included.
    if (slash !== -1 || !this.isUnfoldableType(sourceEl)) {
      const fromBase = slash === -1 && this.sliceChildren === 'base' ? this.baseById.get(sourceId) : undefined;
      const list = fromBase === undefined ? this.els : this.baseEls;
      const start = fromBase === undefined ? source : fromBase;
      for (let j = start + 1; j < list.length; j++) {
        const e = list[j];
        if (e === undefined || !idOf(e).startsWith(`${sourceId}.`)) break;
        const c = clone(e);
        c.id = newId + idOf(e).slice(sourceId.length);
        copies.push(c);
      }
    }
    const at = this.endOfGroup(source, slash === -1 ? `${slicedId}` : sourceId);
    this.els.splice(at, 0, ...copies);
    return at;
  }

  /** Original type lists of [x] elements narrowed by renamed choices, and the codes named so far. */
  private readonly narrowedChoices = new Map<string, { original: { code: string }[]; named: Set<string> }>();

  private narrowChoice(choiceIndex: number, typeCode: string): void {
    const el = this.at(choiceIndex);
    const id = idOf(el);
    let state = this.narrowedChoices.get(id);
    if (!state) this.narrowedChoices.set(id, (state = { original: clone(el.type ?? []), named: new Set() }));
    state.named.add(typeCode);
    el.type = state.original.filter((t) => state.named.has(t.code));
  }

  private addTypeSlicing(index: number): void {
    this.at(index).slicing = { discriminator: [{ type: 'type', path: '$this' }], ordered: false, rules: 'closed' };
  }

  /** Index just after the element at `start` and everything under it (children, slices, their children). */
  private endOfGroup(start: number, groupId: string): number {
    let j = start + 1;
    for (let el = this.els[j]; el !== undefined; el = this.els[++j]) {
      const id = idOf(el);
      const rest = id.startsWith(groupId) ? id.slice(groupId.length) : undefined;
      if (rest === undefined || !(rest.startsWith('.') || rest.startsWith(':') || rest.startsWith('/'))) break;
    }
    return j;
  }

  private isUnfoldableType(el: ElementDefinition): boolean {
    if (typeof el.contentReference === 'string') return false;
    const types = el.type ?? [];
    const only = types.length === 1 ? types[0] : undefined;
    return only !== undefined && only.code !== 'BackboneElement' && only.code !== 'Element';
  }

  // ---- unfolding -----------------------------------------------------------------------------

  /** Inserts the children of the element at `index` from its type (or contentReference). */
  private unfold(index: number, wantedChild: string): boolean {
    const el = this.at(index);
    const id = idOf(el);
    let children: ElementDefinition[] | undefined;
    let rootPath: string | undefined;
    let rootId: string | undefined;
    if (typeof el.contentReference === 'string') {
      const target = el.contentReference.slice(el.contentReference.indexOf('#') + 1);
      const rootType = target.split('.')[0];
      const typeSd = this.generator.withSnapshot(CORE_SD + rootType, this.messages);
      const source = typeSd ? snapshotOf(typeSd) : undefined;
      const referenced = source?.find((e) => e.id === target || (e.id === undefined && e.path === target));
      if (source && referenced) {
        rootPath = referenced.path;
        rootId = referenced.id ?? referenced.path;
        children = source.filter((e) => (e.id ?? e.path).startsWith(`${rootId}.`));
      }
    } else {
      const types = el.type ?? [];
      let type = types.length === 1 ? types[0] : undefined;
      if (!type && (wantedChild === 'id' || wantedChild === 'extension')) type = { code: 'Element' };
      if (!type) return false;
      let typeSd: CanonicalResource | undefined;
      const profile = type.profile?.length === 1 ? type.profile[0] : undefined;
      if (profile !== undefined) {
        typeSd = this.generator.withSnapshot(profile, this.messages);
        if (!typeSd) this.warn(`cannot find the type profile ${profile}; children of ${id} come from ${type.code}`, id);
      }
      typeSd ??= this.generator.withSnapshot(type.code.includes('/') ? type.code : CORE_SD + type.code, this.messages);
      const [first, ...rest] = (typeSd ? snapshotOf(typeSd) : undefined) ?? [];
      if (first) {
        rootPath = first.path;
        rootId = first.id ?? first.path;
        children = rest;
      }
    }
    if (!children || rootPath === undefined || rootId === undefined || children.length === 0) return false;
    const copies = children.map((c) => {
      const e = clone(c);
      const cid = c.id ?? c.path;
      e.id = id + cid.slice(rootId.length);
      e.path = el.path + c.path.slice(rootPath.length);
      return e;
    });
    this.els.splice(index + 1, 0, ...copies);
    return true;
  }

  // ---- merging -------------------------------------------------------------------------------

  private merge(target: ElementDefinition, diff: ElementDefinition): void {
    for (const [key, value] of Object.entries(diff)) {
      if (NOT_OVERRIDDEN.has(key)) continue;
      if (key.startsWith('fixed') || key.startsWith('pattern')) {
        for (const k of Object.keys(target)) if (k !== key && (k.startsWith('fixed') || k.startsWith('pattern'))) delete target[k];
      }
      if ((key === 'definition' || key === 'comment' || key === 'requirements' || key === 'short') && typeof value === 'string' && value.startsWith('...') && typeof target[key] === 'string') {
        target[key] = `${target[key]}\r\n${value.slice(3).trimStart()}`;
        continue;
      }
      target[key] = clone(value);
    }
    if (typeof diff.sliceName === 'string') target.sliceName = diff.sliceName;
    if (diff.type) {
      target.type = clone(diff.type);
      this.inheritFromTypeProfile(target, diff);
    }
    if (diff.slicing) {
      target.slicing = { ...(target.slicing ?? {}), ...clone(diff.slicing) };
      // Type slices of a choice are closed: a value of another type matches no slice.
      const d = target.slicing.discriminator;
      const only = isArray(d) && d.length === 1 ? d[0] : undefined;
      if (isChoice(target) && isObject(only) && only.type === 'type' && only.path === '$this') target.slicing.rules = 'closed';
    }
    if (diff.binding) target.binding = { ...(target.binding ?? {}), ...clone(diff.binding) };
    // A binding stays only on an element with a bindable type (the HL7 generator drops it when
    // the types are narrowed to unbindable ones, or when it was put on an extension).
    const types = target.type ?? [];
    if (target.binding && types.length && !types.some((t) => BINDABLE_TYPES.has(t.code))) delete target.binding;
    // A profile cannot change whether an element is a modifier (IG differentials sometimes say
    // isModifier: false on a status element); only a specialization or an extension definition can.
    if (this.sd.derivation !== 'constraint' || this.sd.type === 'Extension') {
      if (diff.isModifier !== undefined) target.isModifier = diff.isModifier;
      if (diff.isModifierReason !== undefined) target.isModifierReason = diff.isModifierReason;
    }
    if (diff.constraint) {
      const keys = new Set((target.constraint ?? []).map((c) => c.key));
      target.constraint = [...(target.constraint ?? [])];
      for (const c of diff.constraint) {
        if (c.key && keys.has(c.key)) {
          target.constraint = target.constraint.map((x: { key?: string }) => (x.key === c.key ? clone(c) : x));
        } else {
          target.constraint.push({ ...clone(c), source: c.source ?? this.url });
        }
      }
    }
    for (const key of ['mapping', 'condition', 'alias', 'extension'] as const) {
      const added = diff[key];
      if (!isArray(added)) continue;
      const had = target[key];
      const existing = isArray(had) ? had : [];
      const present = new Set(existing.map((x) => JSON.stringify(x)));
      target[key] = [...existing, ...added.filter((x) => !present.has(JSON.stringify(x))).map(clone)];
    }
  }

  /** An extension slice with a profile takes its texts from the extension's definition. */
  private inheritFromTypeProfile(target: ElementDefinition, diff: ElementDefinition): void {
    const types = diff.type ?? [];
    const only = types.length === 1 ? types[0] : undefined;
    const profile = only?.code === 'Extension' && only.profile?.length === 1 ? only.profile[0] : undefined;
    if (profile === undefined) return;
    const ext = this.generator.withSnapshot(profile);
    const root = ext ? snapshotOf(ext)?.[0] : undefined;
    if (!root) return;
    for (const key of ['short', 'definition', 'comment', 'requirements'] as const) {
      if (diff[key] === undefined && root[key] !== undefined) target[key] = root[key];
    }
    // A modifier extension makes the element holding it a modifier.
    if (root.isModifier !== undefined) target.isModifier = root.isModifier;
    if (root.isModifierReason !== undefined) target.isModifierReason = root.isModifierReason;
  }

  private error(message: string, element?: string): void {
    this.messages.push({ severity: 'error', message, element });
  }

  private warn(message: string, element?: string): void {
    this.messages.push({ severity: 'warning', message, element });
  }
}

/** Element id segments; a slice name containing a dot makes the count differ from the path's, and the caller then falls back to the path. */
function splitId(id: string): string[] {
  return id.split('.');
}

function isExtensionElement(el: ElementDefinition): boolean {
  return /(^|\.)(extension|modifierExtension)$/.test(el.path); // linear: fixed words tried at each position
}

function isChoice(el: ElementDefinition): boolean {
  return el.path.endsWith('[x]');
}

/** The suffix a type gives a renamed choice element: dateTime → DateTime, Reference → Reference. */
function typeSuffix(code: string): string {
  const name = code.startsWith('http://hl7.org/fhirpath/System.') ? code.slice('http://hl7.org/fhirpath/System.'.length) : code;
  return name.charAt(0).toUpperCase() + name.slice(1);
}

/**
 * Loose StructureDefinitions (RESOURCE artifacts, `--load` files, test-suite profiles) with a
 * snapshot: those that carry only a differential get one generated against `source` (which
 * should already contain `resources`, e.g. `index.scoped([], resources)`, so that profiles based
 * on each other resolve). Other resources are returned unchanged.
 */
export function withGeneratedSnapshots(source: StructureDefinitionSource, resources: readonly CanonicalResource[]): { resources: CanonicalResource[]; messages: SnapshotMessage[] } {
  const generator = new SnapshotGenerator(source);
  const messages: SnapshotMessage[] = [];
  const out = resources.map((r) => {
    if (r.resourceType !== 'StructureDefinition' || snapshotOf(r)) return r;
    const result = generator.generate(r);
    messages.push(...result.messages.map((m) => ({ ...m, message: `${String(r.url ?? r.id)}: ${m.message}` })));
    return result.elements.length ? result.structureDefinition : r;
  });
  return { resources: out, messages };
}
