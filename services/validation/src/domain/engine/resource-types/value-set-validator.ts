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
import { isArray, isObject } from '../json/json-value.js';
import type { ResourceTypeValidator } from './resource-type-validator.js';
import { codeSet, hasCode, isAbsoluteUrl, listSystems, objects, str, versioned, type Obj } from './terminology/code-system-model.js';
import { checkFilter, SYSTEMS_WITH_OWN_PROPERTIES } from './terminology/value-set-filters.js';

/** More concepts than this in one include are not checked one by one (as the HL7 validator). */
const TOO_MANY_CODES = 1000;
// linear: fixed alternatives
const EXAMPLE_URL_RE = /example\.(org|com)|acme\.com/i;

export class ValueSetValidator implements ResourceTypeValidator {
  readonly resourceTypes = ['ValueSet'];

  validate(ctx: NodeContext, vs: Record<string, unknown>): void {
    const compose = vs.compose;
    if (!isObject(compose)) return;
    const composePath = `${ctx.path}.compose`;
    objects(compose.include).forEach((inc, i) => checkInclude(ctx, vs, inc, `${composePath}.include[${i}]`));
    objects(compose.exclude).forEach((exc, i) => checkInclude(ctx, vs, exc, `${composePath}.exclude[${i}]`));
  }
}

/** An include (exclude) with a system, as its parts are checked: the system without a '|' version, the version, and where it stands. */
interface IncludeUnderCheck {
  readonly inc: Obj;
  readonly system: string;
  readonly version: string | undefined;
  readonly path: string;
}

function checkInclude(ctx: NodeContext, vs: Obj, inc: Obj, path: string): void {
  const at = ctx.pos(inc);
  let system = str(inc.system);
  const version = str(inc.version);
  // a version belongs in include.version, not after a '|' in the system
  if (system?.includes('|')) {
    const bar = system.indexOf('|');
    const inSystem = system.slice(bar + 1);
    system = system.slice(0, bar);
    if (inSystem === '') ctx.warning('VALUESET_REFERENCE_INVALID_TYPE_NO_VERSION_0', [system], path, at);
    else if (version === undefined) ctx.error('VALUESET_REFERENCE_INVALID_TYPE_NO_VERSION_1', [inSystem], path, at);
    else if (inSystem !== version) ctx.error('VALUESET_REFERENCE_INVALID_TYPE_NO_VERSION_2', [inSystem, version], path, at);
    else ctx.error('VALUESET_REFERENCE_INVALID_TYPE_NO_VERSION_3', [inSystem], path, at);
  }
  checkImports(ctx, inc, path);
  const concepts = objects(inc.concept);
  const filters = objects(inc.filter);
  if (system === undefined || system === '') {
    if (concepts.length > 0 || filters.length > 0) ctx.warning('VALUESET_NO_SYSTEM_WARNING', [], path, at);
    return;
  }
  if (!isAbsoluteUrl(system)) ctx.error(system.startsWith('#') ? 'VALUESET_INCLUDE_SYSTEM_ABSOLUTE_FRAG' : 'VALUESET_INCLUDE_SYSTEM_ABSOLUTE', [system], path, at);
  const include: IncludeUnderCheck = { inc, system, version, path };
  if (system.startsWith('#')) checkContainedSystem(ctx, vs, include);

  const source = ctx.services.source;
  const cs = source.codeSystem(versioned(system, version));
  let checkConcepts = true;
  if (cs) {
    const content = str(cs.content);
    const args = [system, content ?? 'null', version];
    const contentId = version === undefined ? 'VALUESET_INCLUDE_CS_CONTENT' : 'VALUESET_INCLUDE_CSVER_CONTENT';
    if (content === undefined || content === 'example') ctx.warning(contentId, args, path, at);
    else if (content === 'fragment') ctx.information(contentId, args, path, at);
    else if (content === 'supplement') {
      checkConcepts = false;
      ctx.error(version === undefined ? 'VALUESET_INCLUDE_CS_SUPPLEMENT' : 'VALUESET_INCLUDE_CSVER_SUPPLEMENT', [system, cs.supplements, version], path, at);
    }
  } else {
    if (system.startsWith('urn:oid:') && knownOid(ctx, system)) ctx.error('VALUESET_INCLUDE_WRONG_CS_OID', [system], path, at);
    const other = source.valueSet(versioned(system, version));
    if (other) {
      checkConcepts = false;
      const systems = listSystems(other);
      if (systems.length === 0) ctx.error('VALUESET_INCLUDE_WRONG_VS', [system], path, at);
      else if (systems.length === 1) ctx.error('VALUESET_INCLUDE_WRONG_VS_HINT', [system, systems[0]], path, at);
      else ctx.error('VALUESET_INCLUDE_WRONG_VS_MANY', [system, systems.join(', ')], path, at);
    }
  }
  if (checkConcepts) checkConceptCodes(ctx, include, concepts, cs);
  // filters on systems with properties of their own are for a terminology server to judge
  if (!SYSTEMS_WITH_OWN_PROPERTIES.has(system)) {
    filters.forEach((f, i) => checkFilter({ ctx, system, cs }, f, `${path}.filter[${i}]`));
  }
}

/** include.valueSet: each must be a ValueSet that can be found (an implicit one, `?fhir_vs`, is taken as found). */
function checkImports(ctx: NodeContext, inc: Obj, path: string): void {
  const imports = isArray(inc.valueSet) ? inc.valueSet : [];
  imports.forEach((url, i) => {
    if (typeof url !== 'string' || url.includes('?fhir_vs')) return;
    const source = ctx.services.source;
    if (source.valueSet(url)) return;
    const other = source.codeSystem(url) ?? source.structureDefinition(url) ?? ctx.services.resolve('Resource', url);
    const ipath = `${path}.valueSet[${i}]`;
    const at = ctx.itemPos(imports, i);
    if (isObject(other) && typeof other.resourceType === 'string') ctx.warning('VALUESET_REFERENCE_INVALID_TYPE', [url, other.resourceType], ipath, at);
    else ctx.warning('VALUESET_REFERENCE_UNKNOWN', [url], ipath, at);
  });
  if (imports.length > 1) ctx.warning('VALUESET_IMPORT_UNION_INTERSECTION', [], path, ctx.pos(inc));
}

/** A `#id` system: the contained resource with that id must be one CodeSystem (of the version, when given). */
function checkContainedSystem(ctx: NodeContext, vs: Obj, include: IncludeUnderCheck): void {
  const { inc, system, version, path } = include;
  const at = ctx.pos(inc);
  let matches = 0;
  for (const c of objects(vs.contained)) {
    if (`#${String(c.id)}` !== system) continue;
    if (c.resourceType !== 'CodeSystem') {
      ctx.error('VALUESET_INCLUDE_CS_NOT_CS', [system, c.resourceType], path, at);
    } else if (version === undefined || version === c.version) {
      matches++;
    }
  }
  if (matches === 0) ctx.error(version === undefined ? 'VALUESET_INCLUDE_CS_NOT_FOUND' : 'VALUESET_INCLUDE_CSVER_NOT_FOUND', [system, version], path, at);
  else if (matches > 1) ctx.error(version === undefined ? 'VALUESET_INCLUDE_CS_MULTI_FOUND' : 'VALUESET_INCLUDE_CSVER_MULTI_FOUND', [system, version], path, at);
}

/** Whether a loaded CodeSystem carries this OID as an identifier. */
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
function checkConceptCodes(ctx: NodeContext, include: IncludeUnderCheck, concepts: Obj[], cs: Obj | undefined): void {
  const { inc, system, version, path } = include;
  const at = ctx.pos(inc);
  if (concepts.length > TOO_MANY_CODES) {
    ctx.information('VALUESET_INC_TOO_MANY_CODES', [concepts.length], path, at);
    return;
  }
  if (concepts.length === 0) return;
  let withDisplay = false;
  let withoutDisplay = false;
  for (const c of concepts) {
    if (typeof c.display === 'string' && c.display !== '') withDisplay = true;
    else withoutDisplay = true;
  }
  if (withDisplay && withoutDisplay) ctx.information('VALUESET_CONCEPT_DISPLAY_PRESENCE_MIXED', [], path, at);
  if (!cs) {
    if (EXAMPLE_URL_RE.test(system)) {
      if (ctx.run.options.allowExampleUrls) ctx.information('VALUESET_EXAMPLE_SYSTEM_HINT', [system], path, at);
      else ctx.error('VALUESET_EXAMPLE_SYSTEM_ERROR', [system], path, at);
    }
    return;
  }
  if (cs.content !== 'complete') return;
  const codes = codeSet(cs);
  concepts.forEach((c, i) => {
    if (typeof c.code !== 'string' || hasCode(cs, codes, c.code)) return;
    const reason = `Unknown code '${c.code}' in the CodeSystem '${system}'` + (typeof cs.version === 'string' ? ` version '${cs.version}'` : '');
    const cpath = `${path}.concept[${i}]`;
    if (version === undefined) ctx.error('VALUESET_INCLUDE_INVALID_CONCEPT_CODE', [system, c.code, reason], cpath, ctx.pos(c));
    else ctx.error('VALUESET_INCLUDE_INVALID_CONCEPT_CODE_VER', [system, version, c.code, reason], cpath, ctx.pos(c));
  });
}
