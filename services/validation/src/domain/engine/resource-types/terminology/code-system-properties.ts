/**
 * CodeSystem.property (the definitions) and CodeSystem.concept.property (the values), as the
 * HL7 validator's CodeSystemValidator checks them: each definition has a unique code and URI,
 * an HL7 URI must be one of the standard concept properties with its standard code and type,
 * and each value must be defined, present and of the defined type; a code value of a
 * parent/child/partOf/synonym property (or of a code property with no value set) must be a
 * code of this code system. Value sets named for code properties are not expanded here.
 */
import type { NodeContext } from '../../context/node-context.js';
import { isAbsoluteUrl, objects, str, type Obj } from './code-system-model.js';

/** The standard concept properties (http://hl7.org/fhir/concept-properties) and their types. */
const KNOWN_PROPERTIES: Record<string, string> = {
  status: 'code', inactive: 'boolean', effectiveDate: 'dateTime', deprecationDate: 'dateTime', retirementDate: 'dateTime',
  notSelectable: 'boolean', parent: 'code', child: 'code', partOf: 'code', synonym: 'code', comment: 'string', itemWeight: 'decimal',
};
const KNOWN_URI_BASE = 'http://hl7.org/fhir/concept-properties#';

/** How the code values of a property are checked against this code system's codes. */
type CodeRule = 'internal' | 'internal-warning' | undefined;

export interface PropertyDef {
  type: string | undefined;
  rule: CodeRule;
}

const knownCode = (code: string | undefined): string | undefined => (code !== undefined && Object.hasOwn(KNOWN_PROPERTIES, code) ? code : undefined);

/** The property definitions of a CodeSystem, by URI and by code, reporting what is wrong with them. */
export function checkPropertyDefinitions(ctx: NodeContext, cs: Obj): Map<string, PropertyDef> {
  const defs = new Map<string, PropertyDef>();
  const url = str(cs.url);
  objects(cs.property).forEach((p, i) => {
    const path = `${ctx.path}.property[${i}]`;
    const at = ctx.pos(p);
    const uri = str(p.uri);
    const code = str(p.code);
    const type = str(p.type);
    const def: PropertyDef = { type, rule: undefined };
    let byUri: string | undefined;
    if (uri !== undefined) {
      if (!isAbsoluteUrl(uri)) {
        ctx.error('CODESYSTEM_PROPERTY_ABSOLUTE_URI', [uri], path, at);
      } else {
        if (defs.has(uri)) ctx.error('CODESYSTEM_PROPERTY_DUPLICATE_URI', [uri], path, at);
        else defs.set(uri, def);
        if (uri.includes('://hl7.org/fhir')) {
          byUri = uri.startsWith(KNOWN_URI_BASE) ? knownCode(uri.slice(KNOWN_URI_BASE.length)) : undefined;
          const selfOrBase = url !== undefined && (isBaseSpec(url) || uri.startsWith(url));
          if (byUri === undefined && !selfOrBase) ctx.error('CODESYSTEM_PROPERTY_BAD_HL7_URI', [uri], path, at);
        }
      }
    }
    const byCode = knownCode(code);
    if (code !== undefined) {
      if (defs.has(code)) ctx.error('CODESYSTEM_PROPERTY_DUPLICATE_CODE', [code], path, at);
      else defs.set(code, def);
    }
    if (byUri !== undefined) {
      const knownType = KNOWN_PROPERTIES[byUri];
      if (byCode !== undefined && byCode !== byUri) ctx.error('CODESYSTEM_PROPERTY_URI_CODE_MISMATCH', [uri, byUri, code], path, at);
      if (type !== undefined && type !== knownType) ctx.error('CODESYSTEM_PROPERTY_URI_TYPE_MISMATCH', [uri, knownType, type], path, at);
      if (byUri === 'parent' || byUri === 'child' || byUri === 'partOf' || byUri === 'synonym') def.rule = 'internal';
    } else if (type === 'code' && !hasValueSetExtension(p)) {
      def.rule = 'internal-warning';
      ctx.information('CODESYSTEM_PROPERTY_CODE_DEFAULT_WARNING', ['code'], path, at);
    }
    if (uri === undefined) {
      if (byCode === undefined) {
        ctx.information('CODESYSTEM_PROPERTY_UNKNOWN_CODE', [code], path, at);
      } else {
        ctx.warning('CODESYSTEM_PROPERTY_KNOWN_CODE_SUGGESTIVE', [code, KNOWN_URI_BASE + byCode], path, at);
        const knownType = KNOWN_PROPERTIES[byCode];
        if (type !== undefined && type !== knownType) ctx.warning('CODESYSTEM_PROPERTY_CODE_TYPE_MISMATCH', [code, knownType, type], path, at);
      }
    }
  });
  return defs;
}

/** A url of the base specification (`http://hl7.org/fhir/xxx`, nothing further). */
function isBaseSpec(url: string): boolean {
  const base = 'http://hl7.org/fhir/';
  return url.startsWith(base) && !url.slice(base.length).includes('/');
}

function hasValueSetExtension(p: Obj): boolean {
  return objects(p.extension).some((e) => e.url === 'http://hl7.org/fhir/StructureDefinition/codesystem-property-valueset');
}

/** The value[x] of a concept property: its FHIR type and value. */
function propertyValue(p: Obj): { type: string; value: unknown } | undefined {
  for (const key of Object.keys(p)) {
    if (key.startsWith('value') && key.length > 5) {
      const t = key.slice(5);
      const type = t === 'Coding' ? t : t.charAt(0).toLowerCase() + t.slice(1);
      return { type, value: p[key] };
    }
  }
  return undefined;
}

/**
 * The property values of every concept (nested ones included): `codes` are this code system's
 * codes as written. A code value is checked once (the HL7 validator's seen-codes cache).
 */
export function checkConceptProperties(ctx: NodeContext, cs: Obj, defs: Map<string, PropertyDef>, codes: Set<string>): void {
  const seen = new Set<string>();
  const supplements = str(cs.supplements);
  const walk = (concepts: Obj[], basePath: string) => {
    concepts.forEach((concept, ci) => {
      const cpath = `${basePath}.concept[${ci}]`;
      objects(concept.property).forEach((p, i) => {
        const path = `${cpath}.property[${i}]`;
        const at = ctx.pos(p);
        const code = str(p.code);
        if (code === undefined) return;
        const def = defs.get(code);
        if (!def) ctx.warning('CODESYSTEM_PROPERTY_UNDEFINED', [code], path, at);
        const value = propertyValue(p);
        if (!value) {
          ctx.error('CODESYSTEM_PROPERTY_NO_VALUE', [code], path, at);
          return;
        }
        if (def) {
          if (value.type !== def.type) ctx.error('CODESYSTEM_PROPERTY_WRONG_TYPE', [code, value.type, def.type], path, at);
          else if (value.type === 'code' && typeof value.value === 'string' && def.rule !== undefined && supplements === undefined && !seen.has(value.value)) {
            // a supplement's codes are the base system's: left to a terminology server
            seen.add(value.value);
            if (!codes.has(value.value)) ctx.report(def.rule === 'internal' ? 'error' : 'warning', 'CODESYSTEM_PROPERTY_BAD_INTERNAL_REFERENCE', [value.value], path, at);
          }
        }
        if (code === 'synonym' && (typeof value.value !== 'string' || !codes.has(value.value))) {
          ctx.warning('CODESYSTEM_PROPERTY_SYNONYM_CHECK', [typeof value.value === 'string' ? value.value : null], path, at);
        }
      });
      walk(objects(concept.concept), cpath);
    });
  };
  walk(objects(cs.concept), ctx.path);
}
