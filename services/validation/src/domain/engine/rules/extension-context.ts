/**
 * May this extension sit here? The extension definition's contexts, as the HL7 validator judges
 * them (InstanceValidator.checkExtensionContext):
 * - `element` contexts name an element path or a type ("Patient", "Patient.name", "HumanName",
 *   "Element", "Resource", "BackboneElement", "CanonicalResource"); the element the extension
 *   sits on matches by its path or by its type (and the types that type specialises);
 * - `extension` contexts name the url of the extension the extension may sit in;
 * - `fhirpath` contexts select, from the resource, the elements the extension may sit on;
 * - a context limited to a range of FHIR versions (`version-specific-use`) counts only in R4;
 *   an extension limited to FHIR versions R4 is not in is not allowed at all;
 * - when a context matched, every context invariant must hold on that element.
 */
import type { JsonNode } from '../json/json-node.js';
import type { NodeContext } from '../context/node-context.js';
import type { ElementPlan, StructurePlan } from '../plan/structure-plan.js';
import { inVersionRange, type ExtensionContext } from '../plan/extension-usage.js';

/** The FHIR version the engine validates (R4). */
export const ENGINE_FHIR_VERSION = '4.0.1';

const FHIR_VERSION_NAMES = new Map([['1.0', 'DSTU2'], ['1.4', 'DSTU2.1'], ['3.0', 'STU3'], ['4.0', 'R4'], ['4.3', 'R4B'], ['5.0', 'R5'], ['6.0', 'R6']]);

const CANONICAL_RESOURCES = new Set([
  'ActivityDefinition', 'CapabilityStatement', 'ChargeItemDefinition', 'CodeSystem', 'CompartmentDefinition', 'ConceptMap',
  'EffectEvidenceSynthesis', 'EventDefinition', 'Evidence', 'EvidenceVariable', 'ExampleScenario', 'GraphDefinition',
  'ImplementationGuide', 'Library', 'Measure', 'MessageDefinition', 'NamingSystem', 'ObservationDefinition', 'OperationDefinition',
  'PlanDefinition', 'Questionnaire', 'ResearchDefinition', 'ResearchElementDefinition', 'RiskEvidenceSynthesis', 'SearchParameter',
  'SpecimenDefinition', 'StructureDefinition', 'StructureMap', 'TerminologyCapabilities', 'TestScript', 'ValueSet',
]);

/** The element an extension sits on: its element in the structure being walked, and its value in the JSON. */
export interface ExtensionHost {
  element: ElementPlan;
  plan: StructurePlan;
  /** The JSON object holding the `extension` array (for a primitive: its `_x` object). */
  container: Record<string, unknown>;
  /** The container as a node: HL7 reports context problems where it is (checkExtensionContext gets the container's stack). */
  node: JsonNode;
  /** For a primitive's `_x` companion: the object holding the primitive (an Extension, for its value[x]). */
  owner?: Record<string, unknown>;
}

export function versionName(version: string): string {
  return FHIR_VERSION_NAMES.get(version.split('.').slice(0, 2).join('.')) ?? version;
}

/**
 * Reports what keeps the extension `ext` (at ctx) from sitting on `host`; reports nothing
 * when it may. `modifier`: it sits in modifierExtension.
 */
export function checkExtensionContext(ctx: NodeContext, ext: StructurePlan, host: ExtensionHost, modifier: boolean, extension: Record<string, unknown>): void {
  const url = ext.url;
  if (ext.fhirVersions) {
    const { start, end } = ext.fhirVersions;
    const mm = ENGINE_FHIR_VERSION.split('.').slice(0, 2).join('.');
    if (start !== undefined && !inVersionRange(ENGINE_FHIR_VERSION, { start, end: undefined })) {
      host.node.error('EXTENSION_FHIR_VERSION_EARLIEST', [url, versionName(start), start, versionName(mm), ENGINE_FHIR_VERSION]);
    }
    if (end !== undefined && !inVersionRange(ENGINE_FHIR_VERSION, { start: undefined, end })) {
      host.node.error('EXTENSION_FHIR_VERSION_LATEST', [url, versionName(end), end, versionName(mm), ENGINE_FHIR_VERSION]);
    }
  }
  if (ext.contexts.length === 0) return;
  const paths = hostPaths(ctx, host);
  let versionLimited = false;
  const described: string[] = [];
  let matched = false;
  for (const c of effectiveContexts(ext)) {
    described.push(describe(c));
    if (!inVersionRange(ENGINE_FHIR_VERSION, c.versions)) {
      versionLimited = true;
      continue;
    }
    if (contextMatches(ctx, c, host, paths)) {
      matched = true;
      break;
    }
  }
  const where = paths.join(', ');
  if (!matched) {
    if (versionLimited) {
      host.node.error(modifier ? 'EXTENSION_EXTM_CONTEXT_WRONG_VER' : 'EXTENSION_EXTP_CONTEXT_WRONG_VER', [url, described.join(', '), where, versionName(ENGINE_FHIR_VERSION), ENGINE_FHIR_VERSION]);
    } else {
      host.node.error(modifier ? 'EXTENSION_EXTM_CONTEXT_WRONG' : 'EXTENSION_CONTEXT', [url, described.join(', '), where]);
    }
    return;
  }
  for (const invariant of ext.contextInvariants) {
    const result = ctx.services.invariants.test(invariant, host.plan.type || 'Element', host.container, { resource: ctx.host.resource, rootResource: ctx.host.root, extension });
    if (result === 'fail') {
      host.node.error('PROFILE_EXT_NOT_HERE', [url, invariant]);
      return;
    }
  }
}

function describe(c: ExtensionContext): string {
  const prefix = c.type === 'element' ? 'e:' : c.type === 'extension' ? 'x:' : c.type === 'fhirpath' ? 'p:' : `${c.type}:`;
  return prefix + c.expression;
}

/**
 * The paths the host element is known by (HL7's literal path without indexes, and its logical
 * paths): its element path in the resource, and its type when it has one.
 */
function hostPaths(ctx: NodeContext, host: ExtensionHost): string[] {
  const { element, plan } = host;
  const out = new Set<string>();
  const literal = literalPath(ctx);
  if (literal) out.add(literal);
  if (element === plan.root) {
    out.add(plan.type);
  } else {
    out.add(element.path.replace(/\[x\]/g, '')); // linear: a fixed three-character text
    for (const t of element.types) if (t.code) out.add(t.code);
    // an element defined by contentReference (Questionnaire.item.item) is also known by the path it reuses (Questionnaire.item), as HL7's logical paths
    if (element.contentReference?.startsWith('#')) out.add(element.contentReference.slice(1));
  }
  return [...out].sort();
}

/**
 * Where the extension's host sits in its resource, without indexes and type selections
 * (`Patient.name.given` for `Patient.name[0].given[1].extension[0]`), as HL7's literal path.
 */
function literalPath(ctx: NodeContext): string | undefined {
  const resourcePath = ctx.host.path;
  if (!ctx.path.startsWith(resourcePath)) return undefined;
  const rest = ctx.path.slice(resourcePath.length)
    .replace(/\[\d+\]/g, '') // linear: one class between fixed brackets
    .replace(/\.ofType\([A-Za-z]+\)/g, ''); // linear: fixed text around one class
  const dot = rest.lastIndexOf('.');
  const owner = dot < 0 ? '' : rest.slice(0, dot);
  return String(ctx.host.resource.resourceType) + owner;
}

function contextMatches(ctx: NodeContext, c: ExtensionContext, host: ExtensionHost, paths: readonly string[]): boolean {
  switch (c.type) {
    case 'element':
      return elementContextMatches(ctx, c.expression, host, paths);
    case 'extension':
      // the extension sits inside an extension with that url, or on that extension's value
      return (isExtensionElement(host) && host.container.url === c.expression)
        || (host.element.path === 'Extension.value[x]' && host.owner?.url === c.expression);
    case 'fhirpath': {
      const res = ctx.host.resource;
      const selected = ctx.services.invariants.select(c.expression, String(res.resourceType), res, { resource: res, rootResource: ctx.host.root });
      // an expression we cannot evaluate does not make the extension wrong
      if (!Array.isArray(selected)) return true;
      return selected.some((s) => s.value === host.container || s.companion === host.container);
    }
    default:
      return true;
  }
}

function isExtensionElement(host: ExtensionHost): boolean {
  if (host.element === host.plan.root) return host.plan.type === 'Extension';
  return host.element.types.some((t) => t.code === 'Extension');
}

/**
 * The contexts as the HL7 validator reads them: a few core extension definitions say less than
 * where they are used (HL7's fixContexts), so their contexts are widened the same way.
 */
export function effectiveContexts(ext: StructurePlan): readonly ExtensionContext[] {
  const extra = CONTEXT_FIXES.get(ext.url);
  return extra ? [...ext.contexts, ...extra] : ext.contexts;
}

const CONTEXT_FIXES = new Map<string, ExtensionContext[]>([
  ['http://hl7.org/fhir/StructureDefinition/structuredefinition-fhir-type', [{ type: 'element', expression: 'ElementDefinition.type', versions: undefined }]],
  ['http://hl7.org/fhir/StructureDefinition/regex', [{ type: 'element', expression: 'ElementDefinition.type', versions: undefined }]],
  ['http://hl7.org/fhir/StructureDefinition/structuredefinition-normative-version', [{ type: 'element', expression: 'Element', versions: undefined }]],
  ['http://hl7.org/fhir/StructureDefinition/capabilitystatement-expectation', [{ type: 'element', expression: 'Element', versions: undefined }]],
  ['http://hl7.org/fhir/StructureDefinition/capabilitystatement-prohibited', [{ type: 'element', expression: 'Element', versions: undefined }]],
]);

function elementContextMatches(ctx: NodeContext, expression: string, host: ExtensionHost, paths: readonly string[]): boolean {
  const e = expression.replace(/\[x\]/g, ''); // linear: a fixed three-character text
  if (e === 'Element' || e === 'Any') return true;
  const { element, plan } = host;
  const isResourceRoot = element === plan.root && plan.kind === 'resource';
  if ((e === 'Resource' || e === 'DomainResource') && isResourceRoot) return true;
  if (e === 'CanonicalResource' && isResourceRoot && CANONICAL_RESOURCES.has(plan.type)) return true;
  if (e === 'DataType' && !isResourceRoot) return true;
  for (const p of paths) {
    if (p === e) return true;
    // the host's type or one it specialises ("Quantity" for an Age, "BackboneElement" for Patient.contact)
    const dot = p.indexOf('.');
    const head = dot < 0 ? p : p.slice(0, dot);
    const tail = dot < 0 ? '' : p.slice(dot);
    for (let sd = ctx.services.plans.typePlan(head), guard = 0; sd && guard < 10; guard++) {
      if (sd.type + tail === e) return true;
      const base = sd.baseDefinition;
      sd = base ? ctx.services.plans.plan(base) : undefined;
    }
  }
  // a profile of a resource admits the base paths of its elements ('Patient.name' for a profile's Patient.name)
  if (plan.derivation === 'constraint' && element !== plan.root) {
    const hostPath = element.path.replace(/\[x\]/g, ''); // linear: a fixed three-character text
    const dot = hostPath.indexOf('.');
    if (dot > 0 && e === plan.type + hostPath.slice(dot)) return true;
  }
  return false;
}
