/**
 * Bundle links and search sets, as the HL7 validator's BundleValidator checks them: paging
 * relations (first, previous, next, last) only in search sets and histories, each relation of
 * those and `self` at most once; a document's stylesheet is in the Bundle or (warnings) secure; in a search set, a self link saying what was searched, search
 * modes on the entries, and entries that match the search (a resource, with an id, of a type
 * the search asked for; an `outcome` entry is an OperationOutcome).
 */
import type { NodeContext } from '../context/node-context.js';
import type { JsonNode } from '../json/json-node.js';
import type { MessageId } from '../messages.js';

const PAGING = new Set(['first', 'previous', 'next', 'last']);

export function checkLinks(ctx: NodeContext, bundle: JsonNode, type: string): void {
  const search = type === 'searchset' || type === 'history';
  const known = search || ['document', 'message', 'collection', 'subscription-notification', 'transaction', 'transaction-response', 'batch', 'batch-response'].includes(type);
  if (!known) return;
  const seen = new Set<string>();
  for (const link of bundle.listedObjects('link')) {
    const relation = link.child('relation');
    const rel = relation?.string;
    if (relation === undefined || rel === undefined) continue;
    // named as the HL7 validator names it (the link in a search set, else its relation), at the link
    const problem = (id: MessageId) => {
      ctx.error(id, [rel], search ? link.path : relation.path, link.at);
    };
    if (!search && PAGING.has(rel)) problem('BUNDLE_LINK_SEARCH_PROHIBITED');
    if ((rel === 'self' || (search && PAGING.has(rel))) && seen.has(rel)) problem('BUNDLE_LINK_SEARCH_NO_DUPLICATES');
    seen.add(rel);
    const url = link.child('url');
    if (type === 'document' && rel === 'stylesheet' && url?.string !== undefined) checkStylesheet(bundle, url, url.string);
  }
}

/**
 * A document's stylesheet: the FHIR one, or (warnings) another that should be secure and
 * linkable; a relative url must name a resource (`Type/id`) in the Bundle.
 */
function checkStylesheet(bundle: JsonNode, at: JsonNode, url: string): void {
  // linear: anchored, one character class up to ':', which it cannot match
  if (/^[A-Za-z][A-Za-z0-9+.-]*:/.test(url)) {
    if (url === 'https://hl7.org/fhir/fhir.css') return;
    at.warning('BUNDLE_LINK_STYELSHEET_EXTERNAL', []);
    if (url.startsWith('http://')) at.warning('BUNDLE_LINK_STYELSHEET_INSECURE', []);
    if (!url.startsWith('http://') && !url.startsWith('https://')) at.warning('BUNDLE_LINK_STYELSHEET_LINKABLE', []);
    return;
  }
  const found = entriesOf(bundle).some((e) => {
    const res = e.child('resource')?.object;
    return res !== undefined && `${String(res.resourceType)}/${String(res.id)}` === url;
  });
  if (!found) at.error('BUNDLE_LINK_STYELSHEET_NOT_FOUND', []);
}

/** The Bundle's entries when the JSON lists them (any other shape is the structural walk's error). */
export function entriesOf(bundle: JsonNode): readonly JsonNode[] {
  return bundle.listed('entry');
}

/** An entry of a search set with its resource; without a resource it is reported and skipped. */
function searchEntry(ctx: NodeContext, entry: JsonNode): { resource: JsonNode; res: Record<string, unknown>; rt: string } | undefined {
  const resource = entry.child('resource');
  const res = resource?.object;
  if (resource === undefined || res === undefined) {
    entry.error('BUNDLE_SEARCH_ENTRY_NO_RESOURCE', []);
    return undefined;
  }
  return { resource, res, rt: String(res.resourceType) };
}

export function checkSearchSet(ctx: NodeContext, bundle: JsonNode, entries: readonly JsonNode[]): void {
  const self = bundle.listedObjects('link').find((l) => l.str('relation') === 'self');
  const types: string[] = [];
  if (!self) ctx.warning('BUNDLE_SEARCH_NOSELF', []);
  else {
    readSearchTypes(ctx, self.str('url'), types);
    if (types.length === 0) ctx.information('BUNDLE_SEARCH_SELF_NOT_UNDERSTOOD', []);
  }
  const modes = entries.map((e) => e.child('search')?.str('mode'));
  const any = modes.some((m) => m !== undefined);
  if (!any) {
    let typeProblem = false;
    let firstType: string | undefined;
    for (const e of entries) {
      const entry = searchEntry(ctx, e);
      if (!entry) continue;
      const { resource, res, rt } = entry;
      if (types.length === 0) {
        typeProblem = true;
        if (!self) resource.information('BUNDLE_SEARCH_ENTRY_TYPE_NOT_SURE', []);
        if (res.id === undefined && rt !== 'OperationOutcome') resource.warning('BUNDLE_SEARCH_ENTRY_NO_RESOURCE_ID', []);
      } else if (types.includes(rt)) {
        if (rt !== 'OperationOutcome') {
          if (res.id === undefined) resource.warning('BUNDLE_SEARCH_ENTRY_NO_RESOURCE_ID', []);
          if (firstType !== undefined && rt !== firstType) typeProblem = true;
          firstType ??= rt;
        }
      } else {
        typeProblem = true;
        e.warning('BUNDLE_SEARCH_ENTRY_WRONG_RESOURCE_TYPE_NO_MODE', [rt, types.join(', ')]);
      }
    }
    if (typeProblem) ctx.warning('BUNDLE_SEARCH_NO_MODE', []);
    else ctx.information('BUNDLE_SEARCH_NO_MODE', []);
    return;
  }
  entries.forEach((e, i) => {
    const mode = modes[i];
    if (mode === undefined) e.warning('BUNDLE_SEARCH_NO_MODE', []);
    const entry = searchEntry(ctx, e);
    if (!entry) return;
    const { resource, res, rt } = entry;
    if (mode === 'match') {
      if (res.id === undefined) resource.error('BUNDLE_SEARCH_ENTRY_NO_RESOURCE_ID', []);
      if (types.length > 0 && !types.includes(rt)) resource.error('BUNDLE_SEARCH_ENTRY_WRONG_RESOURCE_TYPE_MODE', [rt, types.join(', ')]);
    } else if (mode === 'include') {
      if (res.id === undefined) resource.error('BUNDLE_SEARCH_ENTRY_NO_RESOURCE_ID', []);
    } else if (mode !== undefined && rt !== 'OperationOutcome') {
      resource.error('BUNDLE_SEARCH_ENTRY_WRONG_RESOURCE_TYPE_OUTCOME', [rt]);
    }
  });
}

/** The resource types a search url asks for: `.../Type?...`, or `_type=A,B`. */
function readSearchTypes(ctx: NodeContext, url: string | undefined, types: string[]): void {
  if (url === undefined) return;
  const q = url.indexOf('?');
  const head = (q < 0 ? url : url.slice(0, q)).split('/');
  const last = head[head.length - 1];
  if (last && ctx.services.plans.isResourceType(last)) {
    types.push(last);
    return;
  }
  if (q < 0) return;
  for (const part of url.slice(q + 1).split('&')) {
    if (part.startsWith('_type=')) types.push(...part.slice(6).split(',').filter(Boolean));
  }
}
