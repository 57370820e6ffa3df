/**
 * Bundle links and search sets, as the HL7 validator's BundleValidator checks them: paging
 * relations (first, previous, next, last) only in search sets and histories, each relation of
 * those and `self` at most once; a document's stylesheet is in the Bundle or (warnings) secure; in a search set, a self link saying what was searched, search
 * modes on the entries, and entries that match the search (a resource, with an id, of a type
 * the search asked for; an `outcome` entry is an OperationOutcome).
 */
import type { NodeContext } from '../context/node-context.js';
import { isObject } from '../json/json-value.js';

type Json = Record<string, unknown>;

const PAGING = new Set(['first', 'previous', 'next', 'last']);

export function checkLinks(ctx: NodeContext, bundle: Json, type: string): void {
  const links = Array.isArray(bundle.link) ? bundle.link : [];
  const search = type === 'searchset' || type === 'history';
  const known = search || ['document', 'message', 'collection', 'subscription-notification', 'transaction', 'transaction-response', 'batch', 'batch-response'].includes(type);
  if (!known) return;
  const seen = new Set<string>();
  links.forEach((l, i) => {
    if (!isObject(l) || typeof l.relation !== 'string') return;
    const rel = l.relation;
    const path = search ? `${ctx.path}.link[${i}]` : `${ctx.path}.link[${i}].relation`;
    if (!search && PAGING.has(rel)) ctx.error('BUNDLE_LINK_SEARCH_PROHIBITED', [rel], path, ctx.itemPos(links, i));
    if ((rel === 'self' || (search && PAGING.has(rel))) && seen.has(rel)) ctx.error('BUNDLE_LINK_SEARCH_NO_DUPLICATES', [rel], path, ctx.itemPos(links, i));
    seen.add(rel);
    if (type === 'document' && rel === 'stylesheet' && typeof l.url === 'string') checkStylesheet(ctx, bundle, l.url, `${ctx.path}.link[${i}].url`, ctx.propPos(l, 'url'));
  });
}

/**
 * A document's stylesheet: the FHIR one, or (warnings) another that should be secure and
 * linkable; a relative url must name a resource (`Type/id`) in the Bundle.
 */
function checkStylesheet(ctx: NodeContext, bundle: Json, url: string, path: string, at: ReturnType<NodeContext['pos']>): void {
  // linear: anchored, one character class up to ':', which it cannot match
  if (/^[A-Za-z][A-Za-z0-9+.-]*:/.test(url)) {
    if (url === 'https://hl7.org/fhir/fhir.css') return;
    ctx.warning('BUNDLE_LINK_STYELSHEET_EXTERNAL', [], path, at);
    if (url.startsWith('http://')) ctx.warning('BUNDLE_LINK_STYELSHEET_INSECURE', [], path, at);
    if (!url.startsWith('http://') && !url.startsWith('https://')) ctx.warning('BUNDLE_LINK_STYELSHEET_LINKABLE', [], path, at);
    return;
  }
  const entries = Array.isArray(bundle.entry) ? bundle.entry : [];
  const found = entries.some((e) => isObject(e) && isObject(e.resource) && `${String(e.resource.resourceType)}/${String(e.resource.id)}` === url);
  if (!found) ctx.error('BUNDLE_LINK_STYELSHEET_NOT_FOUND', [], path, at);
}

/** An entry of a search set with its resource and paths; without a resource it is reported and skipped. */
function searchEntry(ctx: NodeContext, e: unknown, i: number): { entryPath: string; res: Json; rt: string; resPath: string } | undefined {
  const entryPath = `${ctx.path}.entry[${i}]`;
  const res = isObject(e) && isObject(e.resource) ? e.resource : undefined;
  if (!res) {
    ctx.error('BUNDLE_SEARCH_ENTRY_NO_RESOURCE', [], entryPath, undefined);
    return undefined;
  }
  return { entryPath, res, rt: String(res.resourceType), resPath: `${entryPath}.resource` };
}

export function checkSearchSet(ctx: NodeContext, bundle: Json, entries: unknown[]): void {
  const links = Array.isArray(bundle.link) ? bundle.link.filter(isObject) : [];
  const self = links.find((l) => l.relation === 'self');
  const types: string[] = [];
  if (!self) ctx.warning('BUNDLE_SEARCH_NOSELF', []);
  else {
    readSearchTypes(ctx, typeof self.url === 'string' ? self.url : undefined, types);
    if (types.length === 0) ctx.information('BUNDLE_SEARCH_SELF_NOT_UNDERSTOOD', []);
  }
  const modes = entries.map((e) => (isObject(e) && isObject(e.search) && typeof e.search.mode === 'string' ? e.search.mode : undefined));
  const any = modes.some((m) => m !== undefined);
  if (!any) {
    let typeProblem = false;
    let firstType: string | undefined;
    entries.forEach((e, i) => {
      const entry = searchEntry(ctx, e, i);
      if (!entry) return;
      const { entryPath, res, rt, resPath } = entry;
      if (types.length === 0) {
        typeProblem = true;
        if (!self) ctx.information('BUNDLE_SEARCH_ENTRY_TYPE_NOT_SURE', [], resPath, undefined);
        if (res.id === undefined && rt !== 'OperationOutcome') ctx.warning('BUNDLE_SEARCH_ENTRY_NO_RESOURCE_ID', [], resPath, undefined);
      } else if (types.includes(rt)) {
        if (rt !== 'OperationOutcome') {
          if (res.id === undefined) ctx.warning('BUNDLE_SEARCH_ENTRY_NO_RESOURCE_ID', [], resPath, undefined);
          if (firstType !== undefined && rt !== firstType) typeProblem = true;
          firstType ??= rt;
        }
      } else {
        typeProblem = true;
        ctx.warning('BUNDLE_SEARCH_ENTRY_WRONG_RESOURCE_TYPE_NO_MODE', [rt, types.join(', ')], entryPath, undefined);
      }
    });
    if (typeProblem) ctx.warning('BUNDLE_SEARCH_NO_MODE', []);
    else ctx.information('BUNDLE_SEARCH_NO_MODE', []);
    return;
  }
  entries.forEach((e, i) => {
    const mode = modes[i];
    if (mode === undefined) ctx.warning('BUNDLE_SEARCH_NO_MODE', [], `${ctx.path}.entry[${i}]`, undefined);
    const entry = searchEntry(ctx, e, i);
    if (!entry) return;
    const { res, rt, resPath } = entry;
    if (mode === 'match') {
      if (res.id === undefined) ctx.error('BUNDLE_SEARCH_ENTRY_NO_RESOURCE_ID', [], resPath, undefined);
      if (types.length > 0 && !types.includes(rt)) ctx.error('BUNDLE_SEARCH_ENTRY_WRONG_RESOURCE_TYPE_MODE', [rt, types.join(', ')], resPath, undefined);
    } else if (mode === 'include') {
      if (res.id === undefined) ctx.error('BUNDLE_SEARCH_ENTRY_NO_RESOURCE_ID', [], resPath, undefined);
    } else if (mode !== undefined && rt !== 'OperationOutcome') {
      ctx.error('BUNDLE_SEARCH_ENTRY_WRONG_RESOURCE_TYPE_OUTCOME', [rt], resPath, undefined);
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
