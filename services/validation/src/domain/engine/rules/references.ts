/**
 * A Reference value (structural walk): its format, its target's type against the element's
 * target profiles, and, inside a Bundle or the resource's contained resources, that it
 * resolves (documents and messages must resolve every reference, unambiguously).
 */
import { hasVersion, parseReference } from '../checks/references.js';
import type { NodeContext } from '../context/node-context.js';
import { isObject } from '../json/json-value.js';
import type { ElementPlan } from '../plan/structure-plan.js';
import type { FetchAnswer, ResourceFetcher } from '../../ports/resource-fetcher.js';
import { conformsTo } from './slicing.js';

const CORE_SD = 'http://hl7.org/fhir/StructureDefinition/';

/** The Reference at ctx (ctx.node). */
export function checkReference(ctx: NodeContext): void {
  const { node, host } = ctx;
  const ref = node.str('reference');
  if (ref === undefined) {
    if (!node.child('identifier') && !node.child('display') && !node.child('extension')) node.warning('REFERENCE_NO_DISPLAY', []);
    return;
  }
  const targets = referenceTargets(ctx, ctx.element);
  const parsed = parseReference(ref);
  if (parsed.kind === 'local') {
    if (parsed.id === '') return; // reference to the container
    const target = host.resolveReference(ref);
    if (!isObject(target)) {
      node.report('error', 'REFERENCE_CANT_RESOLVE', [ref]);
      return;
    }
    if (targets && typeof target.resourceType === 'string' && !targets.has(target.resourceType)) {
      node.report('error', 'REFERENCE_WRONG_TARGET', [target.resourceType, [...targets].join(', ')]);
    }
    return;
  }
  if (/\s/.test(ref) /* linear: one character class */) {
    node.report('error', 'REFERENCE_FORMAT', [ref]);
    return;
  }
  if (targets && parsed.type && ctx.services.plans.isResourceType(parsed.type) && !targets.has(parsed.type)) {
    node.report('error', 'REFERENCE_BAD_TARGET', [parsed.type, ref, [...targets].join(', ')]);
    return;
  }
  const bundle = host.bundle;
  let resolvedInside = false;
  if (bundle) {
    let hits = bundle.resolve(ref, host.fullUrl);
    // linear: after each '/_history/' the class runs to the next '/' only
    const version = /\/_history\/([^/]+)$/.exec(ref)?.[1];
    if (version !== undefined) hits = hits.filter((h) => hasVersion(h.resource, version));
    if (bundle.type === 'document' || bundle.type === 'message') {
      // inside documents and messages references must resolve, and unambiguously
      if (hits.length > 1) node.report('error', 'REFERENCE_MULTIPLE_MATCHES', [ref]);
      else if (hits.length === 0 && parsed.kind !== 'absolute' && parsed.kind !== 'other') node.report('warning', 'REFERENCE_NOT_IN_BUNDLE', [ref]);
    }
    resolvedInside = hits.length > 0;
    if (hits.length === 1) {
      const target = hits[0]?.resource;
      // the entry the reference names holds another type than the reference says
      if (parsed.type && target && typeof target.resourceType === 'string' && target.resourceType !== parsed.type) {
        node.report('error', 'Reference_REF_ResourceType', [ref, target.resourceType]);
      } else if (targets && target && typeof target.resourceType === 'string' && !targets.has(target.resourceType)) {
        node.report('error', 'REFERENCE_WRONG_TARGET', [target.resourceType, [...targets].join(', ')]);
      }
    }
  }
  if (!resolvedInside) checkExternalReference(ctx, ref, targets);
}

/**
 * A reference to a resource outside this one and its Bundle, under HL7's reference policy
 * (ReferenceValidationPolicy, validator-options.ts): resolved through the fetcher when the policy
 * asks for it; one that does not resolve is an error unless the policy only checks types of what
 * exists, or it points at an example host while example URLs are allowed (HL7's checkReference).
 * Silent runs (slice matching) fetch nothing. Conditional references (`Patient?identifier=…`) name
 * a search, not a resource.
 */
function checkExternalReference(ctx: NodeContext, ref: string, targets: Set<string> | undefined): void {
  const { run, node } = ctx;
  const options = run.options;
  const policy = options.referencePolicy;
  if (policy === 'IGNORE' || run.silent || ref.includes('?')) return;
  const exampleHost = options.allowExampleUrls && (ref.includes('example.org') || ref.includes('acme.com'));
  const conclude = (target: FetchAnswer): void => {
    if (!target) {
      if (!exampleHost && policy !== 'CHECK_TYPE_IF_EXISTS') node.report('error', 'REFERENCE_CANT_RESOLVE', [ref]);
      return;
    }
    if (targets && !targets.has(target.resourceType)) {
      node.report('error', 'REFERENCE_WRONG_TARGET', [target.resourceType, [...targets].join(', ')]);
      return;
    }
    if (policy === 'CHECK_VALID') checkTargetProfiles(ctx, ref, target);
  };
  const answer = fetchOnce(run, options.fetcher, ref);
  if (answer instanceof Promise) {
    run.pending.push(answer.then(conclude, (error: unknown) => {
      // as HL7: why resolution failed is information; the reference still did not resolve
      node.report('information', 'REFERENCE_RESOLUTION_FAILED', [ref, error instanceof Error ? error.message : String(error)]);
      conclude(undefined);
    }));
  } else {
    conclude(answer);
  }
}

/** One answer per reference and validation (HL7's fetchCache), whoever asks. */
export function fetchOnce(run: NodeContext['run'], fetcher: ResourceFetcher | undefined, ref: string): FetchAnswer | Promise<FetchAnswer> {
  if (!fetcher) return undefined;
  const cache = run.fetched;
  if (cache.has(ref)) return cache.get(ref);
  let answer: FetchAnswer | Promise<FetchAnswer>;
  try {
    answer = fetcher.fetch(ref);
  } catch (error) {
    answer = Promise.reject(error instanceof Error ? error : new Error(String(error)));
  }
  cache.set(ref, answer);
  return answer;
}

/**
 * CHECK_VALID: the target must follow one of the element's target profiles for its type; only
 * profiles beyond the core definitions are checked (the target's own validity against core is
 * its own validation's business, as HL7 reports it only with -showReferenceMessages).
 */
function checkTargetProfiles(ctx: NodeContext, ref: string, target: Record<string, unknown>): void {
  const profiles: string[] = [];
  let onlyCore = true;
  for (const type of ctx.element.types) {
    if (type.code !== 'Reference') continue;
    for (const url of type.targetProfiles) {
      const plan = ctx.services.plans.plan(url);
      if (plan?.type !== target.resourceType) continue;
      profiles.push(url);
      if (!url.startsWith(CORE_SD)) onlyCore = false;
    }
  }
  if (onlyCore || profiles.length === 0) return;
  if (profiles.some((url) => conformsTo(ctx, target, url))) return;
  ctx.report('error', 'Reference_REF_CantMatchChoice', [ref, [...profiles].sort().join(', ')], ctx.path, ctx.at);
}

/**
 * A profile's restriction of a Reference's target types (profile walk): the type a RESTful or
 * absolute reference names must be one the profile's element allows, as HL7 checks the
 * reference against each profile (REFERENCE_REF_BADTARGETTYPE2).
 */
export function checkReferenceTargetType(ctx: NodeContext, v: Record<string, unknown>): void {
  const ref = v.reference;
  if (typeof ref !== 'string') return;
  const parsed = parseReference(ref);
  if (parsed.kind === 'local' || !parsed.type || !ctx.services.plans.isResourceType(parsed.type)) return;
  const targets = referenceTargets(ctx, ctx.element);
  if (targets && !targets.has(parsed.type)) {
    ctx.report('error', 'REFERENCE_BAD_TARGET', [parsed.type, ref, [...targets].join(', ')], ctx.path, ctx.at);
    return;
  }
  checkExternalTargetProfiles(ctx, ref);
}

/**
 * CHECK_VALID in a profile's walk: HL7 checks references against each profile's element, so a
 * target outside the resource and its Bundle that resolves (through the fetcher, asked once per
 * reference and validation) must follow that profile's target profiles for its type.
 */
function checkExternalTargetProfiles(ctx: NodeContext, ref: string): void {
  const { run } = ctx;
  if (run.options.referencePolicy !== 'CHECK_VALID' || run.silent || ref.includes('?')) return;
  if (!ctx.element.types.some((t) => t.code === 'Reference' && t.targetProfiles.some((url) => !url.startsWith(CORE_SD)))) return;
  if (ctx.host.resolveReference(ref) !== undefined) return;
  const conclude = (target: FetchAnswer): void => {
    if (target) checkTargetProfiles(ctx, ref, target);
  };
  const answer = fetchOnce(run, run.options.fetcher, ref);
  if (answer instanceof Promise) run.pending.push(answer.then(conclude, () => undefined));
  else conclude(answer);
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
