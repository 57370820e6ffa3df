/**
 * Bundle, as the HL7 validator's BundleValidator: indexes the entries by fullUrl before they are
 * walked (so references inside them resolve, HL7's grouping resource); checks each entry's
 * fullUrl (absolute, required except in transactions and batches, consistent with the
 * resource's type and id when it is a RESTful url, consistent with a canonical resource's url)
 * and the uniqueness of entry identities; then the rules of the Bundle's type: documents and
 * messages (bundle-document.ts), search sets (bundle-search.ts) and the links each type allows;
 * and its digital signature (bundle-signature.ts).
 *
 * Where the HL7 validator names the entry of a fullUrl problem as `Bundle.entry[0]` whatever its
 * position, so does this (operators compare the two validators' outcomes by location).
 */
import { BundleIndex } from '../checks/references.js';
import { ABSOLUTE_URL } from '../checks/urls.js';
import type { NodeContext } from '../context/node-context.js';
import type { BundleRule } from '../validator-options.js';
import type { JsonNode } from '../json/json-node.js';
import { checkAllInterlinked, checkDocumentReferences, checkMessageReferences } from './bundle-document.js';
import { checkBundleSignature } from './bundle-signature.js';
import { checkLinks, checkSearchSet, entriesOf } from './bundle-search.js';
import type { ResourceTypeValidator } from './resource-type-validator.js';

/** Bundle types whose entries need no fullUrl. */
const FULLURL_OPTIONAL = new Set(['transaction', 'transaction-response', 'batch', 'batch-response']);

// Linear (each): anchored, one character class.
const RESTFUL_ID = /^[A-Za-z0-9\-.]{1,64}$/;
const RESTFUL_BASE_SEGMENT = /^[A-Za-z0-9\\.:%$]*$/;

/**
 * Type and id of a RESTful url (`[http(s)://base/]Type/id[/_history/version]`), as the HL7
 * validator's url pattern reads it; undefined for any other url. Split by hand, no regex over the whole url.
 */
export function restfulParts(url: string): { type: string; id: string } | undefined {
  let parts = url.split('/');
  const h = parts.length - 2;
  if (h >= 2 && parts[h] === '_history') {
    const version = parts[h + 1];
    if (version === undefined || !RESTFUL_ID.test(version)) return undefined;
    parts = parts.slice(0, h);
  }
  // fewer than two parts: no type
  const type = parts[parts.length - 2];
  const id = parts[parts.length - 1];
  if (type === undefined || id === undefined) return undefined;
  if (!RESTFUL_ID.test(id) || !/^[A-Z][A-Za-z]+$/.test(type) /* linear: anchored classes */) return undefined;
  const base = parts.slice(0, -2);
  if (base.length === 0) return { type, id };
  // http(s)://segment/.../
  if ((base[0] !== 'http:' && base[0] !== 'https:') || base[1] !== '') return undefined;
  for (const seg of base.slice(2)) if (!RESTFUL_BASE_SEGMENT.test(seg)) return undefined;
  return { type, id };
}

export class BundleValidator implements ResourceTypeValidator {
  readonly resourceTypes = ['Bundle'];

  beforeElements(ctx: NodeContext, resource: Record<string, unknown>): void {
    const bundle = ctx.nodeOf(resource);
    const list = bundle.child('entry');
    if (list === undefined || !list.isList) return;
    const entries = list.items();
    const type = bundle.str('type') ?? '';
    ctx.host.enterBundle(new BundleIndex(entries.map((e) => e.value), type || undefined));
    if (ctx.run.options.bundleRules?.length) assignBundleRuleProfiles(ctx, entries, ctx.run.options.bundleRules);
    const seenIds = new Set<string>();
    const plans = ctx.services.plans;
    // the HL7 validator names the entry of a fullUrl problem as the first, whatever its position
    const hl7EntryPath = `${bundle.path}.entry[0]`;
    for (const e of entries) {
      if (!e.isObject) continue;
      const at = e.at;
      const given = e.str('fullUrl');
      const fullUrl = given !== '' ? given : undefined;
      const resource = e.child('resource');
      const rtype = resource?.str('resourceType');
      const id = resource?.str('id');
      if (fullUrl !== undefined) {
        if (!ABSOLUTE_URL.test(fullUrl)) {
          ctx.error('BUNDLE_FULLURL_ABSOLUTE', [fullUrl], hl7EntryPath, at);
        } else if (rtype !== undefined) {
          const m = restfulParts(fullUrl);
          if (m && plans.isResourceType(m.type)) {
            if (id === undefined) ctx.error('BUNDLE_ENTRY_URL_MATCHES_NO_ID', [fullUrl], hl7EntryPath, at);
            else if (!fullUrl.endsWith(`/${rtype}/${id}`)) ctx.error('BUNDLE_FULLURL_ID_MISMATCH', [fullUrl, rtype, id], hl7EntryPath, at);
          }
        }
      }
      // a canonical resource whose url is its fullUrl: the url must be the RESTful url of its id
      const url = resource?.str('url');
      if (url !== undefined && url === fullUrl && !(restfulParts(url) !== undefined && id !== undefined && url.endsWith('/' + id)) && !isOldHl7Url(url)) {
        ctx.error('BUNDLE_BUNDLE_ENTRY_MISMATCHIDURL', [url, fullUrl, id ?? ''], hl7EntryPath, at);
      }
      if (fullUrl === undefined && !FULLURL_OPTIONAL.has(type)) e.error('BUNDLE_BUNDLE_ENTRY_FULLURL_REQUIRED', []);
      if (rtype !== undefined && id !== undefined) {
        const version = resource?.child('meta')?.object?.versionId;
        const key = `${fullUrl ?? ''}|${rtype}/${id}|${String(version ?? '')}`;
        if (seenIds.has(key)) e.error('BUNDLE_DUPLICATE_ID', [id]);
        else seenIds.add(key);
      }
    }
  }

  validate(ctx: NodeContext, resource: Record<string, unknown>): void {
    // a digital signature over the Bundle's canonical form (bundle-signature.ts); most Bundles have none
    if (resource.signature !== undefined) checkBundleSignature(ctx, resource, resource.signature);
    const bundle = ctx.nodeOf(resource);
    const type = bundle.str('type') ?? '';
    const entries = entriesOf(bundle);
    checkLinks(ctx, bundle, type);
    const index = ctx.host.bundle;
    const first = entries[0];
    if (first === undefined) {
      if (type === 'document' || type === 'message') ctx.error('BUNDLE_BUNDLE_ENTRY_NOFIRST', []);
      return;
    }
    if (!index) return;
    const firstResource = first.child('resource');
    const firstFullUrl = first.str('fullUrl');
    if (type === 'document' || type === 'message') {
      const composition = firstResource?.object;
      if (firstResource === undefined || composition === undefined) {
        first.error('BUNDLE_BUNDLE_ENTRY_NOFIRSTRESOURCE', []);
        if (type === 'document') checkAllInterlinked(ctx, index, entries, bundle, false);
        return;
      }
      // the HL7 validator counts the first entry from 1 here
      const firstPath = `${bundle.path}.entry[1].resource`;
      if (type === 'document') {
        if (composition.resourceType !== 'Composition') ctx.error('BUNDLE_BUNDLE_ENTRY_DOCUMENT', [], firstPath, firstResource.at);
        else checkDocumentReferences(ctx, index, firstResource, firstFullUrl);
        checkAllInterlinked(ctx, index, entries, bundle, false);
      } else {
        if (composition.resourceType !== 'MessageHeader') ctx.error('VALIDATION_BUNDLE_MESSAGE', [], firstPath, firstResource.at);
        else checkMessageReferences(ctx, index, firstResource, firstFullUrl);
        checkAllInterlinked(ctx, index, entries, bundle, true);
      }
    } else if (type === 'searchset') {
      checkSearchSet(ctx, bundle, entries);
    }
  }
}

/** Pre-terminology (v2/v3) canonical urls under hl7.org/fhir, which the HL7 validator lets through. */
function isOldHl7Url(url: string): boolean {
  return url.startsWith('http://hl7.org/fhir/v3/') || url.startsWith('http://hl7.org/fhir/v2/');
}

/**
 * HL7's bundle validation rules (`-bundle <rule> <profile>`): an entry whose resource matches a rule
 * is validated against the rule's profile as well. A rule is `Type:n` (the n-th entry of that type,
 * from 0), `Type:id` (the entry of that type with that id), `Type` or `Type:*` (every entry of
 * that type), or `n` (the n-th entry).
 */
function assignBundleRuleProfiles(ctx: NodeContext, entries: readonly JsonNode[], rules: readonly BundleRule[]): void {
  const countByType = new Map<string, number>();
  entries.forEach((e, index) => {
    const resource = e.child('resource');
    const res = resource?.object;
    const type = resource?.str('resourceType');
    if (resource === undefined || !res || !type) return;
    const ofType = countByType.get(type) ?? 0;
    countByType.set(type, ofType + 1);
    for (const r of rules) {
      if (ruleMatches(r.rule, type, resource.str('id'), ofType, index)) ctx.run.addEntryProfile(res, r.profile);
    }
  });
}

function ruleMatches(rule: string, type: string, id: string | undefined, indexOfType: number, index: number): boolean {
  const colon = rule.indexOf(':');
  if (colon < 0) return /^\d+$/.test(rule) /* linear: one class */ ? Number(rule) === index : rule === type;
  if (rule.slice(0, colon) !== type) return false;
  const which = rule.slice(colon + 1);
  if (which === '*' || which === '') return true;
  return /^\d+$/.test(which) /* linear: one class */ ? Number(which) === indexOfType : which === id;
}
