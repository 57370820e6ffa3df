/**
 * The mocha suite of a conformance set (conformance.spec.ts: the JSON checks, conformance-xml.spec.ts:
 * the XML ones): runs the checks in-process, prints the score, and fails when a score falls under
 * its floor or a check crashes.
 */
import { expect } from 'chai';
import { runConformance, type ConformanceCase, type ConformanceScore } from './conformance.js';

export interface ConformanceFloor {
  verdict: number;
  exactErrorCount: number;
  locations: number;
}

export function describeConformance(title: string, cases: () => ConformanceCase[], checks: number, floor: ConformanceFloor): void {
  describe(title, function () {
    this.timeout(120_000);
    let score: ConformanceScore;

    before(async () => {
      score = await runConformance(cases());
      const pct = (a: number, b: number) => `${a}/${b} (${((100 * a) / b).toFixed(1)}%)`;
      console.log(`      verdict ${pct(score.verdictAgree, score.checks)}, exact error count ${pct(score.exactErrorCount, score.checks)}, error locations ${pct(score.locationsMatched, score.expectedErrors)}`);
    });

    it('runs every check without crashing', () => {
      expect(score.checks).to.equal(checks);
      expect(score.results.filter((r) => r.crashed).map((r) => `${r.id}: ${r.crashed}`)).to.deep.equal([]);
    });

    it(`agrees with the HL7 validator's verdict on at least ${floor.verdict * 100}% of checks`, () => {
      expect(score.verdictAgree / score.checks).to.be.at.least(floor.verdict);
    });

    it(`reports exactly the expected number of errors on at least ${floor.exactErrorCount * 100}% of checks`, () => {
      expect(score.exactErrorCount / score.checks).to.be.at.least(floor.exactErrorCount);
    });

    it(`reports errors at the expected locations for at least ${floor.locations * 100}% of expected errors`, () => {
      expect(score.locationsMatched / score.expectedErrors).to.be.at.least(floor.locations);
    });
  });
}
