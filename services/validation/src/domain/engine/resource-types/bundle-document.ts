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
import { isObject } from '../json/json-value.js';

type Json = Record<string, unknown>;

/**
 * Where a document's (message's) references are resolved from: the Bundle's index and the first
 * entry (its resource and fullUrl), against whose RESTful base relative references resolve.
 */
interface ReferringEntry {
  readonly ctx: NodeContext;
  readonly index: BundleIndex;
  readonly referrer: Json;
  readonly fullUrl: string | undefined;
}

/** The Composition's (MessageHeader's) references that must resolve in the Bundle, as HL7 lists them. */
export function checkDocumentReferences(ctx: NodeContext, index: BundleIndex, composition: Json, fullUrl: string | undefined): void {
  const at = `${ctx.path}.entry[1].resource`;
  const from: ReferringEntry = { ctx, index, referrer: composition, fullUrl };
  const single = (holder: Json, prop: string, path: string, name: string) => {
    const v = holder[prop];
    const first = Array.isArray(v) ? v[0] : v;
    if (isObject(first)) resolveInBundle(from, first, `${path}.${prop}`, name);
  };
  const repeating = (holder: Json, prop: string, path: string, name: string) => {
    const v = holder[prop];
    (Array.isArray(v) ? v : v === undefined ? [] : [v]).forEach((r, i) => {
      if (isObject(r)) resolveInBundle(from, r, `${path}.${prop}[${i + 1}]`, name);
    });
  };
  single(composition, 'subject', at, 'Composition.subject');
  repeating(composition, 'author', at, 'Composition.author');
  single(composition, 'encounter', at, 'Composition.encounter');
  single(composition, 'custodian', at, 'Composition.custodian');
  items(composition.attester).forEach((a, i) => single(a, 'party', `${at}.attester[${i + 1}]`, 'Composition.attester.party'));
  items(composition.event).forEach((e, i) => repeating(e, 'detail', `${at}.event[${i + 1}]`, 'Composition.event.detail'));
  checkSections(from, composition, at, at);
}

function checkSections(from: ReferringEntry, holder: Json, holderPath: string, compositionPath: string): void {
  items(holder.section).forEach((section, i) => {
    const sectionPath = `${holderPath}.section[${i + 1}]`;
    // the HL7 validator names a section's author and focus from the Composition, not the section
    items(section.author).forEach((a, j) => resolveInBundle(from, a, `${compositionPath}.author[${j + 1}]`, 'Section.author'));
    if (isObject(section.focus)) resolveInBundle(from, section.focus, `${compositionPath}.focus`, 'Section.focus');
    items(section.entry).forEach((e, j) => resolveInBundle(from, e, `${sectionPath}.entry[${j + 1}]`, 'Section Entry'));
    checkSections(from, section, sectionPath, compositionPath);
  });
}

/** The MessageHeader's focus references must resolve in the Bundle. */
export function checkMessageReferences(ctx: NodeContext, index: BundleIndex, header: Json, fullUrl: string | undefined): void {
  const from: ReferringEntry = { ctx, index, referrer: header, fullUrl };
  items(header.focus).forEach((f) => resolveInBundle(from, f, `${ctx.path}.entry[1].resource.focus`, 'MessageHeader Data'));
}

function items(v: unknown): Json[] {
  return Array.isArray(v) ? v.filter(isObject) : isObject(v) ? [v] : [];
}

/** A Reference that must name exactly one entry of the Bundle. */
function resolveInBundle(from: ReferringEntry, reference: Json, path: string, name: string): void {
  const { ctx, index, referrer, fullUrl } = from;
  const ref = reference.reference;
  if (typeof ref !== 'string' || ref === '' || ref.startsWith('#')) return;
  const hits = matches(index, ref, fullUrl, referrer);
  if (hits.length === 1) return;
  if (hits.length > 1) {
    ctx.error('BUNDLE_BUNDLE_ENTRY_FOUND_MULTIPLE', [hits.length, ref, name], path, undefined);
    return;
  }
  // the same type and id under another fullUrl: say why it does not count
  const parsed = parseReference(ref);
  const sameTypeAndId = parsed.type && parsed.id ? index.byTypeAndId.get(`${parsed.type}/${parsed.id}`) ?? [] : [];
  const base = fullUrl ? restfulBase(fullUrl, referrer) : undefined;
  if (sameTypeAndId.length > 0 && fullUrl !== undefined && parsed.kind === 'relative') {
    const found = [...new Set(sameTypeAndId.map((e) => e.fullUrl ?? ''))].join(', ');
    ctx.error('BUNDLE_BUNDLE_ENTRY_NOTFOUND_APPARENT', [ref, name, sameTypeAndId.length, (base ?? '') + ref, found], path, undefined);
  } else {
    ctx.error('BUNDLE_BUNDLE_ENTRY_NOTFOUND', [ref, name], path, undefined);
  }
}

/** Entries a reference names: by fullUrl, then relative to the referring entry's RESTful base, versioned by meta.versionId. */
function matches(index: BundleIndex, ref: string, fullUrl: string | undefined, referrer: Json): { fullUrl: string | undefined; resource: Json | undefined }[] {
  // linear: after each '/_history/' the class runs to the next '/' only
  const version = /\/_history\/([^/]+)$/.exec(ref)?.[1];
  const unversioned = version === undefined ? ref : ref.slice(0, ref.length - version.length - '/_history/'.length);
  const direct = index.byFullUrl.get(unversioned);
  const parsed = parseReference(unversioned);
  let hits = direct ?? [];
  if (!direct && parsed.kind === 'relative') {
    const base = fullUrl ? restfulBase(fullUrl, referrer) : undefined;
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
function restfulBase(fullUrl: string, referrer: Json): string | undefined {
  // linear: at each '/' that `.+` gives back, the rest covers the next two segments only
  const m = /^(https?:\/\/.+\/)[A-Z][A-Za-z]+\/([^/]+)$/.exec(fullUrl);
  return m && m[2] === referrer.id ? m[1] : undefined;
}

/**
 * Every entry must be reachable from the first by references (an entry that only refers to a
 * reachable one is let in with a warning, unless it is a Provenance, which is expected to
 * point backwards). Unreachable entries are errors in documents, warnings in messages.
 */
export function checkAllInterlinked(ctx: NodeContext, index: BundleIndex, entries: unknown[], bundle: Json, isMessage: boolean): void {
  const list: { entry: Json; resource: Json; targets: Set<number> }[] = [];
  for (const e of entries) {
    if (isObject(e) && isObject(e.resource)) list.push({ entry: e, resource: e.resource, targets: new Set() });
  }
  const position = new Map<unknown, number>(list.map((s, i) => [s.resource, i]));
  for (const s of list) {
    const from = typeof s.entry.fullUrl === 'string' ? s.entry.fullUrl : undefined;
    for (const ref of referencesIn(s.resource)) {
      const hits = matches(index, ref, from, s.resource);
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
  for (const l of items(bundle.link)) {
    if (l.relation !== 'stylesheet' || typeof l.url !== 'string') continue;
    const hit = list.findIndex((s) => `${String(s.resource.resourceType)}/${String(s.resource.id)}` === l.url);
    if (hit >= 0) visited.add(hit);
  }
  let found: boolean;
  do {
    found = false;
    list.forEach((s, i) => {
      if (visited.has(i) || ![...s.targets].some((t) => visited.has(t))) return;
      if (s.resource.resourceType !== 'Provenance' && !isMessage) {
        // (named one past the last entry, as the HL7 validator does)
        ctx.warning('BUNDLE_BUNDLE_ENTRY_REVERSE_R4', [entryName(s.entry)], `${ctx.path}.entry[${entries.length + 1}]`, undefined);
      }
      found = true;
      visit(i);
    });
  } while (found);
  list.forEach((s, i) => {
    if (visited.has(i)) return;
    // the HL7 validator names the entry one past its position in the list of entries with a resource
    const path = `${ctx.path}.entry[${i + 1}]`;
    if (isMessage) ctx.warning('BUNDLE_BUNDLE_ENTRY_ORPHAN_MESSAGE', [entryName(s.entry)], path, undefined);
    else ctx.error('BUNDLE_BUNDLE_ENTRY_ORPHAN_DOCUMENT', [entryName(s.entry)], path, undefined);
  });
}

function entryName(entry: Json): string {
  return typeof entry.fullUrl === 'string' ? `'${entry.fullUrl}'` : '';
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
