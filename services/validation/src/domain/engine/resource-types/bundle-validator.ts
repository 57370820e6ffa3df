/**
 * Bundle: indexes the entries by fullUrl before they are walked (so references inside them
 * resolve, HL7's grouping resource), and checks each entry's fullUrl and the uniqueness of
 * entry identities.
 */
import { BundleIndex } from '../checks/references.js';
import { ABSOLUTE_URL } from '../checks/urls.js';
import type { NodeContext } from '../context/node-context.js';
import { isObject } from '../json/json-value.js';
import type { ResourceTypeValidator } from './resource-type-validator.js';

export class BundleValidator implements ResourceTypeValidator {
  readonly resourceTypes = ['Bundle'];

  beforeElements(ctx: NodeContext, bundle: Record<string, unknown>): void {
    const entries = bundle.entry;
    if (!Array.isArray(entries)) return;
    ctx.host.enterBundle(new BundleIndex(entries, typeof bundle.type === 'string' ? bundle.type : undefined));
    const seenIds = new Map<string, number>();
    entries.forEach((e, i) => {
      if (!isObject(e)) return;
      const entryPath = `${ctx.path}.entry[${i}]`;
      const at = ctx.itemPos(entries, i);
      const fullUrl = e.fullUrl;
      const res = e.resource;
      if (typeof fullUrl === 'string') {
        if (!ABSOLUTE_URL.test(fullUrl)) ctx.error('BUNDLE_FULLURL_ABSOLUTE', [fullUrl], entryPath, at);
        else if (isObject(res) && typeof res.resourceType === 'string' && typeof res.id === 'string') {
          // linear: at each '/' that `.+` gives back, the rest covers the next two segments only
          const m = /^https?:\/\/.+\/([A-Z][A-Za-z]+)\/([^/]+)$/.exec(fullUrl);
          if (m && (m[1] !== res.resourceType || m[2] !== res.id)) {
            ctx.error('BUNDLE_FULLURL_ID_MISMATCH', [fullUrl, res.resourceType, res.id], entryPath, at);
          }
        }
      }
      if (isObject(res) && typeof res.resourceType === 'string' && typeof res.id === 'string') {
        const key = `${typeof fullUrl === 'string' ? fullUrl : ''}|${res.resourceType}/${res.id}`;
        const meta = isObject(res.meta) ? res.meta.versionId : undefined;
        const k = key + '|' + String(meta ?? '');
        if (seenIds.has(k)) ctx.error('BUNDLE_DUPLICATE_ID', [res.id], entryPath, at);
        else seenIds.set(k, i);
      }
    });
  }
}
