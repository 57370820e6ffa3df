/**
 * What every fuzz case must get (hostile-fuzz.slow.spec.ts, hostile-xml-fuzz.slow.spec.ts): a well-formed
 * OperationOutcome, no engine defect ("Validation could not be completed"), within the hang bound;
 * and a short report when a case fails (counterexamples are megabytes).
 */
import { expect } from 'chai';
import type { ValidationOutcome } from '#validation/domain/engine/outcome/issue.js';

export function expectAnsweredOutcome(outcome: ValidationOutcome, elapsedMs: number, hangBoundMs: number): void {
  expect(outcome.resourceType).to.equal('OperationOutcome');
  for (const issue of outcome.issue) {
    expect(issue.severity).to.be.oneOf(['fatal', 'error', 'warning', 'information']);
    expect(issue.details.text).to.be.a('string');
  }
  expect(outcome.issue.filter((i) => i.details.text.startsWith('Validation could not be completed')), JSON.stringify(outcome.issue.slice(0, 3))).to.deep.equal([]);
  expect(elapsedMs, 'a hang, not a slow case').to.be.below(hangBoundMs);
}

/** Throws a short error for a failed fast-check run (seed, path, the first characters of the counterexample). */
export function throwIfFuzzFailed(details: { failed: boolean; counterexample: unknown; counterexamplePath: string | null; errorInstance: unknown }, seed: number): void {
  if (!details.failed) return;
  const example = JSON.stringify(details.counterexample).slice(0, 600);
  throw new Error(`fuzz case failed (FUZZ_SEED=${seed}, path ${details.counterexamplePath}): ${details.errorInstance instanceof Error ? details.errorInstance.message : String(details.errorInstance)}\n${example}…`);
}
