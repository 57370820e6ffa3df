/**
 * Cross-version extensions: `http://hl7.org/fhir/[version]/StructureDefinition/extension-[element id]`
 * carries an element of another FHIR version. The HL7 validator does not look these up: it
 * builds their definition from its tables of every version's elements (XVerExtensionManager).
 *
 * - A version that is not a FHIR release with such elements is an error (invalid Version).
 * - R4 (`4.0`) elements: the engine has R4's definitions, so the definition is built as the HL7
 *   validator builds it: an unknown element id is an error (invalid Element id); an element
 *   with datatypes becomes a simple extension whose value takes those types, used on the
 *   element's parent; a backbone element (a complex extension) is accepted unchecked.
 * - Other releases (1.0, 3.0, 4.3, 5.0): their definitions are not shipped with the engine, so
 *   their extensions are accepted as they are (no value or context checks).
 */
import type { CanonicalResource } from '../../ports/conformance-resources.js';
import type { NodeContext } from '../context/node-context.js';
import type { ElementPlan, StructurePlan } from '../plan/structure-plan.js';
import { isArray, isObject } from '../json/json-value.js';

// Linear: anchored, a fixed text, one digit, a dot, one digit, a fixed text, then one run to the end.
const CROSS_VERSION_URL = /^http:\/\/hl7\.org\/fhir\/(\d\.\d)\/StructureDefinition\/extension-(.+)$/;

/** FHIR releases the HL7 validator has cross-version element tables for. */
const XVER_RELEASES = new Set(['1.0', '3.0', '4.0', '4.3', '5.0']);

/** The release whose definitions the engine has. */
const OWN_RELEASE = '4.0';

const CORE_EXTENSION = 'http://hl7.org/fhir/StructureDefinition/Extension';

/**
 * For a cross-version url: the definition to validate against, `accepted` (valid but not
 * checkable here), or `reported` (invalid, reported at ctx). Undefined: not a cross-version url.
 */
export function crossVersionExtension(ctx: NodeContext, url: string): StructurePlan | 'accepted' | 'reported' | undefined {
  const m = CROSS_VERSION_URL.exec(url);
  const release = m?.[1];
  const elementId = m?.[2];
  if (release === undefined || elementId === undefined) return undefined;
  if (!XVER_RELEASES.has(release)) {
    ctx.error('EXTENSION_EXT_VERSION_INVALID', [url, release]);
    return 'reported';
  }
  if (release !== OWN_RELEASE) return 'accepted';
  const plans = ctx.services.plans;
  const cached = plans.synthesised(url, () => buildR4Definition(ctx, url, elementId));
  if (cached === undefined) {
    ctx.error('EXTENSION_EXT_VERSION_INVALIDID', [url, elementId]);
    return 'reported';
  }
  return cached ?? 'accepted';
}

/** The R4 element an id names ("Patient.contact.name", "Observation.value" for value[x]). */
function r4Element(ctx: NodeContext, elementId: string): ElementPlan | undefined {
  const dot = elementId.indexOf('.');
  const type = dot < 0 ? elementId : elementId.slice(0, dot);
  const plan = ctx.services.plans.typePlan(type);
  if (!plan?.hasSnapshot || dot < 0) return undefined;
  return plan.byId.get(elementId) ?? plan.byId.get(elementId + '[x]');
}

/**
 * A StructureDefinition for an R4 element as an extension; null for an element that is a
 * backbone (accepted unchecked); undefined for an element R4 does not have.
 */
function buildR4Definition(ctx: NodeContext, url: string, elementId: string): CanonicalResource | null | undefined {
  const el = r4Element(ctx, elementId);
  if (!el) return undefined;
  const types = el.types.filter((t) => t.code && t.code !== 'BackboneElement' && t.code !== 'Element');
  if (types.length === 0 || el.contentReference) return null;
  const snapshot = ctx.services.source.structureDefinition(CORE_EXTENSION)?.snapshot;
  const baseElements = isObject(snapshot) ? snapshot.element : undefined;
  if (!isArray(baseElements)) return null;
  const element = baseElements.filter(isObject).map((ed) => {
    const copy: Record<string, unknown> = { ...ed };
    switch (ed.path) {
      case 'Extension':
        if (el.isModifier) copy.isModifier = true;
        break;
      case 'Extension.extension':
        copy.max = '0';
        break;
      case 'Extension.url':
        copy.fixedUri = url;
        break;
      case 'Extension.value[x]':
        copy.min = 1;
        copy.type = types.map((t) => ({ code: t.code, ...(t.targetProfiles.length ? { targetProfile: [...t.targetProfiles] } : {}) }));
        break;
    }
    return copy;
  });
  const parent = elementId.slice(0, elementId.lastIndexOf('.'));
  return {
    resourceType: 'StructureDefinition',
    url,
    version: '4.0.1',
    name: `Extension-${OWN_RELEASE}-${elementId}`,
    status: 'active',
    kind: 'complex-type',
    abstract: false,
    context: [{ type: 'element', expression: parent }],
    type: 'Extension',
    baseDefinition: CORE_EXTENSION,
    derivation: 'constraint',
    snapshot: { element },
  };
}
