/**
 * An extension found in the structural walk: resolved by url (unknown, modifier or not,
 * allowed in this context), then walked against its definition as a profile.
 */
import { ABSOLUTE_URL } from '../checks/urls.js';
import type { NodeContext } from '../context/node-context.js';
import type { ElementPlan, StructurePlan } from '../plan/structure-plan.js';
import { walkObject } from '../walk/object-walker.js';

/** Cross-version extensions (http://hl7.org/fhir/5.0/StructureDefinition/extension-...) are known by construction. */
// Linear: anchored, fixed text and one class of digits and dots.
const CROSS_VERSION_EXTENSION = /^http:\/\/hl7\.org\/fhir\/[0-9.]+\/StructureDefinition\/extension-/;

/**
 * The extension `ext` at ctx (an item of `extension` or `modifierExtension`, ctx.plan the
 * structure it sits in) on the element `host`.
 */
export function resolveExtension(ctx: NodeContext, ext: Record<string, unknown>, host: ElementPlan): void {
  const { path, at } = ctx;
  const hostPlan = ctx.plan;
  const modifier = ctx.element.name === 'modifierExtension';
  const insideExtension = hostPlan.type === 'Extension';
  const url = ext.url;
  if (typeof url !== 'string') {
    ctx.report('error', 'EXTENSION_NO_URL', [], path, at);
    return;
  }
  const plan = ctx.services.plans.plan(url);
  if (!plan) {
    if (CROSS_VERSION_EXTENSION.test(url)) return;
    // sub-extensions of a complex extension have relative urls: the parent's definition slices them
    if (insideExtension && !ABSOLUTE_URL.test(url)) return;
    const severity = ctx.services.options.unknownExtensionSeverity;
    if (modifier) ctx.report('error', 'EXTENSION_MODIFIER_UNKNOWN', [url], path, at);
    else if (!ABSOLUTE_URL.test(url)) ctx.report('error', 'EXTENSION_URL_NOT_ABSOLUTE', [url], `${path}.url`, at);
    else if (severity === 'error') ctx.report('error', 'EXTENSION_UNKNOWN', [url], path, at);
    else ctx.report(severity, 'EXTENSION_UNKNOWN_ALLOWED', [url], path, at);
    return;
  }
  if (!plan.root?.ownChildren) return;
  if (plan.root.isModifier !== modifier && plan.type === 'Extension') {
    ctx.report('error', modifier ? 'EXTENSION_NOT_MODIFIER' : 'EXTENSION_IS_MODIFIER', [url], path, at);
  }
  const allowed = extensionAllowedHere(plan, host, hostPlan);
  if (allowed !== true) {
    ctx.report('error', 'EXTENSION_CONTEXT', [url, allowed, host.path || hostPlan.type], path, at);
  }
  walkObject(ctx.againstProfile(plan, ctx.depth + 1), ext, plan.root.ownChildren);
}

/**
 * Extension context rules (StructureDefinition.context): true when the extension may sit on
 * this element, else the list of allowed contexts for the message. Only 'element' contexts
 * are judged; 'fhirpath' and 'extension' contexts are accepted.
 */
function extensionAllowedHere(ext: StructurePlan, host: ElementPlan, hostPlan: StructurePlan): true | string {
  if (ext.contexts.length === 0) return true;
  const hostPath = host.path.replace(/\[x\]/g, ''); // linear (and below): a fixed three-character text
  const hostTypes = host === hostPlan.root ? [hostPlan.type] : host.types.map((t) => t.code);
  const isResourceRoot = host === hostPlan.root && hostPlan.kind === 'resource';
  const isBackbone = hostTypes.includes('BackboneElement');
  // an element defined by contentReference (Questionnaire.item.item) is also known by the path it reuses (Questionnaire.item), as HL7's logical paths
  const reusedPath = host.contentReference?.startsWith('#') ? host.contentReference.slice(1) : undefined;
  for (const c of ext.contexts) {
    if (c.type !== 'element') return true;
    const e = (c.expression ?? '').replace(/\[x\]/g, '');
    // a context on a child of the host is accepted too (the HL7 validator does for core extensions such as structuredefinition-fhir-type)
    if (e === 'Element' || e === hostPath || e === reusedPath || hostTypes.includes(e) || e.startsWith(hostPath + '.')) return true;
    if ((e === 'Resource' || e === 'DomainResource') && isResourceRoot) return true;
    if (e === 'BackboneElement' && isBackbone) return true;
    if (e === 'DataType' && !isResourceRoot) return true;
    // a context on a base path also admits profiles of that type's elements (e.g. 'Patient.name' for 'HumanName' hosts)
    if (hostPlan.derivation === 'constraint' && e === hostPlan.type + hostPath.slice(hostPath.indexOf('.') < 0 ? hostPath.length : hostPath.indexOf('.'))) return true;
  }
  return ext.contexts.map((c) => c.expression).join(', ');
}
