/**
 * The HL7 validator's ValueSetValidator, for what needs no terminology server: each
 * compose.include and compose.exclude names its system as an absolute URI (a `#id` of a
 * contained CodeSystem is reported, and looked for), keeps a version out of the system, imports
 * value sets that exist, and, when the CodeSystem is loaded, draws on one that is not a
 * supplement, with concepts that are codes of it (when it is complete) and filters that suit its
 * properties (terminology/value-set-filters.ts). Concepts or filters without a system cannot be
 * checked (a warning). Codes of systems that are not loaded are left to a terminology server.
 */
import type { NodeContext } from '../context/node-context.js';
import type { JsonNode } from '../json/json-node.js';
import { isArray, isObject } from '../json/json-value.js';
import type { ResourceTypeValidator } from './resource-type-validator.js';
import { isAbsoluteUrl, isExampleUrl } from '../checks/urls.js';
import { codeSet, hasCode, listSystems, str, versioned, type Obj } from './terminology/code-system-model.js';
import { checkFilter, SYSTEMS_WITH_OWN_PROPERTIES } from './terminology/value-set-filters.js';

/** More concepts than this in one include are not checked one by one (as the HL7 validator). */
const TOO_MANY_CODES = 1000;
// linear: fixed alternatives

export class ValueSetValidator implements ResourceTypeValidator {
  readonly resourceTypes = ['ValueSet'];

  validate(ctx: NodeContext, vs: Record<string, unknown>): void {
    const node = ctx.nodeOf(vs);
    const compose = node.child('compose');
    if (compose?.isObject !== true) return;
    for (const inc of compose.objects('include')) checkInclude(ctx, node, inc);
    for (const exc of compose.objects('exclude')) checkInclude(ctx, node, exc);
  }
}

/** An include (exclude) with a system, as its parts are checked: the system without a '|' version, and the version. */
interface IncludeUnderCheck {
  readonly inc: JsonNode;
  readonly system: string;
  readonly version: string | undefined;
}

function checkInclude(ctx: NodeContext, vs: JsonNode, inc: JsonNode): void {
  let system = inc.str('system');
  const version = inc.str('version');
  // a version belongs in include.version, not after a '|' in the system
  if (system?.includes('|')) {
    const bar = system.indexOf('|');
    const inSystem = system.slice(bar + 1);
    system = system.slice(0, bar);
    if (inSystem === '') inc.warning('VALUESET_REFERENCE_INVALID_TYPE_NO_VERSION_0', [system]);
    else if (version === undefined) inc.error('VALUESET_REFERENCE_INVALID_TYPE_NO_VERSION_1', [inSystem]);
    else if (inSystem !== version) inc.error('VALUESET_REFERENCE_INVALID_TYPE_NO_VERSION_2', [inSystem, version]);
    else inc.error('VALUESET_REFERENCE_INVALID_TYPE_NO_VERSION_3', [inSystem]);
  }
  checkImports(ctx, inc);
  const concepts = inc.objects('concept');
  const filters = inc.objects('filter');
  if (system === undefined || system === '') {
    if (concepts.length > 0 || filters.length > 0) inc.warning('VALUESET_NO_SYSTEM_WARNING', []);
    return;
  }
  if (!isAbsoluteUrl(system)) inc.error(system.startsWith('#') ? 'VALUESET_INCLUDE_SYSTEM_ABSOLUTE_FRAG' : 'VALUESET_INCLUDE_SYSTEM_ABSOLUTE', [system]);
  const include: IncludeUnderCheck = { inc, system, version };
  if (system.startsWith('#')) checkContainedSystem(vs, include);

  const source = ctx.services.source;
  const cs = source.codeSystem(versioned(system, version));
  let checkConcepts = true;
  if (cs) {
    const content = str(cs.content);
    const args = [system, content ?? 'null', version];
    const contentId = version === undefined ? 'VALUESET_INCLUDE_CS_CONTENT' : 'VALUESET_INCLUDE_CSVER_CONTENT';
    if (content === undefined || content === 'example') inc.warning(contentId, args);
    else if (content === 'fragment') inc.information(contentId, args);
    else if (content === 'supplement') {
      checkConcepts = false;
      inc.error(version === undefined ? 'VALUESET_INCLUDE_CS_SUPPLEMENT' : 'VALUESET_INCLUDE_CSVER_SUPPLEMENT', [system, cs.supplements, version]);
    }
  } else {
    if (system.startsWith('urn:oid:') && knownOid(ctx, system)) inc.error('VALUESET_INCLUDE_WRONG_CS_OID', [system]);
    const other = source.valueSet(versioned(system, version));
    if (other) {
      checkConcepts = false;
      const systems = listSystems(other);
      if (systems.length === 0) inc.error('VALUESET_INCLUDE_WRONG_VS', [system]);
      else if (systems.length === 1) inc.error('VALUESET_INCLUDE_WRONG_VS_HINT', [system, systems[0]]);
      else inc.error('VALUESET_INCLUDE_WRONG_VS_MANY', [system, systems.join(', ')]);
    }
  }
  if (checkConcepts) checkConceptCodes(ctx, include, concepts, cs);
  // filters on systems with properties of their own are for a terminology server to judge
  if (!SYSTEMS_WITH_OWN_PROPERTIES.has(system)) {
    for (const f of filters) checkFilter({ system, cs }, f);
  }
}

/** include.valueSet: each must be a ValueSet that can be found (an implicit one, `?fhir_vs`, is taken as found). */
function checkImports(ctx: NodeContext, inc: JsonNode): void {
  const imports = inc.children('valueSet');
  for (const item of imports) {
    const url = item.string;
    if (url === undefined || url.includes('?fhir_vs')) continue;
    const source = ctx.services.source;
    if (source.valueSet(url)) continue;
    const other = source.codeSystem(url) ?? source.structureDefinition(url) ?? ctx.services.resolve('Resource', url);
    if (isObject(other) && typeof other.resourceType === 'string') item.warning('VALUESET_REFERENCE_INVALID_TYPE', [url, other.resourceType]);
    else item.warning('VALUESET_REFERENCE_UNKNOWN', [url]);
  }
  if (imports.length > 1) inc.warning('VALUESET_IMPORT_UNION_INTERSECTION', []);
}

/** A `#id` system: the contained resource with that id must be one CodeSystem (of the version, when given). */
function checkContainedSystem(vs: JsonNode, include: IncludeUnderCheck): void {
  const { inc, system, version } = include;
  let matches = 0;
  for (const c of vs.objects('contained')) {
    if (`#${String(c.object?.id)}` !== system) continue;
    const type = c.object?.resourceType;
    if (type !== 'CodeSystem') {
      inc.error('VALUESET_INCLUDE_CS_NOT_CS', [system, type]);
    } else if (version === undefined || version === c.object?.version) {
      matches++;
    }
  }
  if (matches === 0) inc.error(version === undefined ? 'VALUESET_INCLUDE_CS_NOT_FOUND' : 'VALUESET_INCLUDE_CSVER_NOT_FOUND', [system, version]);
  else if (matches > 1) inc.error(version === undefined ? 'VALUESET_INCLUDE_CS_MULTI_FOUND' : 'VALUESET_INCLUDE_CSVER_MULTI_FOUND', [system, version]);
}

/** Whether a loaded CodeSystem carries this OID as an identifier (loaded definitions are read as raw JSON). */
function knownOid(ctx: NodeContext, oid: string): boolean {
  for (const cs of ctx.services.source.all('CodeSystem')) {
    const ids = isArray(cs.identifier) ? cs.identifier : isObject(cs.identifier) ? [cs.identifier] : [];
    if (ids.some((id) => isObject(id) && id.value === oid)) return true;
  }
  return false;
}

/**
 * include.concept: each code must be in the CodeSystem when it is loaded and complete; an
 * unloaded example system cannot be checked (a hint, an error where example URLs are not
 * allowed); displays are given on all concepts or none.
 */
function checkConceptCodes(ctx: NodeContext, include: IncludeUnderCheck, concepts: readonly JsonNode[], cs: Obj | undefined): void {
  const { inc, system, version } = include;
  if (concepts.length > TOO_MANY_CODES) {
    inc.information('VALUESET_INC_TOO_MANY_CODES', [concepts.length]);
    return;
  }
  if (concepts.length === 0) return;
  let withDisplay = false;
  let withoutDisplay = false;
  for (const c of concepts) {
    const display = c.str('display');
    if (display !== undefined && display !== '') withDisplay = true;
    else withoutDisplay = true;
  }
  if (withDisplay && withoutDisplay) inc.information('VALUESET_CONCEPT_DISPLAY_PRESENCE_MIXED', []);
  if (!cs) {
    if (isExampleUrl(system)) {
      if (ctx.run.options.allowExampleUrls) inc.information('VALUESET_EXAMPLE_SYSTEM_HINT', [system]);
      else inc.error('VALUESET_EXAMPLE_SYSTEM_ERROR', [system]);
    }
    return;
  }
  if (cs.content !== 'complete') return;
  const codes = codeSet(cs);
  for (const c of concepts) {
    const code = c.str('code');
    if (code === undefined || hasCode(cs, codes, code)) continue;
    const reason = `Unknown code '${code}' in the CodeSystem '${system}'` + (typeof cs.version === 'string' ? ` version '${cs.version}'` : '');
    if (version === undefined) c.error('VALUESET_INCLUDE_INVALID_CONCEPT_CODE', [system, code, reason]);
    else c.error('VALUESET_INCLUDE_INVALID_CONCEPT_CODE_VER', [system, version, code, reason]);
  }
}
