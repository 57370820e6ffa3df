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
const LANGTAG = new RegExp(
  '^(?<language>[a-z]{2,3}(?:-[a-z]{3}){0,3}|[a-z]{4}|[a-z]{5,8})' +
  '(?:-(?<script>[a-z]{4}))?' +
  '(?:-(?<region>[a-z]{2}|\\d{3}))?' +
  '(?:-(?:[a-z\\d]{5,8}|\\d[a-z\\d]{3}))*' +
  '(?:-[\\da-wy-z](?:-[a-z\\d]{2,8})+)*' +
  '(?:-x(?:-[a-z\\d]{1,8})+)?$',
  'i',
);
const PRIVATE_USE = /^x(?:-[a-z\d]{1,8})+$/i;

export type LanguageTagCheck = { valid: true } | { valid: false; reason: string };

export function checkLanguageTag(tag: string): LanguageTagCheck {
  if (PRIVATE_USE.test(tag)) return { valid: true };
  const match = LANGTAG.exec(tag);
  if (!match?.groups) return { valid: false, reason: 'not a well-formed BCP-47 language tag' };
  const primary = match.groups.language!.split('-')[0]!.toLowerCase();
  if (primary.length === 2 && !ISO_639_1.has(primary)) {
    return { valid: false, reason: `'${primary}' is not an ISO 639-1 language code` };
  }
  const region = match.groups.region;
  if (region && /^[a-z]{2}$/i.test(region) && !ISO_3166_ALPHA2_TO_ALPHA3.has(region.toUpperCase())) {
    return { valid: false, reason: `'${region}' is not an ISO 3166 region code` };
  }
  return { valid: true };
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
