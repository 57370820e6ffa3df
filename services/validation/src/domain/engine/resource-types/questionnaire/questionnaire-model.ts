/**
 * Read access to a Questionnaire as parsed JSON (R4): its items by linkId, their ancestors,
 * the extensions the answer rules read, and the JSON name of an answer's value. Shared by the
 * rules on QuestionnaireResponses and on Questionnaires themselves.
 */
import { isArray, isObject } from '../../json/json-value.js';

export type Obj = Record<string, unknown>;

/** Extension urls the HL7 validator reads on Questionnaire items. */
export const EXT = {
  minValue: 'http://hl7.org/fhir/StructureDefinition/minValue',
  maxValue: 'http://hl7.org/fhir/StructureDefinition/maxValue',
  minLength: 'http://hl7.org/fhir/StructureDefinition/minLength',
  maxDecimalPlaces: 'http://hl7.org/fhir/StructureDefinition/maxDecimalPlaces',
  regex: 'http://hl7.org/fhir/StructureDefinition/regex',
  entryFormat: 'http://hl7.org/fhir/StructureDefinition/entryFormat',
  minOccurs: 'http://hl7.org/fhir/StructureDefinition/questionnaire-minOccurs',
  maxOccurs: 'http://hl7.org/fhir/StructureDefinition/questionnaire-maxOccurs',
  unitOption: 'http://hl7.org/fhir/StructureDefinition/questionnaire-unitOption',
  unitValueSet: 'http://hl7.org/fhir/StructureDefinition/questionnaire-unitValueSet',
  referenceResource: 'http://hl7.org/fhir/StructureDefinition/questionnaire-referenceResource',
  mimeType: 'http://hl7.org/fhir/StructureDefinition/mimeType',
  maxSize: 'http://hl7.org/fhir/StructureDefinition/maxSize',
  optionExclusive: 'http://hl7.org/fhir/StructureDefinition/questionnaire-optionExclusive',
  minQuantity: 'http://hl7.org/fhir/uv/sdc/StructureDefinition/sdc-questionnaire-minQuantity',
  maxQuantity: 'http://hl7.org/fhir/uv/sdc/StructureDefinition/sdc-questionnaire-maxQuantity',
  enableWhenExpression: 'http://hl7.org/fhir/uv/sdc/StructureDefinition/sdc-questionnaire-enableWhenExpression',
  derivationType: 'http://hl7.org/fhir/StructureDefinition/questionnaire-derivationType',
} as const;

/** Older SDC urls for the same extensions (the current engine accepted both; kept). */
const SDC_ALIASES = new Map<string, string>([
  [EXT.minValue, 'http://hl7.org/fhir/uv/sdc/StructureDefinition/minValue'],
  [EXT.maxValue, 'http://hl7.org/fhir/uv/sdc/StructureDefinition/maxValue'],
  [EXT.minLength, 'http://hl7.org/fhir/uv/sdc/StructureDefinition/minLength'],
  [EXT.maxDecimalPlaces, 'http://hl7.org/fhir/uv/sdc/StructureDefinition/maxDecimalPlaces'],
  [EXT.regex, 'http://hl7.org/fhir/uv/sdc/StructureDefinition/regex'],
  [EXT.entryFormat, 'http://hl7.org/fhir/uv/sdc/StructureDefinition/entryFormat'],
]);

export function objects(v: unknown): Obj[] {
  return isArray(v) ? v.filter(isObject) : [];
}

/** The extensions of `owner` with `url` (or its older SDC alias). */
export function extensions(owner: Obj, url: string): Obj[] {
  const alias = SDC_ALIASES.get(url);
  return objects(owner.extension).filter((e) => e.url === url || (alias !== undefined && e.url === alias));
}

/** The value[x] of an extension or answer: its type suffix as written (`Integer`, `Coding`) and value. */
export function choiceValue(owner: Obj | undefined): { suffix: string; value: unknown } | undefined {
  if (!owner) return undefined;
  for (const key of Object.keys(owner)) {
    if (key.startsWith('value') && key.length > 5) return { suffix: key.slice(5), value: owner[key] };
  }
  return undefined;
}

export function extensionValue(owner: Obj, url: string): unknown {
  return choiceValue(extensions(owner, url)[0])?.value;
}

/** The FHIR type name of a value[x] suffix: primitives start lower case (`dateTime`), complex types keep theirs. */
export function typeOfSuffix(suffix: string): string {
  const complex = suffix === 'Coding' || suffix === 'Quantity' || suffix === 'Reference' || suffix === 'Attachment';
  return complex ? suffix : suffix.charAt(0).toLowerCase() + suffix.slice(1);
}

/** A primitive value as the HL7 validator prints it (numbers keep their source text when the parser kept it). */
export function primitiveText(v: unknown): string | undefined {
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  return undefined;
}

/** One Questionnaire item and the items it sits in (outermost first). */
export interface ItemEntry {
  item: Obj;
  ancestors: Obj[];
}

/** The items of a Questionnaire indexed by linkId (the first of a duplicated linkId wins, as HL7's search finds it first). */
export class QuestionnaireIndex {
  private readonly byLinkId = new Map<string, ItemEntry>();

  constructor(readonly questionnaire: Obj) {
    const walk = (items: unknown, ancestors: Obj[]) => {
      for (const item of objects(items)) {
        if (typeof item.linkId === 'string' && !this.byLinkId.has(item.linkId)) this.byLinkId.set(item.linkId, { item, ancestors });
        walk(item.item, [...ancestors, item]);
      }
    };
    walk(questionnaire.item, []);
  }

  find(linkId: string): ItemEntry | undefined {
    return this.byLinkId.get(linkId);
  }

  /**
   * The innermost item that contains both (HL7's getCommonGroup): where the answers an enableWhen
   * looks at are searched. Undefined: only the Questionnaire itself contains both.
   */
  commonGroup(a: Obj, b: Obj): Obj | undefined {
    const chainA = this.chainOf(a);
    const chainB = this.chainOf(b);
    let common: Obj | undefined;
    for (let i = 0; i < Math.min(chainA.length, chainB.length); i++) {
      if (chainA[i] !== chainB[i]) break;
      common = chainA[i];
    }
    return common;
  }

  private chainOf(item: Obj): Obj[] {
    const linkId = typeof item.linkId === 'string' ? item.linkId : undefined;
    const entry = linkId === undefined ? undefined : this.byLinkId.get(linkId);
    return entry && entry.item === item ? entry.ancestors : [];
  }
}

/** The R4 item types whose items carry no answers of their own. */
export function isGroupLike(type: unknown): boolean {
  return type === 'group' || type === 'question';
}

/**
 * The first instant of a FHIR date or dateTime (`2022`, `2022-06`, `2022-06-30T10:00:00+02:00`)
 * in ms, as the HL7 validator compares partial dates (a value without a zone counts as UTC
 * here, on both sides of a comparison); undefined when it is not one (also when a part is out of
 * range: month 13, 31 June, hour 24). A fixed linear pattern.
 */
export function instantOf(text: string): number | undefined {
  // linear: anchored, fixed-width digit groups, each optional part entered at most once
  const m = /^(\d{4})(?:-(\d{2})(?:-(\d{2})(?:T(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(Z|[+-]\d{2}:\d{2})?)?)?)?$/.exec(text);
  if (!m) return undefined;
  const [, y, mo, d, h, mi, s, frac, zone] = m;
  // out of range (month 13, 31 June, hour 24) is no date, as HAPI's parser refuses it
  const month = mo ? Number(mo) : 1;
  const day = d ? Number(d) : 1;
  if (month < 1 || month > 12 || day < 1 || day > new Date(Date.UTC(Number(y), month, 0)).getUTCDate()) return undefined;
  if ((h && Number(h) > 23) || (mi && Number(mi) > 59) || (s && Number(s) > 59)) return undefined;
  let ms = Date.UTC(Number(y), mo ? Number(mo) - 1 : 0, d ? Number(d) : 1, h ? Number(h) : 0, mi ? Number(mi) : 0, s ? Number(s) : 0, frac ? Number(frac.slice(0, 3).padEnd(3, '0')) : 0);
  if (zone && zone !== 'Z') {
    const sign = zone.startsWith('-') ? -1 : 1;
    ms -= sign * (Number(zone.slice(1, 3)) * 60 + Number(zone.slice(4, 6))) * 60_000;
  }
  return Number.isNaN(ms) ? undefined : ms;
}

/** Digits after the decimal point of a number as written (`-5.12340` → 5). */
export function decimalPlaces(text: string): number {
  const dot = text.lastIndexOf('.');
  return dot < 0 ? 0 : text.length - dot - 1;
}
