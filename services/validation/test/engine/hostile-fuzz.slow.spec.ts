/**
 * Property-based hostile input (fast-check): generated resources built to find super-linear work —
 * narratives of many attributes, '<', quotes or whitespace, odd Unicode (lone surrogates, RTL and
 * zero-width marks), deep nesting, huge strings and arrays, Questionnaire/QuestionnaireResponse
 * pairs with catastrophic regex extensions, and a loaded profile whose invariant calls matches()
 * with a catastrophic pattern. Each must get a well-formed OperationOutcome, never an exception.
 *
 * Bound: each case must finish within HANG_BOUND_MS. That is a hang check, not a speed test: the
 * cases take milliseconds, the patterns this guards against take minutes to forever, and the bound
 * is generous for a busy shared machine. `npm test` runs a few dozen cases; `npm run fuzz` runs
 * many more (FUZZ_RUNS, default 500) and prints the seed (FUZZ_SEED to replay one).
 */
import fc from 'fast-check';
import { Validator } from '#validation/domain/engine/validator.js';
import { sourceWith } from './support/core-definitions.js';
import { expectAnsweredOutcome, throwIfFuzzFailed } from './support/fuzz-outcome.js';
import { CATASTROPHIC_PATTERN, HOSTILE_PROFILE_URL, hostileProfile } from './support/hostile-resources.js';

const HANG_BOUND_MS = 5_000;
const RUNS = Number(process.env.FUZZ_RUNS ?? 40);
const SEED = process.env.FUZZ_SEED !== undefined ? Number(process.env.FUZZ_SEED) : Math.floor(Math.random() * 2 ** 31);
const XHTML = 'http://www.w3.org/1999/xhtml';
const REGEX_EXT = 'http://hl7.org/fhir/StructureDefinition/regex';

/** Patterns that make a backtracking engine explode, and some RE2 refuses. */
const CATASTROPHIC = [CATASTROPHIC_PATTERN, '(a|a)*$', '(a|aa)+$', '(.*a){20}', '([a-z]+)*$', '(\\w+\\s?)*$', '(?=a)(a+)+$', '(a)\\1+$', 'a++b', '(x+x+)+y'];

/** Pieces that, repeated, trouble tokenizers and backtracking patterns. */
const UNITS = [
  '<', '<a', '<p ', ' a="x"', "a='x' ", '=x', '"', "'", '>', '</p>', '<br>', '&', '&amp;', '<!--', '-->', '<![CDATA[', ']]>',
  ' ', '\t', '\n', 'a', '1', '9-', '/', '#', '\u200b', '\u200f', '\u202e', '\u2066', '\ud800', '\udc00', '\ufeff', 'é', '😀',
];

const size = fc.integer({ min: 1, max: RUNS > 100 ? 60_000 : 20_000 });
const run = fc.array(fc.tuple(fc.constantFrom(...UNITS), size), { minLength: 1, maxLength: 3 }).map((parts) => parts.map(([unit, n]) => unit.repeat(Math.ceil(n / unit.length))).join(''));
const hostileText = fc.oneof(run, fc.string({ unit: 'binary', maxLength: 200 }), fc.string({ unit: 'grapheme', maxLength: 200 }));

const narrative = fc.tuple(hostileText, fc.boolean(), fc.boolean()).map(([body, wrapped, closed]) =>
  wrapped ? `<div xmlns="${XHTML}">${body}${closed ? '</div>' : ''}` : body);

const withNarrative = (resource: Record<string, unknown>, div: string) => ({ ...resource, text: { status: 'generated', div } });

const patient = fc.tuple(narrative, hostileText, hostileText).map(([div, family, other]) =>
  withNarrative({ resourceType: 'Patient', id: 'p1', name: [{ family, given: [other] }], telecom: [{ system: 'url', value: other }], language: other.slice(0, 300) }, div));

const deepExtensions = fc.integer({ min: 1, max: 400 }).map((depth) => {
  let inner: Record<string, unknown> = { url: 'http://example.org/x', valueString: 'a' };
  for (let i = 0; i < depth; i++) inner = { url: 'http://example.org/x', extension: [inner] };
  return { resourceType: 'Patient', id: 'deep', extension: [inner] };
});

const hugeArray = fc.tuple(fc.integer({ min: 1, max: RUNS > 100 ? 10_000 : 5_000 }), hostileText).map(([n, value]) =>
  ({ resourceType: 'Patient', id: 'wide', identifier: Array.from({ length: n }, (_, i) => ({ system: 'urn:oid:1.2.3', value: i % 97 === 0 ? value.slice(0, 1000) : `v${i}` })) }));

const questionnairePair = fc.tuple(fc.constantFrom(...CATASTROPHIC), hostileText, fc.boolean()).map(([pattern, answer, contained]) => {
  const questionnaire = { resourceType: 'Questionnaire', id: 'q', status: 'active', item: [{ linkId: '1', type: 'string', extension: [{ url: REGEX_EXT, valueString: pattern }] }] };
  const response = { resourceType: 'QuestionnaireResponse', status: 'completed', item: [{ linkId: '1', answer: [{ valueString: answer || 'x' }] }] };
  return contained
    ? { ...response, id: 'qr', contained: [questionnaire], questionnaire: '#q' }
    : { resourceType: 'Bundle', type: 'collection', entry: [{ fullUrl: 'http://example.org/fhir/Questionnaire/q', resource: { ...questionnaire, url: 'http://example.org/fhir/Questionnaire/q' } }, { fullUrl: 'http://example.org/fhir/QuestionnaireResponse/qr', resource: { ...response, id: 'qr', questionnaire: 'http://example.org/fhir/Questionnaire/q' } }] };
});

const profiled = hostileText.map((value) => ({ resourceType: 'Patient', id: 'p2', meta: { profile: [HOSTILE_PROFILE_URL] }, name: [{ family: value || 'a', given: [value || 'a'] }] }));

const hostileResource: fc.Arbitrary<Record<string, unknown>> = fc.oneof(patient, deepExtensions, hugeArray, questionnairePair, profiled);

describe('engine: fuzzed hostile resources finish (fast-check)', function () {
  this.timeout(Math.max(60_000, RUNS * HANG_BOUND_MS));
  let v: Validator;
  let secure: Validator;

  before(async () => {
    // the hostile profile is loaded, so its invariant and regex extension meet every profiled Patient
    const source = await sourceWith([hostileProfile()]);
    v = new Validator(source);
    secure = new Validator(source, undefined, { securityChecks: true });
    console.log(`      fuzz seed ${SEED}, ${RUNS} runs (FUZZ_SEED=${SEED} to replay)`);
  });

  it(`answers every generated resource with an OperationOutcome, each within ${HANG_BOUND_MS} ms`, () => {
    const details = fc.check(
      fc.property(hostileResource, fc.boolean(), fc.boolean(), (resource, asText, security) => {
        const validator = security ? secure : v;
        const started = performance.now();
        const outcome = validator.validate(asText ? JSON.stringify(resource) : resource, { profiles: 'meta' in resource ? [HOSTILE_PROFILE_URL] : [] });
        expectAnsweredOutcome(outcome, performance.now() - started, HANG_BOUND_MS);
      }),
      { numRuns: RUNS, seed: SEED, endOnFailure: true },
    );
    throwIfFuzzFailed(details, SEED);
  });
});
