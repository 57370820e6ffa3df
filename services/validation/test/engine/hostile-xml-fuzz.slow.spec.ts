/**
 * Property-based hostile XML (fast-check), the XML reader's counterpart of hostile-fuzz.slow.spec.ts:
 * well-formed FHIR XML of generated resources cut and spliced with markup that troubles XML
 * readers (DOCTYPEs and entity declarations, entity and character references, CDATA, comments,
 * processing instructions, namespace prefixes, unclosed and mismatched tags, deep nesting, huge
 * attribute values and text). Each must get a well-formed OperationOutcome, never an exception,
 * and a document that is not well-formed exactly one fatal issue with a line.
 *
 * Bound: each case must finish within HANG_BOUND_MS, a hang check, not a speed test (see
 * hostile-fuzz.slow.spec.ts). `npm test` runs a few dozen cases; `npm run fuzz` runs FUZZ_RUNS. The generators
 * are shared with the HTTP suite (support/hostile-arbitraries.ts, test/http-fuzz.int.spec.ts).
 */
import { expect } from 'chai';
import fc from 'fast-check';
import { PlanRegistry } from '#validation/domain/engine/plan/plan-registry.js';
import { Validator } from '#validation/domain/engine/validator.js';
import { composeXml } from '#validation/domain/engine/xml/compose-xml.js';
import { coreSource } from './support/core-definitions.js';
import { expectAnsweredOutcome, throwIfFuzzFailed } from './support/fuzz-outcome.js';
import { damaged, FUZZ_RUNS as RUNS, FUZZ_SEED as SEED, hostileXmlResource, xmlDamage } from './support/hostile-arbitraries.js';

const HANG_BOUND_MS = 5_000;

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
      fc.property(hostileXmlResource(RUNS), xmlDamage(RUNS), (r, d) => {
        const xml = damaged(composeXml(r, plans), d);
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
