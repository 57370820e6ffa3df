/**
 * ValueSet.compose.include.filter, as the HL7 validator's ValueSetValidator and CodeSystemChecker
 * see one: the property must be known for the system (the properties every code system has,
 * plus the CodeSystem's own properties and filters when it is loaded), the operation must be one
 * the property allows, and the value must suit the property's type (a code of the system when
 * the CodeSystem is loaded and complete, a boolean, a date, a number, a valid regex ...).
 */
import type { JsonNode } from '../../json/json-node.js';
import { errorText } from '../../error-text.js';
import { codeSet, hasCode, objects, type Obj } from './code-system-model.js';

type ValueKind = 'boolean' | 'integer' | 'decimal' | 'code' | 'dateTime' | 'Coding';
/** How a code value is checked against the system: an error, a warning, or not at all. */
type CodeCheck = 'error' | 'warning' | 'none';

interface FilterRules {
  kind: ValueKind;
  codeCheck: CodeCheck;
  /** Allowed operations, in the HL7 validator's order; empty: any. */
  ops: Set<string>;
}

/** Operation codes in the order the HL7 validator lists them. */
const OP_ORDER = ['=', 'is-a', 'descendent-of', 'is-not-a', 'regex', 'in', 'not-in', 'generalizes', 'child-of', 'descendent-leaf', 'exists'];

/** Properties every code system has. */
const GENERAL_PROPERTIES = ['concept', 'code', 'status', 'inactive', 'effectiveDate', 'deprecationDate', 'retirementDate', 'notSelectable', 'synonym', 'comment', 'itemWeight'];

/**
 * Systems with a grammar or properties of their own (SNOMED CT, LOINC, RxNorm, UCUM, CPT,
 * BCP-47): the HL7 validator knows their properties through dedicated checkers backed by a
 * terminology server, so their filters are left alone here.
 */
export const SYSTEMS_WITH_OWN_PROPERTIES = new Set([
  'http://snomed.info/sct', 'http://loinc.org', 'http://www.nlm.nih.gov/research/umls/rxnorm', 'http://unitsofmeasure.org', 'http://www.ama-assn.org/go/cpt', 'urn:ietf:bcp:47',
]);

const CONCEPT_OPS = ['=', 'in', 'is-a', 'descendent-of', 'is-not-a', 'generalizes', 'not-in'];

/** The general rules for a property (HL7's CodeSystemChecker), `ops` being those the CodeSystem's filters add. */
function generalRules(property: string, ops: Set<string>): FilterRules | undefined {
  const withOps = (kind: ValueKind, codeCheck: CodeCheck, extra: string[] = []): FilterRules => ({ kind, codeCheck, ops: new Set([...ops, ...extra]) });
  switch (property) {
    case 'concept': return withOps('code', 'error', CONCEPT_OPS);
    case 'code': return withOps('code', 'error', ['regex', ...CONCEPT_OPS]);
    case 'status':
    case 'synonym': return withOps('code', 'none');
    case 'inactive':
    case 'notSelectable': return withOps('boolean', 'none');
    case 'effectiveDate':
    case 'deprecationDate':
    case 'retirementDate': return withOps('dateTime', 'none');
    case 'parent':
    case 'child':
    case 'partOf': return withOps('code', 'error');
    case 'itemWeight': return withOps('decimal', 'none');
    default: return undefined;
  }
}

/** The rules for a property of a loaded CodeSystem (HL7's CodeSystemBasedChecker); null: a string property, nothing to check. */
function codeSystemRules(cs: Obj, property: string): FilterRules | null | undefined {
  const ops = new Set<string>();
  for (const f of objects(cs.filter)) {
    if (f.code !== property || !Array.isArray(f.operator)) continue;
    for (const op of f.operator) if (typeof op === 'string') ops.add(op);
  }
  for (const p of objects(cs.property)) {
    if (p.code !== property || typeof p.type !== 'string') continue;
    switch (p.type) {
      case 'boolean': return { kind: 'boolean', codeCheck: 'none', ops };
      case 'code': return { kind: 'code', codeCheck: 'warning', ops };
      case 'Coding': return { kind: 'Coding', codeCheck: 'none', ops };
      case 'dateTime': return { kind: 'dateTime', codeCheck: 'none', ops };
      case 'decimal': return { kind: 'decimal', codeCheck: 'none', ops };
      case 'integer': return { kind: 'integer', codeCheck: 'none', ops };
      case 'string': return null;
      default: break;
    }
  }
  return generalRules(property, ops);
}

function knownProperties(cs: Obj | undefined): string[] {
  const names = [...GENERAL_PROPERTIES];
  const add = (n: unknown) => {
    if (typeof n === 'string' && !names.includes(n)) names.push(n);
  };
  if (cs) {
    if (typeof cs.hierarchyMeaning === 'string') names.push('parent', 'child', 'partOf');
    for (const f of objects(cs.filter)) add(f.code);
    for (const p of objects(cs.property)) add(p.code);
  }
  return names;
}

const COMPARATOR_PREFIXES = ['eq', 'ne', 'gt', 'lt', 'ge', 'le', 'sa', 'eb', 'ap'];
const withoutComparator = (v: string) => (COMPARATOR_PREFIXES.some((p) => v.startsWith(p)) ? v.slice(2) : v);
// linear: anchored, nested optional groups of fixed character classes
const DATETIME_RE = /^\d{4}(-(0[1-9]|1[0-2])(-(0[1-9]|[12]\d|3[01])(T([01]\d|2[0-3]):[0-5]\d:([0-5]\d|60)(\.\d+)?(Z|[+-]((0\d|1[0-3]):[0-5]\d|14:00))?)?)?)?$/;
// linear: anchored, digit runs separated by fixed characters
const DECIMAL_RE = /^[+-]?\d+(\.\d+)?([eE][+-]?\d+)?$/;
const INTEGER_RE = /^[+-]?\d+$/;

/** A Java regex compiled as JavaScript: Java-only syntax (inline flags, possessive quantifiers, atomic groups) is accepted. */
function regexError(pattern: string): string | undefined {
  try {
    new RegExp(pattern);
    return undefined;
  } catch (e) {
    // linear: fixed alternatives, each a bounded run
    const relaxed = pattern.replace(/\(\?[a-zA-Z-]+\)/g, '').replace(/\(\?>/g, '(?:').replace(/([*+?}])\+/g, '$1');
    try {
      new RegExp(relaxed);
      return undefined;
    } catch {
      return errorText(e);
    }
  }
}

/** The include a filter belongs to: its system, and the CodeSystem when loaded. */
export interface FilterScope {
  system: string;
  /** The CodeSystem of the include, when loaded. */
  cs: Obj | undefined;
}

/** One filter of an include. */
export function checkFilter(scope: FilterScope, filter: JsonNode): void {
  const { system, cs } = scope;
  const property = filter.str('property');
  const op = filter.str('op');
  const value = filter.str('value');
  if (property === undefined) return;
  const known = knownProperties(cs);
  if (!known.includes(property)) {
    if (cs) filter.warning('VALUESET_UNKNOWN_FILTER_PROPERTY', [property, system, known.join(',')]);
    else filter.information('VALUESET_UNKNOWN_FILTER_PROPERTY_NO_CS', [property, system, known.join(',')]);
    return;
  }
  const rules = cs ? codeSystemRules(cs, property) : generalRules(property, new Set());
  if (!rules) return;
  if (rules.ops.size > 0 && op !== undefined && !rules.ops.has(op)) {
    const allowed = OP_ORDER.filter((o) => rules.ops.has(o));
    filter.error('VALUESET_BAD_FILTER_OP', [op, property, allowed.join(','), system]);
  }
  if (value === undefined) {
    if (!hasExpression(filter)) filter.error('VALUESET_BAD_FILTER_EXPR_OR_VALUE', []);
    return;
  }
  if (hasExpression(filter)) filter.error('VALUESET_BAD_FILTER_EXPR_AND_VALUE', []);
  const checked: FilterUnderCheck = { scope, property, op, filter };
  const check = (v: string, r: FilterRules) => {
    checkValue(checked, v, r);
  };
  if (op === 'exists') {
    check(value, { kind: 'boolean', codeCheck: 'none', ops: new Set() });
  } else if (op === 'regex') {
    const err = regexError(value);
    if (err !== undefined) filter.error('VALUESET_BAD_FILTER_VALUE_VALID_REGEX', [property, value, err]);
    if (property === 'concept') filter.error('VALUESET_BAD_PROPERTY_NO_REGEX', [property]);
  } else if (op === 'in' || op === 'not-in') {
    for (const v of value.split(',')) check(v, rules);
  } else {
    check(value, rules);
  }
}

/** Whether the filter's value is given as an expression (a cqf-expression on `_value`). */
function hasExpression(filter: JsonNode): boolean {
  return filter.child('_value')?.objects('extension').some((e) => e.str('url') === 'http://hl7.org/fhir/StructureDefinition/cqf-expression') === true;
}

/** The filter whose value is checked: its include's scope, its property and op, and the filter itself (where it is reported). */
interface FilterUnderCheck {
  readonly scope: FilterScope;
  readonly property: string;
  readonly op: string | undefined;
  readonly filter: JsonNode;
}

function checkValue(filter: FilterUnderCheck, value: string, rules: FilterRules): void {
  const { scope, property, op, filter: node } = filter;
  const { system, cs } = scope;
  if (op !== 'in' && op !== 'not-in' && value.includes(',')) node.information('VALUESET_BAD_FILTER_VALUE_HAS_COMMA', [rules.kind]);
  switch (rules.kind) {
    case 'boolean':
      if (value !== 'true' && value !== 'false') node.error('VALUESET_BAD_FILTER_VALUE_BOOLEAN', [property, value]);
      return;
    case 'code': {
      if (value.trim() !== value) {
        node.error('VALUESET_BAD_FILTER_VALUE_CODE', [property, value]);
        return;
      }
      // the value must be a code of the system: checked when the CodeSystem is here in full
      if (rules.codeCheck === 'none' || !cs || cs.content !== 'complete') return;
      if (hasCode(cs, codeSet(cs), value)) return;
      const reason = `Unknown code '${value}' in the CodeSystem '${system}'` + (typeof cs.version === 'string' ? ` version '${cs.version}'` : '');
      node.report(rules.codeCheck, 'VALUESET_BAD_FILTER_VALUE_VALID_CODE', [property, value, system, reason]);
      return;
    }
    case 'dateTime':
      if (!DATETIME_RE.test(withoutComparator(value))) node.error('VALUESET_BAD_FILTER_VALUE_DATETIME', [property, value]);
      return;
    case 'decimal':
      if (!DECIMAL_RE.test(withoutComparator(value))) node.error('VALUESET_BAD_FILTER_VALUE_DECIMAL', [property, value]);
      return;
    case 'integer':
      if (!INTEGER_RE.test(withoutComparator(value))) node.error('VALUESET_BAD_FILTER_VALUE_INTEGER', [property, value]);
      return;
    case 'Coding': {
      const hash = value.indexOf('#');
      if (hash <= 0 || hash === value.length - 1) node.error('VALUESET_BAD_FILTER_VALUE_CODED', [property, value]);
      return;
    }
  }
}
