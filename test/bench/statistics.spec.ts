import { expect } from 'chai';
import { median, percentile } from '#scripts/bench/statistics.js';

describe('benchmarks: summary statistics', () => {
  it('percentile is nearest-rank', () => {
    const sorted = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10];
    expect([percentile(sorted, 50), percentile(sorted, 90), percentile(sorted, 99), percentile(sorted, 100), percentile(sorted, 0)]).to.deep.equal([5, 9, 10, 10, 1]);
    expect(Number.isNaN(percentile([], 50))).to.equal(true);
  });

  it('median of odd and even counts, unsorted input left as it was', () => {
    const values = [5, 1, 3];
    expect(median(values)).to.equal(3);
    expect(values).to.deep.equal([5, 1, 3]);
    expect(median([4, 1, 3, 2])).to.equal(2.5);
  });
});
