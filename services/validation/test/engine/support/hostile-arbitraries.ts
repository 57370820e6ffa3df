/**
 * The generators (fast-check arbitraries) of the hostile fuzz suites, shared by the engine's
 * (hostile-fuzz.slow.spec.ts, hostile-xml-fuzz.slow.spec.ts) and the HTTP one (test/http-fuzz.int.spec.ts), so the
 * same inputs meet the engine in-process and the services through HTTP.
 *
 * Sizes scale with the number of runs: `npm test` runs a few dozen cases of moderate size, `npm run
 * fuzz` (FUZZ_RUNS, default 500) many more and larger. Every suite prints its seed (FUZZ_SEED replays).
 */
import fc from 'fast-check';
import { CATASTROPHIC_PATTERN, HOSTILE_PROFILE_URL } from './hostile-resources.js';

/** Cases per property: FUZZ_RUNS, else the few dozen `npm test` runs. */
export const FUZZ_RUNS = Number(process.env.FUZZ_RUNS ?? 40);
/** The seed of this run: FUZZ_SEED to replay one, else random. */
export const FUZZ_SEED = process.env.FUZZ_SEED ? Number(process.env.FUZZ_SEED) : Math.floor(Math.random() * 2 ** 31);

const XHTML = 'http://www.w3.org/1999/xhtml';
const REGEX_EXT = 'http://hl7.org/fhir/StructureDefinition/regex';

/** Patterns that make a backtracking engine explode, and some RE2 refuses. */
export const CATASTROPHIC = [CATASTROPHIC_PATTERN, '(a|a)*$', '(a|aa)+$', '(.*a){20}', '([a-z]+)*$', '(\\w+\\s?)*$', '(?=a)(a+)+$', '(a)\\1+$', 'a++b', '(x+x+)+y'];

/** Pieces that, repeated, trouble tokenizers and backtracking patterns (JSON string values, narratives). */
export const TEXT_UNITS = [
  '<', '<a', '<p ', ' a="x"', "a='x' ", '=x', '"', "'", '>', '</p>', '<br>', '&', '&amp;', '<!--', '-->', '<![CDATA[', ']]>',
  ' ', '\t', '\n', 'a', '1', '9-', '/', '#', '\u200b', '\u200f', '\u202e', '\u2066', '\ud800', '\udc00', '\ufeff', 'é', '😀',
];

/** XML pieces that, repeated or spliced in, trouble readers. */
export const XML_UNITS = [
  '<', '</', '>', '/>', '<a>', '</a>', '<extension url="x">', '</extension>', '<!DOCTYPE a [<!ENTITY e "&e;&e;">]>', '<!ENTITY x SYSTEM "file:///etc/passwd">',
  '&', '&e;', '&amp;', '&#0;', '&#x10FFFF;', '&#xD800;', '&#99999999;', '<![CDATA[', ']]>', '<!--', '-->', '<?pi x?>', '<?xml version="1.0"?>',
  'xmlns:p="urn:p"', '<p:q>', 'xmlns=""', ' value="', '"', "'", '=', ' ', '\t', '\n', '\r', 'a', '\u0000', '\u0001', '\ud800', '\ufeff', 'é', '😀',
];

/** Runs of repeated units (up to 20,000 characters, 60,000 above 100 runs), or short random (binary, grapheme) strings. */
export function hostileText(units: readonly string[], runs = FUZZ_RUNS): fc.Arbitrary<string> {
  const size = fc.integer({ min: 1, max: runs > 100 ? 60_000 : 20_000 });
  const run = fc.array(fc.tuple(fc.constantFrom(...units), size), { minLength: 1, maxLength: 3 })
    .map((parts) => parts.map(([unit, n]) => unit.repeat(Math.ceil(n / unit.length))).join(''));
  return fc.oneof(run, fc.string({ unit: 'binary', maxLength: 200 }), fc.string({ unit: 'grapheme', maxLength: 200 }));
}

/** A Patient whose extensions nest `depth` levels. */
export function deeplyNestedPatient(depth: number): Record<string, unknown> {
  let inner: Record<string, unknown> = { url: 'http://example.org/x', valueString: 'a' };
  for (let i = 0; i < depth; i++) inner = { url: 'http://example.org/x', extension: [inner] };
  return { resourceType: 'Patient', id: 'deep', extension: [inner] };
}

/**
 * Resources built to find super-linear work: narratives of many attributes, '<', quotes or
 * whitespace, odd Unicode, deep nesting, huge arrays, Questionnaire/QuestionnaireResponse pairs with
 * catastrophic regex extensions, and Patients claiming the hostile profile (hostile-resources.ts).
 */
export function hostileResource(runs = FUZZ_RUNS, maxDepth = 400): fc.Arbitrary<Record<string, unknown>> {
  const text = hostileText(TEXT_UNITS, runs);
  const narrative = fc.tuple(text, fc.boolean(), fc.boolean()).map(([body, wrapped, closed]) =>
    wrapped ? `<div xmlns="${XHTML}">${body}${closed ? '</div>' : ''}` : body);
  const withNarrative = (resource: Record<string, unknown>, div: string) => ({ ...resource, text: { status: 'generated', div } });

  const patient = fc.tuple(narrative, text, text).map(([div, family, other]) =>
    withNarrative({ resourceType: 'Patient', id: 'p1', name: [{ family, given: [other] }], telecom: [{ system: 'url', value: other }], language: other.slice(0, 300) }, div));
  const deepExtensions = fc.integer({ min: 1, max: maxDepth }).map(deeplyNestedPatient);
  const hugeArray = fc.tuple(fc.integer({ min: 1, max: runs > 100 ? 10_000 : 5_000 }), text).map(([n, value]) =>
    ({ resourceType: 'Patient', id: 'wide', identifier: Array.from({ length: n }, (_, i) => ({ system: 'urn:oid:1.2.3', value: i % 97 === 0 ? value.slice(0, 1000) : `v${i}` })) }));
  const questionnairePair = fc.tuple(fc.constantFrom(...CATASTROPHIC), text, fc.boolean()).map(([pattern, answer, contained]) => {
    const questionnaire = { resourceType: 'Questionnaire', id: 'q', status: 'active', item: [{ linkId: '1', type: 'string', extension: [{ url: REGEX_EXT, valueString: pattern }] }] };
    const response = { resourceType: 'QuestionnaireResponse', status: 'completed', item: [{ linkId: '1', answer: [{ valueString: answer || 'x' }] }] };
    return contained
      ? { ...response, id: 'qr', contained: [questionnaire], questionnaire: '#q' }
      : { resourceType: 'Bundle', type: 'collection', entry: [{ fullUrl: 'http://example.org/fhir/Questionnaire/q', resource: { ...questionnaire, url: 'http://example.org/fhir/Questionnaire/q' } }, { fullUrl: 'http://example.org/fhir/QuestionnaireResponse/qr', resource: { ...response, id: 'qr', questionnaire: 'http://example.org/fhir/Questionnaire/q' } }] };
  });
  const profiled = text.map((value) => ({ resourceType: 'Patient', id: 'p2', meta: { profile: [HOSTILE_PROFILE_URL] }, name: [{ family: value || 'a', given: [value || 'a'] }] }));
  return fc.oneof(patient, deepExtensions, hugeArray, questionnairePair, profiled);
}

/** Resources for the XML suite: hostile values in text, attributes and narrative, deep nesting, large Bundles. */
export function hostileXmlResource(runs = FUZZ_RUNS): fc.Arbitrary<Record<string, unknown>> {
  const text = hostileText(XML_UNITS, runs);
  return fc.oneof(
    fc.tuple(text, text).map(([a, b]) => ({ resourceType: 'Patient', id: 'p', name: [{ family: a, given: [b] }], text: { status: 'generated', div: `<div xmlns="http://www.w3.org/1999/xhtml">${b}</div>` } })),
    fc.integer({ min: 1, max: 2_000 }).map(deeplyNestedPatient),
    fc.tuple(fc.integer({ min: 1, max: 3_000 }), text).map(([n, v]) => ({ resourceType: 'Bundle', type: 'collection', entry: Array.from({ length: n }, (_, i) => ({ fullUrl: `urn:uuid:${i}`, resource: { resourceType: 'Basic', id: `b${i}`, code: { text: i % 50 === 0 ? v : 'c' } } })) })),
  );
}

/** How a composed XML document is damaged: not at all, cut, or with hostile text spliced in (at fractions of its length). */
export type XmlDamage = { kind: 'none' } | { kind: 'cut'; at: number } | { kind: 'splice'; at: number; text: string };

export function xmlDamage(runs = FUZZ_RUNS): fc.Arbitrary<XmlDamage> {
  return fc.oneof(
    fc.constant({ kind: 'none' as const }),
    fc.double({ min: 0, max: 1, noNaN: true }).map((at) => ({ kind: 'cut' as const, at })),
    fc.tuple(fc.double({ min: 0, max: 1, noNaN: true }), hostileText(XML_UNITS, runs)).map(([at, text]) => ({ kind: 'splice' as const, at, text })),
  );
}

export function damaged(xml: string, damage: XmlDamage): string {
  if (damage.kind === 'cut') return xml.slice(0, Math.floor(xml.length * damage.at));
  if (damage.kind === 'splice') {
    const at = Math.floor(xml.length * damage.at);
    return xml.slice(0, at) + damage.text + xml.slice(at);
  }
  return xml;
}
