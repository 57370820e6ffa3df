/**
 * A uri, url, canonical or oid value as the target of a reference: HL7's validateReference for the
 * uri family (InstanceValidator), asked of every such value except a canonical resource's own `url`
 * and `Bundle.entry.fullUrl`, and only when the validator has a fetcher (HL7 checks nothing here
 * without one).
 *
 * - `#id` must name something inside the root resource (a contained resource, or an element with
 *   that id). Not found: an error for a uri/url; for a canonical a warning, as HL7 gives it (the
 *   canonical branch raises it to an error only for HL7's own URL spaces).
 * - Any other value resolves when the fetcher says so (`ResourceFetcher.resolvesUrl`). A fetcher
 *   that cannot say (no `resolvesUrl`: the service's stores, the CLI's supporting files) leaves
 *   external values unchecked: HL7's stand-alone fetcher finds them in packages it downloads on
 *   the fly, which this engine does not do, and an error for what HL7 would find must not block a
 *   submission. Example URLs are checked by the value's own rules (checks/primitives.ts).
 * - Not found: a url/uri in HL7's spaces (hl7.org/fhir, terminology.hl7.org, fhir.org/guides) is an
 *   error, elsewhere a warning (`meta.source` a warning whatever its space); a canonical is an error or a
 *   warning (HL7's space or not) when the reference policy checks existence, else information.
 * - A canonical that resolves, under a policy that checks types, must name a resource of a type
 *   its element allows (its targetProfiles).
 */
import { ABSOLUTE_URL, isAbsoluteUrl, isExampleUrl } from '../checks/urls.js';
import { scanNarrative } from '../checks/xhtml.js';
import type { NodeContext } from '../context/node-context.js';
import { isArray, isObject } from '../json/json-value.js';
import type { ElementPlan } from '../plan/structure-plan.js';

/** R4's canonical resource types: their `url` defines the URL, it does not point at one. */
const CANONICAL_RESOURCE_TYPES: ReadonlySet<string> = new Set([
  'ActivityDefinition', 'CapabilityStatement', 'ChargeItemDefinition', 'CodeSystem', 'CompartmentDefinition', 'ConceptMap',
  'EffectEvidenceSynthesis', 'EventDefinition', 'Evidence', 'EvidenceVariable', 'ExampleScenario', 'GraphDefinition',
  'ImplementationGuide', 'Library', 'Measure', 'MessageDefinition', 'NamingSystem', 'OperationDefinition', 'PlanDefinition',
  'Questionnaire', 'ResearchDefinition', 'ResearchElementDefinition', 'RiskEvidenceSynthesis', 'SearchParameter',
  'StructureDefinition', 'StructureMap', 'TerminologyCapabilities', 'TestScript', 'ValueSet',
]);

/** Absolute URL values HL7 does not ask its fetcher about on these elements (they are checked elsewhere, or are not references). */
const EXEMPT_ABSOLUTE: ReadonlySet<string> = new Set([
  'ImplementationGuide.definition.page.name[x]', 'ImplementationGuide.definition.page.nameUrl', 'Bundle.entry.request.url', 'Attachment.url',
  'StructureDefinition.type', 'ElementDefinition.fixed[x]', 'ElementDefinition.pattern[x]', 'ImplementationGuide.dependsOn.uri',
  'StructureDefinition.mapping.uri', 'MessageHeader.source.endpoint', 'MessageHeader.destination.endpoint', 'QuestionnaireResponse.item.definition',
]);

/** Relative values HL7 does not ask about (Extension.url is checked by the extension rules). */
const EXEMPT_RELATIVE: ReadonlySet<string> = new Set([
  'Extension.url', 'ImplementationGuide.definition.page.name[x]', 'ImplementationGuide.definition.page.nameUrl', 'Bundle.entry.request.url',
  'StructureDefinition.type', 'ElementDefinition.fixed[x]', 'ElementDefinition.pattern[x]',
]);

const TYPES_CHECKED: ReadonlySet<string> = new Set(['uri', 'url', 'canonical', 'oid']);

/**
 * The value `url` of a uri-family `type` at ctx (structural walk), when it is not blank: a canonical
 * resource's own `url` must be absolute (HL7: TYPE_SPECIFIC_CHECKS_CANONICAL_ABSOLUTE, or
 * _CONTAINED for a contained resource's); any other value is a reference (below).
 */
export function checkUrlValue(ctx: NodeContext, type: string, url: string): void {
  if (!TYPES_CHECKED.has(type)) return;
  if (isDefiningUrl(ctx.element)) {
    if (!isAbsoluteUrl(url)) {
      const contained = ctx.host.resource !== ctx.host.root;
      ctx.node.report('error', contained ? 'TYPE_SPECIFIC_CHECKS_CANONICAL_CONTAINED' : 'URL_NOT_ABSOLUTE', [url]);
    }
    return;
  }
  checkUrlReference(ctx, type, url);
}

function checkUrlReference(ctx: NodeContext, type: string, url: string): void {
  const { run, element: el } = ctx;
  const fetcher = run.options.fetcher;
  const internal = url.startsWith('#');
  // cheapest first: most values are external and most fetchers cannot say
  if (fetcher === undefined || (!internal && fetcher.resolvesUrl === undefined)) return;
  if (el.path === 'Bundle.entry.fullUrl') return;
  let found: boolean;
  if (internal) {
    const id = url.slice(1);
    const bundle = ctx.host.bundle;
    // HL7's countTargetMatches: the root resource, then (nothing there) the Bundle it sits in
    found = url === '#' || idsInside(ctx.host.root, run.idsByRoot).has(id) || (bundle !== undefined && idsInside(bundle.entries, run.idsByRoot).has(id));
  } else if (isExampleUrl(url)) {
    return;
  } else {
    found = fetcher.resolvesUrl?.(url) ?? true;
  }
  const policy = run.options.referencePolicy;
  if (found) {
    // (a QuestionnaireResponse's questionnaire is checked, type and all, by the Questionnaire validator)
    if (type === 'canonical' && el.path !== 'QuestionnaireResponse.questionnaire' && (policy === 'CHECK_EXISTS_AND_TYPE' || policy === 'CHECK_TYPE_IF_EXISTS' || policy === 'CHECK_VALID')) checkCanonicalTarget(ctx, url, internal, policy);
    return;
  }
  if (type === 'canonical') {
    if (policy === 'CHECK_EXISTS' || policy === 'CHECK_EXISTS_AND_TYPE' || internal) ctx.node.report(isKnownSpace(url) ? 'error' : 'warning', 'CANONICAL_NOT_RESOLVED', [url]);
    else ctx.node.report('information', 'CANONICAL_NOT_RESOLVED', [url]);
    return;
  }
  if (el.path === 'Meta.source') {
    // a source system's id (servers write `#` and a request id there), not a link: a warning at
    // most, as HL7's test outcomes give it for `#abc` there (one warning, no error)
    ctx.node.report('warning', 'URL_NOT_RESOLVED', [url]);
  } else if (isKnownSpace(url) || internal) {
    ctx.node.report('error', 'URL_NOT_RESOLVED', [url]);
  } else if (!(ABSOLUTE_URL.test(url) ? EXEMPT_ABSOLUTE : EXEMPT_RELATIVE).has(el.path)) {
    ctx.node.report('warning', 'URL_NOT_RESOLVED', [url]);
  }
}

/** `X.url` of a canonical resource type: the URL the resource is known by. */
function isDefiningUrl(el: ElementPlan): boolean {
  const dot = el.path.indexOf('.');
  return dot > 0 && el.path.length === dot + 4 && el.path.endsWith('.url') && CANONICAL_RESOURCE_TYPES.has(el.path.slice(0, dot));
}

/** HL7's own URL spaces: a URL there that does not resolve is wrong, not merely unknown. */
function isKnownSpace(url: string): boolean {
  return url.startsWith('http://hl7.org/fhir') || url.startsWith('http://terminology.hl7.org') || url.startsWith('http://fhir.org/guides');
}

/**
 * The ids of everything inside `root` (itself, its contained resources, any element with an id,
 * the `id`s and `name`s of its narratives' elements), HL7's countTargetMatches; gathered once per
 * root (a resource, or a Bundle's entries) and validation.
 */
function idsInside(root: object, cache: WeakMap<object, ReadonlySet<string>>): ReadonlySet<string> {
  let ids = cache.get(root);
  if (ids === undefined) {
    const found = new Set<string>();
    const stack: unknown[] = [root];
    while (stack.length > 0) {
      const v = stack.pop();
      if (isArray(v)) {
        for (const item of v) if (typeof item === 'object' && item !== null) stack.push(item);
      } else if (isObject(v)) {
        if (typeof v.id === 'string') found.add(v.id);
        if (typeof v.div === 'string') for (const anchor of scanNarrative(v.div).anchors) found.add(anchor);
        for (const key in v) {
          const child = v[key];
          if (typeof child === 'object' && child !== null) stack.push(child);
        }
      }
    }
    ids = found;
    cache.set(root, ids);
  }
  return ids;
}

/**
 * A canonical that resolved, under a policy that checks types: the resource it names must be of a
 * type its element allows. Looked for among the root's contained resources (`#id`) and the loaded
 * definitions; under CHECK_VALID one that cannot be loaded is reported as such.
 */
function checkCanonicalTarget(ctx: NodeContext, url: string, internal: boolean, policy: string): void {
  const targets = canonicalTargetTypes(ctx.element);
  let target: Record<string, unknown> | undefined;
  if (internal) {
    const found = ctx.host.resolveReference(url);
    target = isObject(found) ? found : undefined;
  } else {
    const services = ctx.services;
    for (const type of new Set([...targets, 'StructureDefinition', 'ValueSet', 'CodeSystem'])) {
      target = services.resolveCanonical(type, url);
      if (target !== undefined) break;
    }
  }
  if (target === undefined) {
    if (policy === 'CHECK_VALID') ctx.node.report(internal ? 'error' : 'warning', 'CANONICAL_NOT_LOADABLE', [url]);
    return;
  }
  const type = String(target.resourceType);
  if (targets.size > 0 && !targets.has(type) && !targets.has('Resource') && !targets.has('CanonicalResource')) {
    ctx.node.report('error', 'CANONICAL_WRONG_TYPE', [url, type, [...targets].join(', ')]);
  }
}

/** The resource types a canonical element's targetProfiles name (empty: any). */
function canonicalTargetTypes(el: ElementPlan): Set<string> {
  const out = new Set<string>();
  for (const t of el.types) {
    if (t.code !== 'canonical') continue;
    for (const p of t.targetProfiles) {
      const slash = p.lastIndexOf('/');
      if (p.startsWith('http://hl7.org/fhir/StructureDefinition/') && slash >= 0) out.add(p.slice(slash + 1));
    }
  }
  return out;
}
