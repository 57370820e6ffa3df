'use strict';
// Mocha's Spec reporter plus one plain closing line, `N passed, N failed[, N skipped]`,
// which is what CI reads (mocha's own summary is not recognised there).
const Mocha = require('mocha');
const { EVENT_RUN_END } = Mocha.Runner.constants;

class SummaryReporter extends Mocha.reporters.Spec {
  constructor(runner, options) {
    super(runner, options);
    runner.once(EVENT_RUN_END, () => {
      const s = runner.stats;
      const skipped = s.pending ? `, ${s.pending} skipped` : '';
      process.stdout.write(`\n${s.passes} passed, ${s.failures} failed${skipped}\n`);
    });
  }
}
module.exports = SummaryReporter;
