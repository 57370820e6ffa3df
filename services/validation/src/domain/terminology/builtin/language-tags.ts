import { ISO_3166_ALPHA2_TO_ALPHA3 } from './iso-3166.js';

/**
 * BCP-47 language tags (urn:ietf:bcp:47), checked without the IANA subtag registry: the tag must
 * be well-formed (RFC 5646 "langtag" syntax), a two-letter primary language must be an ISO 639-1
 * code and a two-letter region an ISO 3166 code. Three-letter primary languages (ISO 639-2/3) are
 * accepted on syntax alone: the full registry is too large to be worth holding for NHSN traffic.
 */
const ISO_639_1 = new Set((
  'aa ab ae af ak am an ar as av ay az ba be bg bh bi bm bn bo br bs ca ce ch co cr cs cu cv cy da de dv dz ee el ' +
  'en eo es et eu fa ff fi fj fo fr fy ga gd gl gn gu gv ha he hi ho hr ht hu hy hz ia id ie ig ii ik io is it iu ' +
  'ja jv ka kg ki kj kk kl km kn ko kr ks ku kv kw ky la lb lg li ln lo lt lu lv mg mh mi mk ml mn mr ms mt my na ' +
  'nb nd ne ng nl nn no nr nv ny oc oj om or os pa pi pl ps pt qu rm rn ro ru rw sa sc sd se sg si sk sl sm sn so ' +
  'sq sr ss st su sv sw ta te tg th ti tk tl tn to tr ts tt tw ty ug uk ur uz ve vi vo wa wo xh yi yo za zh zu'
).split(' '));

// RFC 5646 langtag: language[-extlang] [-script] [-region] *(-variant) *(-extension) [-privateuse].
// Linear: anchored; every part after the language opens with '-', which no subtag class matches, and the parts
// differ by length or first character, so each subtag has one reading and a failure backtracks one subtag at a time.
const LANGTAG = new RegExp(
  '^(?<language>[a-z]{2,3}(?<extlang>(?:-[a-z]{3}){1,3})?|[a-z]{4}|[a-z]{5,8})' +
  '(?:-(?<script>[a-z]{4}))?' +
  '(?:-(?<region>[a-z]{2}|\\d{3}))?' +
  '(?<variant>(?:-(?:[a-z\\d]{5,8}|\\d[a-z\\d]{3}))*)' +
  '(?<extension>(?:-[\\da-wy-z](?:-[a-z\\d]{2,8})+)*)' +
  '(?<privateuse>-x(?:-[a-z\\d]{1,8})+)?$',
  'i',
);
// Linear: anchored; each repetition opens with '-', which its class cannot match.
const PRIVATE_USE = /^x(?:-[a-z\d]{1,8})+$/i;

/** The parts of a well-formed tag, by the property names of the BCP-47 code system (absent parts undefined). */
export interface LanguageTagParts {
  language?: string;
  'ext-lang'?: string;
  script?: string;
  region?: string;
  variant?: string;
  extension?: string;
  'private-use'?: string;
}

export function parseLanguageTag(tag: string): LanguageTagParts | undefined {
  if (PRIVATE_USE.test(tag)) return { 'private-use': tag.slice(2) };
  const groups = LANGTAG.exec(tag)?.groups;
  if (!groups) return undefined;
  const part = (value: string | undefined) => (value ? value.replace(/^-/, '' /* linear: anchored, one character */) : undefined);
  return {
    language: (groups.language ?? '').split('-')[0],
    'ext-lang': part(groups.extlang),
    script: part(groups.script),
    region: part(groups.region),
    variant: part(groups.variant),
    extension: part(groups.extension),
    'private-use': part(groups.privateuse)?.replace(/^x-/i, '' /* linear: anchored, two characters */),
  };
}

export type LanguageTagCheck = { valid: true } | { valid: false; reason: string };

export function checkLanguageTag(tag: string): LanguageTagCheck {
  const parts = parseLanguageTag(tag);
  if (!parts) return { valid: false, reason: 'not a well-formed BCP-47 language tag' };
  const primary = parts.language?.toLowerCase();
  if (primary && primary.length === 2 && !ISO_639_1.has(primary)) {
    return { valid: false, reason: `'${primary}' is not an ISO 639-1 language code` };
  }
  const region = parts.region;
  // linear: anchored, two characters
  if (region && /^[a-z]{2}$/i.test(region) && !ISO_3166_ALPHA2_TO_ALPHA3.has(region.toUpperCase())) {
    return { valid: false, reason: `'${region}' is not an ISO 3166 region code` };
  }
  return { valid: true };
}

const TAG_PROPERTIES: readonly (keyof LanguageTagParts)[] = ['language', 'ext-lang', 'script', 'region', 'variant', 'extension', 'private-use'];

/**
 * Value set filters on the parts of a tag (the properties of the BCP-47 code system), e.g. US
 * Core's simple-language: `script exists false`, `region exists true`, `language = en`.
 * Undefined for a filter this does not understand (the value set is then not checkable locally).
 */
export function languageTagFilter(property: string, op: string, value: string): ((tag: string) => boolean) | undefined {
  const key = TAG_PROPERTIES.find((known) => known === property);
  if (key === undefined) return undefined;
  if (op === 'exists' && (value === 'true' || value === 'false')) {
    const wanted = value === 'true';
    return (tag) => (parseLanguageTag(tag)?.[key] !== undefined) === wanted;
  }
  if (op === '=') return (tag) => parseLanguageTag(tag)?.[key]?.toLowerCase() === value.toLowerCase();
  return undefined;
}

let languageNames: Intl.DisplayNames | undefined;

/** "English (United States)" for en-US, from the runtime's ICU data (no table of our own). */
export function languageTagDisplay(tag: string): string | undefined {
  try {
    languageNames ??= new Intl.DisplayNames(['en'], { type: 'language', languageDisplay: 'standard' });
    const name = languageNames.of(tag);
    return name && name !== tag ? name : undefined;
  } catch {
    return undefined;
  }
}
