/**
 * Documents and messages, as the HL7 validator's BundleValidator checks them: the first entry
 * is the Composition (MessageHeader), the references the Composition (MessageHeader) makes to
 * the document's parts resolve inside the Bundle, and every entry can be reached by following
 * references from the first one.
 *
 * Locations follow the HL7 validator's, which counts these from 1: the first entry's resource
 * is `Bundle.entry[1].resource`, its first section `section[1]`; an unreachable entry is named
 * one past its index. Operators' category rules and the HL7 comparisons match on them.
 */
import type { BundleIndex } from '../checks/references.js';
import { hasVersion, parseReference } from '../checks/references.js';
import type { NodeContext } from '../context/node-context.js';
import type { JsonNode } from '../json/json-node.js';
import { isObject } from '../json/json-value.js';

type Json = Record<string, unknown>;

/** HL7's location of an item of a list here, counted from 1 (`section[1]` is the first section). */
function hl7Item(path: string, name: string, index: number): string {
  return `${path}.${name}[${String(index + 1)}]`;
}

/** The first entry's resource as the HL7 validator names it (`Bundle.entry[1].resource`). */
const firstResourcePath = (ctx: NodeContext): string => `${hl7Item(ctx.path, 'entry', 0)}.resource`;

/**
 * Where a document's (message's) references are resolved from: the Bundle's index and the first
 * entry (its resource's id and fullUrl), against whose RESTful base relative references resolve.
 */
interface ReferringEntry {
  readonly ctx: NodeContext;
  readonly index: BundleIndex;
  readonly referrerId: unknown;
  readonly fullUrl: string | undefined;
}

/** The Composition's (MessageHeader's) references that must resolve in the Bundle, as HL7 lists them. */
export function checkDocumentReferences(ctx: NodeContext, index: BundleIndex, composition: JsonNode, fullUrl: string | undefined): void {
  const at = firstResourcePath(ctx);
  const from: ReferringEntry = { ctx, index, referrerId: composition.object?.id, fullUrl };
  const single = (holder: JsonNode, prop: string, path: string, name: string) => {
    const first = holder.first(prop);
    if (first?.isObject === true) resolveInBundle(from, first, `${path}.${prop}`, name);
  };
  const repeating = (holder: JsonNode, prop: string, path: string, name: string) => {
    holder.children(prop).forEach((r, i) => {
      if (r.isObject) resolveInBundle(from, r, hl7Item(path, prop, i), name);
    });
  };
  single(composition, 'subject', at, 'Composition.subject');
  repeating(composition, 'author', at, 'Composition.author');
  single(composition, 'encounter', at, 'Composition.encounter');
  single(composition, 'custodian', at, 'Composition.custodian');
  composition.objects('attester').forEach((a, i) => {
    single(a, 'party', hl7Item(at, 'attester', i), 'Composition.attester.party');
  });
  composition.objects('event').forEach((e, i) => {
    repeating(e, 'detail', hl7Item(at, 'event', i), 'Composition.event.detail');
  });
  checkSections(from, composition, at, at);
}

function checkSections(from: ReferringEntry, holder: JsonNode, holderPath: string, compositionPath: string): void {
  holder.objects('section').forEach((section, i) => {
    const sectionPath = hl7Item(holderPath, 'section', i);
    // the HL7 validator names a section's author and focus from the Composition, not the section
    section.objects('author').forEach((a, j) => {
      resolveInBundle(from, a, hl7Item(compositionPath, 'author', j), 'Section.author');
    });
    const focus = section.child('focus');
    if (focus?.isObject === true) resolveInBundle(from, focus, `${compositionPath}.focus`, 'Section.focus');
    section.objects('entry').forEach((e, j) => {
      resolveInBundle(from, e, hl7Item(sectionPath, 'entry', j), 'Section Entry');
    });
    checkSections(from, section, sectionPath, compositionPath);
  });
}

/** The MessageHeader's focus references must resolve in the Bundle. */
export function checkMessageReferences(ctx: NodeContext, index: BundleIndex, header: JsonNode, fullUrl: string | undefined): void {
  const from: ReferringEntry = { ctx, index, referrerId: header.object?.id, fullUrl };
  for (const f of header.objects('focus')) resolveInBundle(from, f, `${firstResourcePath(ctx)}.focus`, 'MessageHeader Data');
}

/**
 * A Reference that must name exactly one entry of the Bundle. Reported at HL7's location (which
 * names the reference by its HL7 count, not this node's), so with no position.
 */
function resolveInBundle(from: ReferringEntry, reference: JsonNode, path: string, name: string): void {
  const { ctx, index, referrerId, fullUrl } = from;
  const ref = reference.str('reference');
  if (ref === undefined || ref === '' || ref.startsWith('#')) return;
  const hits = matches(index, ref, fullUrl, referrerId);
  if (hits.length === 1) return;
  if (hits.length > 1) {
    ctx.report('error', 'BUNDLE_BUNDLE_ENTRY_FOUND_MULTIPLE', [hits.length, ref, name], path, undefined);
    return;
  }
  // the same type and id under another fullUrl: say why it does not count
  const parsed = parseReference(ref);
  const sameTypeAndId = parsed.type && parsed.id ? index.byTypeAndId.get(`${parsed.type}/${parsed.id}`) ?? [] : [];
  const base = fullUrl ? restfulBase(fullUrl, referrerId) : undefined;
  if (sameTypeAndId.length > 0 && fullUrl !== undefined && parsed.kind === 'relative') {
    const found = [...new Set(sameTypeAndId.map((e) => e.fullUrl ?? ''))].join(', ');
    ctx.report('error', 'BUNDLE_BUNDLE_ENTRY_NOTFOUND_APPARENT', [ref, name, sameTypeAndId.length, (base ?? '') + ref, found], path, undefined);
  } else {
    ctx.report('error', 'BUNDLE_BUNDLE_ENTRY_NOTFOUND', [ref, name], path, undefined);
  }
}

/** Entries a reference names: by fullUrl, then relative to the referring entry's RESTful base, versioned by meta.versionId. */
function matches(index: BundleIndex, ref: string, fullUrl: string | undefined, referrerId: unknown): { fullUrl: string | undefined; resource: Json | undefined }[] {
  // linear: after each '/_history/' the class runs to the next '/' only
  const version = /\/_history\/([^/]+)$/.exec(ref)?.[1];
  const unversioned = version === undefined ? ref : ref.slice(0, ref.length - version.length - '/_history/'.length);
  const direct = index.byFullUrl.get(unversioned);
  const parsed = parseReference(unversioned);
  let hits = direct ?? [];
  if (!direct && parsed.kind === 'relative') {
    const base = fullUrl ? restfulBase(fullUrl, referrerId) : undefined;
    // relative to the referring entry's RESTful base; from an entry with a urn:uuid: fullUrl (no
    // base), `Type/id` names the entry `urn:uuid:id` only, as for the HL7 validator (the same type
    // and id elsewhere is then named in the error); without a fullUrl at all, by type and id
    hits = base !== undefined ? index.byFullUrl.get(base + unversioned) ?? []
      : fullUrl === undefined ? index.byTypeAndId.get(`${parsed.type}/${parsed.id}`) ?? []
        : fullUrl.startsWith('urn:uuid:') ? index.byFullUrl.get('urn:uuid:' + parsed.id) ?? [] : [];
  }
  if (version !== undefined) hits = hits.filter((h) => hasVersion(h.resource, version));
  return hits;
}

/**
 * `http://server/fhir/` of `http://server/fhir/Type/id` (a RESTful fullUrl), when the referring
 * resource's id is that id (as for the HL7 validator, a fullUrl whose resource has another id or
 * none is no base: its relative references match nothing); undefined for urn: fullUrls.
 */
function restfulBase(fullUrl: string, referrerId: unknown): string | undefined {
  // linear: at each '/' that `.+` gives back, the rest covers the next two segments only
  const m = /^(https?:\/\/.+\/)[A-Z][A-Za-z]+\/([^/]+)$/.exec(fullUrl);
  return m && m[2] === referrerId ? m[1] : undefined;
}

/**
 * Every entry must be reachable from the first by references (an entry that only refers to a
 * reachable one is let in with a warning, unless it is a Provenance, which is expected to
 * point backwards). Unreachable entries are errors in documents, warnings in messages.
 */
export function checkAllInterlinked(ctx: NodeContext, index: BundleIndex, entries: readonly JsonNode[], bundle: JsonNode, isMessage: boolean): void {
  const list: { entry: JsonNode; resource: Json; targets: Set<number> }[] = [];
  for (const entry of entries) {
    const resource = entry.child('resource')?.object;
    if (resource) list.push({ entry, resource, targets: new Set() });
  }
  const position = new Map<unknown, number>(list.map((s, i) => [s.resource, i]));
  for (const s of list) {
    const from = s.entry.str('fullUrl');
    for (const ref of referencesIn(s.resource)) {
      const hits = matches(index, ref, from, s.resource.id);
      if (hits.length !== 1) continue;
      const target = position.get(hits[0]?.resource);
      if (target !== undefined && list[target] !== s) s.targets.add(target);
    }
  }
  const visited = new Set<number>();
  // iterative: a long chain of references must not exhaust the stack
  const visit = (start: number) => {
    const todo = [start];
    for (let i = todo.pop(); i !== undefined; i = todo.pop()) {
      if (visited.has(i)) continue;
      visited.add(i);
      for (const t of list[i]?.targets ?? []) todo.push(t);
    }
  };
  if (list.length > 0) visit(0);
  // a stylesheet link makes its Binary part of the document
  for (const l of bundle.objects('link')) {
    const url = l.str('url');
    if (l.str('relation') !== 'stylesheet' || url === undefined) continue;
    const hit = list.findIndex((s) => `${String(s.resource.resourceType)}/${String(s.resource.id)}` === url);
    if (hit >= 0) visited.add(hit);
  }
  let found: boolean;
  do {
    found = false;
    list.forEach((s, i) => {
      if (visited.has(i) || ![...s.targets].some((t) => visited.has(t))) return;
      if (s.resource.resourceType !== 'Provenance' && !isMessage) {
        // (named one past the last entry, as the HL7 validator does)
        ctx.report('warning', 'BUNDLE_BUNDLE_ENTRY_REVERSE_R4', [entryName(s.entry)], hl7Item(ctx.path, 'entry', entries.length), undefined);
      }
      found = true;
      visit(i);
    });
  } while (found);
  list.forEach((s, i) => {
    if (visited.has(i)) return;
    // the HL7 validator names the entry one past its position in the list of entries with a resource
    const path = hl7Item(ctx.path, 'entry', i);
    if (isMessage) ctx.report('warning', 'BUNDLE_BUNDLE_ENTRY_ORPHAN_MESSAGE', [entryName(s.entry)], path, undefined);
    else ctx.report('error', 'BUNDLE_BUNDLE_ENTRY_ORPHAN_DOCUMENT', [entryName(s.entry)], path, undefined);
  });
}

function entryName(entry: JsonNode): string {
  const fullUrl = entry.str('fullUrl');
  return fullUrl === undefined ? '' : `'${fullUrl}'`;
}

/**
 * The references a resource makes (Reference.reference, and url/uri values that may point at an
 * entry), not descending into a Bundle inside it. Coding/Identifier systems, profiles and
 * extension urls are not references.
 */
function referencesIn(resource: Json): string[] {
  const out = new Set<string>();
  const stack: { v: unknown; key: string; inExtension: boolean }[] = [{ v: resource, key: '', inExtension: false }];
  for (let top = stack.pop(); top !== undefined; top = stack.pop()) {
    const { v, key, inExtension } = top;
    if (Array.isArray(v)) {
      for (const x of v) stack.push({ v: x, key, inExtension: key === 'extension' || key === 'modifierExtension' });
      continue;
    }
    if (!isObject(v)) continue;
    if (v !== resource && v.resourceType === 'Bundle') continue;
    for (const k in v) {
      const x = v[k];
      if (typeof x === 'string') {
        if (x.startsWith('#')) continue;
        if (k === 'reference' || (k === 'url' && !inExtension)) out.add(x);
      } else if (k !== 'meta') {
        stack.push({ v: x, key: k, inExtension: false });
      }
    }
  }
  return [...out];
}
