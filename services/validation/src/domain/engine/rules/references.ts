/**
 * A Reference value (structural walk): its format, its target's type against the element's
 * target profiles, and, inside a Bundle or the resource's contained resources, that it
 * resolves (documents and messages must resolve every reference, unambiguously).
 */
import { parseReference } from '../checks/references.js';
import type { NodeContext } from '../context/node-context.js';
import { isObject } from '../json/json-value.js';
import type { ElementPlan } from '../plan/structure-plan.js';

const CORE_SD = 'http://hl7.org/fhir/StructureDefinition/';

export function checkReference(ctx: NodeContext, v: Record<string, unknown>): void {
  const { path, at, host } = ctx;
  const ref = v.reference;
  if (typeof ref !== 'string') {
    if (v.identifier === undefined && v.display === undefined && v.extension === undefined) ctx.report('warning', 'REFERENCE_NO_DISPLAY', [], path, at);
    return;
  }
  const targets = referenceTargets(ctx, ctx.element);
  const parsed = parseReference(ref);
  if (parsed.kind === 'local') {
    if (parsed.id === '') return; // reference to the container
    const contained = host.root.contained;
    const found = Array.isArray(contained) && contained.some((c) => isObject(c) && c.id === parsed.id);
    if (!found) {
      ctx.report('error', 'REFERENCE_CANT_RESOLVE', [ref], path, at);
      return;
    }
    const target = (contained as Record<string, unknown>[]).find((c) => isObject(c) && c.id === parsed.id);
    if (targets && target && typeof target.resourceType === 'string' && !targets.has(target.resourceType)) {
      ctx.report('error', 'REFERENCE_WRONG_TARGET', [target.resourceType, [...targets].join(', ')], path, at);
    }
    return;
  }
  if (/\s/.test(ref) /* linear: one character class */) {
    ctx.report('error', 'REFERENCE_FORMAT', [ref], path, at);
    return;
  }
  if (targets && parsed.type && ctx.services.plans.isResourceType(parsed.type) && !targets.has(parsed.type)) {
    ctx.report('error', 'REFERENCE_BAD_TARGET', [parsed.type, ref, [...targets].join(', ')], path, at);
    return;
  }
  const bundle = host.bundle;
  if (bundle) {
    let hits = bundle.resolve(ref, host.fullUrl);
    // linear: after each '/_history/' the class runs to the next '/' only
    const version = /\/_history\/([^/]+)$/.exec(ref)?.[1];
    if (version !== undefined) hits = hits.filter((h) => isObject(h.resource?.meta) && (h.resource!.meta as Record<string, unknown>).versionId === version);
    if (bundle.type === 'document' || bundle.type === 'message') {
      // inside documents and messages references must resolve, and unambiguously
      if (hits.length > 1) ctx.report('error', 'REFERENCE_MULTIPLE_MATCHES', [ref], path, at);
      else if (hits.length === 0 && parsed.kind !== 'absolute' && parsed.kind !== 'other') ctx.report('warning', 'REFERENCE_NOT_IN_BUNDLE', [ref], path, at);
    }
    if (hits.length === 1) {
      const target = hits[0]?.resource;
      if (targets && target && typeof target.resourceType === 'string' && !targets.has(target.resourceType)) {
        ctx.report('error', 'REFERENCE_WRONG_TARGET', [target.resourceType, [...targets].join(', ')], path, at);
      }
    }
  }
}

/** Resource types a Reference element may point to; undefined = any. */
function referenceTargets(ctx: NodeContext, el: ElementPlan): Set<string> | undefined {
  const cache = ctx.services.referenceTargets;
  let t = cache.get(el);
  if (t === undefined) {
    const s = new Set<string>();
    let any = false;
    for (const type of el.types) {
      if (type.code !== 'Reference' && type.code !== 'CodeableReference') continue;
      if (type.targetProfiles.length === 0) any = true;
      for (const tp of type.targetProfiles) {
        const name = tp.startsWith(CORE_SD) ? tp.slice(CORE_SD.length) : ctx.services.plans.plan(tp)?.type;
        if (!name || name === 'Resource' || name === 'DomainResource') any = true;
        else s.add(name);
      }
    }
    t = any || s.size === 0 ? null : s;
    cache.set(el, t);
  }
  return t ?? undefined;
}
