/**
 * Property-based hostile XML (fast-check), the XML reader's counterpart of hostile-fuzz.slow.spec.ts:
 * well-formed FHIR XML of generated resources cut and spliced with markup that troubles XML
 * readers (DOCTYPEs and entity declarations, entity and character references, CDATA, comments,
 * processing instructions, namespace prefixes, unclosed and mismatched tags, deep nesting, huge
 * attribute values and text). Each must get a well-formed OperationOutcome, never an exception,
 * and a document that is not well-formed exactly one fatal issue with a line.
 *
 * Bound: each case must finish within HANG_BOUND_MS, a hang check, not a speed test (see
 * hostile-fuzz.slow.spec.ts). `npm test` runs a few dozen cases; `npm run fuzz` runs FUZZ_RUNS.
 */
import { expect } from 'chai';
import fc from 'fast-check';
import { PlanRegistry } from '#validation/domain/engine/plan/plan-registry.js';
import { Validator } from '#validation/domain/engine/validator.js';
import { composeXml } from '#validation/domain/engine/xml/compose-xml.js';
import { coreSource } from './support/core-definitions.js';
import { expectAnsweredOutcome, throwIfFuzzFailed } from './support/fuzz-outcome.js';

const HANG_BOUND_MS = 5_000;
const RUNS = Number(process.env.FUZZ_RUNS ?? 40);
const SEED = process.env.FUZZ_SEED !== undefined ? Number(process.env.FUZZ_SEED) : Math.floor(Math.random() * 2 ** 31);

/** XML pieces that, repeated or spliced in, trouble readers. */
const UNITS = [
  '<', '</', '>', '/>', '<a>', '</a>', '<extension url="x">', '</extension>', '<!DOCTYPE a [<!ENTITY e "&e;&e;">]>', '<!ENTITY x SYSTEM "file:///etc/passwd">',
  '&', '&e;', '&amp;', '&#0;', '&#x10FFFF;', '&#xD800;', '&#99999999;', '<![CDATA[', ']]>', '<!--', '-->', '<?pi x?>', '<?xml version="1.0"?>',
  'xmlns:p="urn:p"', '<p:q>', 'xmlns=""', ' value="', '"', "'", '=', ' ', '\t', '\n', '\r', 'a', '\u0000', '\u0001', '\ud800', '\ufeff', 'é', '😀',
];

const size = fc.integer({ min: 1, max: RUNS > 100 ? 60_000 : 20_000 });
const run = fc.array(fc.tuple(fc.constantFrom(...UNITS), size), { minLength: 1, maxLength: 3 }).map((parts) => parts.map(([unit, n]) => unit.repeat(Math.ceil(n / unit.length))).join(''));
const hostileText = fc.oneof(run, fc.string({ unit: 'binary', maxLength: 200 }), fc.string({ unit: 'grapheme', maxLength: 200 }));

/** Resources with hostile values in text, attributes, narrative and nesting. */
const resource = fc.oneof(
  fc.tuple(hostileText, hostileText).map(([a, b]) => ({ resourceType: 'Patient', id: 'p', name: [{ family: a, given: [b] }], text: { status: 'generated', div: `<div xmlns="http://www.w3.org/1999/xhtml">${b}</div>` } })),
  fc.integer({ min: 1, max: 2_000 }).map((depth) => {
    let inner: Record<string, unknown> = { url: 'http://example.org/x', valueString: 'a' };
    for (let i = 0; i < depth; i++) inner = { url: 'http://example.org/x', extension: [inner] };
    return { resourceType: 'Patient', id: 'deep', extension: [inner] };
  }),
  fc.tuple(fc.integer({ min: 1, max: 3_000 }), hostileText).map(([n, v]) => ({ resourceType: 'Bundle', type: 'collection', entry: Array.from({ length: n }, (_, i) => ({ fullUrl: `urn:uuid:${i}`, resource: { resourceType: 'Basic', id: `b${i}`, code: { text: i % 50 === 0 ? v : 'c' } } })) })),
);

/** How the composed XML is damaged: not at all, cut, or with hostile text spliced in (at fractions of its length). */
const damage = fc.oneof(
  fc.constant({ kind: 'none' as const }),
  fc.double({ min: 0, max: 1, noNaN: true }).map((at) => ({ kind: 'cut' as const, at })),
  fc.tuple(fc.double({ min: 0, max: 1, noNaN: true }), hostileText).map(([at, text]) => ({ kind: 'splice' as const, at, text })),
);

describe('engine: fuzzed hostile XML finishes (fast-check)', function () {
  this.timeout(Math.max(60_000, RUNS * HANG_BOUND_MS));
  let validator: Validator;
  let plans: PlanRegistry;

  before(async () => {
    const source = await coreSource();
    validator = new Validator(source);
    plans = new PlanRegistry(source);
    console.log(`      fuzz seed ${SEED}, ${RUNS} runs (FUZZ_SEED=${SEED} to replay)`);
  });

  it(`answers every generated document with an OperationOutcome, each within ${HANG_BOUND_MS} ms`, () => {
    const details = fc.check(
      fc.property(resource, damage, (r, d) => {
        let xml = composeXml(r, plans);
        if (d.kind === 'cut') xml = xml.slice(0, Math.floor(xml.length * d.at));
        else if (d.kind === 'splice') {
          const at = Math.floor(xml.length * d.at);
          xml = xml.slice(0, at) + d.text + xml.slice(at);
        }
        const started = performance.now();
        const outcome = validator.validate(xml, { format: 'xml' });
        expectAnsweredOutcome(outcome, performance.now() - started, HANG_BOUND_MS);
        const fatal = outcome.issue.filter((i) => i.severity === 'fatal');
        expect(fatal.length, 'at most one fatal issue').to.be.at.most(1);
        if (fatal[0]) expect(fatal[0].extension?.some((e) => e.url.endsWith('issue-line')), 'a fatal issue has a line').to.equal(true);
      }),
      { numRuns: RUNS, seed: SEED, endOnFailure: true },
    );
    throwIfFuzzFailed(details, SEED);
  });
});
