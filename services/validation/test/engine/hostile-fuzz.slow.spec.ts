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
 * many more (FUZZ_RUNS, default 500) and prints the seed (FUZZ_SEED to replay one). The generators are
 * shared with the HTTP suite (support/hostile-arbitraries.ts, test/http-fuzz.int.spec.ts).
 */
import fc from 'fast-check';
import { Validator } from '#validation/domain/engine/validator.js';
import { sourceWith } from './support/core-definitions.js';
import { expectAnsweredOutcome, throwIfFuzzFailed } from './support/fuzz-outcome.js';
import { FUZZ_RUNS as RUNS, FUZZ_SEED as SEED, hostileResource } from './support/hostile-arbitraries.js';
import { HOSTILE_PROFILE_URL, hostileProfile } from './support/hostile-resources.js';

const HANG_BOUND_MS = 5_000;

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
      fc.property(hostileResource(RUNS), fc.boolean(), fc.boolean(), (resource, asText, security) => {
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
