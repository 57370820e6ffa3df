/**
 * CodeSystem.property (the definitions) and CodeSystem.concept.property (the values), as the
 * HL7 validator's CodeSystemValidator checks them: each definition has a unique code and URI,
 * an HL7 URI must be one of the standard concept properties with its standard code and type,
 * and each value must be defined, present and of the defined type; a code value of a
 * parent/child/partOf/synonym property (or of a code property with no value set) must be a
 * code of this code system. Value sets named for code properties are not expanded here.
 */
import type { JsonNode } from '../../json/json-node.js';
import { isAbsoluteUrl } from '../../checks/urls.js';

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
export function checkPropertyDefinitions(cs: JsonNode): Map<string, PropertyDef> {
  const defs = new Map<string, PropertyDef>();
  const url = cs.str('url');
  for (const p of cs.objects('property')) {
    const uri = p.str('uri');
    const code = p.str('code');
    const type = p.str('type');
    const def: PropertyDef = { type, rule: undefined };
    let byUri: string | undefined;
    if (uri !== undefined) {
      if (!isAbsoluteUrl(uri)) {
        p.error('CODESYSTEM_PROPERTY_ABSOLUTE_URI', [uri]);
      } else {
        if (defs.has(uri)) p.error('CODESYSTEM_PROPERTY_DUPLICATE_URI', [uri]);
        else defs.set(uri, def);
        if (uri.includes('://hl7.org/fhir')) {
          byUri = uri.startsWith(KNOWN_URI_BASE) ? knownCode(uri.slice(KNOWN_URI_BASE.length)) : undefined;
          const selfOrBase = url !== undefined && (isBaseSpec(url) || uri.startsWith(url));
          if (byUri === undefined && !selfOrBase) p.error('CODESYSTEM_PROPERTY_BAD_HL7_URI', [uri]);
        }
      }
    }
    const byCode = knownCode(code);
    if (code !== undefined) {
      if (defs.has(code)) p.error('CODESYSTEM_PROPERTY_DUPLICATE_CODE', [code]);
      else defs.set(code, def);
    }
    if (byUri !== undefined) {
      const knownType = KNOWN_PROPERTIES[byUri];
      if (byCode !== undefined && byCode !== byUri) p.error('CODESYSTEM_PROPERTY_URI_CODE_MISMATCH', [uri, byUri, code]);
      if (type !== undefined && type !== knownType) p.error('CODESYSTEM_PROPERTY_URI_TYPE_MISMATCH', [uri, knownType, type]);
      if (byUri === 'parent' || byUri === 'child' || byUri === 'partOf' || byUri === 'synonym') def.rule = 'internal';
    } else if (type === 'code' && !hasValueSetExtension(p)) {
      def.rule = 'internal-warning';
      p.information('CODESYSTEM_PROPERTY_CODE_DEFAULT_WARNING', ['code']);
    }
    if (uri === undefined) {
      if (byCode === undefined) {
        p.information('CODESYSTEM_PROPERTY_UNKNOWN_CODE', [code]);
      } else {
        p.warning('CODESYSTEM_PROPERTY_KNOWN_CODE_SUGGESTIVE', [code, KNOWN_URI_BASE + byCode]);
        const knownType = KNOWN_PROPERTIES[byCode];
        if (type !== undefined && type !== knownType) p.warning('CODESYSTEM_PROPERTY_CODE_TYPE_MISMATCH', [code, knownType, type]);
      }
    }
  }
  return defs;
}

/** A url of the base specification (`http://hl7.org/fhir/xxx`, nothing further). */
function isBaseSpec(url: string): boolean {
  const base = 'http://hl7.org/fhir/';
  return url.startsWith(base) && !url.slice(base.length).includes('/');
}

function hasValueSetExtension(p: JsonNode): boolean {
  return p.objects('extension').some((e) => e.str('url') === 'http://hl7.org/fhir/StructureDefinition/codesystem-property-valueset');
}

/** The value[x] of a concept property: its FHIR type and value. */
function propertyValue(p: JsonNode): { type: string; value: unknown } | undefined {
  const obj = p.object ?? {};
  for (const key of Object.keys(obj)) {
    if (key.startsWith('value') && key.length > 5) {
      const t = key.slice(5);
      const type = t === 'Coding' ? t : t.charAt(0).toLowerCase() + t.slice(1);
      return { type, value: obj[key] };
    }
  }
  return undefined;
}

/**
 * The property values of every concept (nested ones included): `codes` are this code system's
 * codes as written. A code value is checked once (the HL7 validator's seen-codes cache).
 */
export function checkConceptProperties(cs: JsonNode, defs: Map<string, PropertyDef>, codes: Set<string>): void {
  const seen = new Set<string>();
  const supplements = cs.str('supplements');
  const walk = (parent: JsonNode) => {
    for (const concept of parent.objects('concept')) {
      for (const p of concept.objects('property')) {
        const code = p.str('code');
        if (code === undefined) continue;
        const def = defs.get(code);
        if (!def) p.warning('CODESYSTEM_PROPERTY_UNDEFINED', [code]);
        const value = propertyValue(p);
        if (!value) {
          p.error('CODESYSTEM_PROPERTY_NO_VALUE', [code]);
          continue;
        }
        if (def) {
          if (value.type !== def.type) p.error('CODESYSTEM_PROPERTY_WRONG_TYPE', [code, value.type, def.type]);
          else if (value.type === 'code' && typeof value.value === 'string' && def.rule !== undefined && supplements === undefined && !seen.has(value.value)) {
            // a supplement's codes are the base system's: left to a terminology server
            seen.add(value.value);
            if (!codes.has(value.value)) p.report(def.rule === 'internal' ? 'error' : 'warning', 'CODESYSTEM_PROPERTY_BAD_INTERNAL_REFERENCE', [value.value]);
          }
        }
        if (code === 'synonym' && (typeof value.value !== 'string' || !codes.has(value.value))) {
          p.warning('CODESYSTEM_PROPERTY_SYNONYM_CHECK', [typeof value.value === 'string' ? value.value : null]);
        }
      }
      walk(concept);
    }
  };
  walk(cs);
}
