/** validation.worker-heap-mb: the configured limit, or the workers' share of the pod's memory. */
import { expect } from 'chai';
import { MAX_DERIVED_HEAP_MB, MIN_DERIVED_HEAP_MB, podMemoryMb, workerHeapMb } from '#validation/adapters/engine/worker-memory.js';

describe('engine host: worker heap limit', () => {
  it('a configured limit wins', () => {
    expect(workerHeapMb(300, 8, 1_024)).to.equal(300);
  });

  it('0 = 60% of the pod memory split between the workers, within bounds', () => {
    expect(workerHeapMb(0, 2, 2_048)).to.equal(614);
    expect(workerHeapMb(0, 4, 3_072)).to.equal(MIN_DERIVED_HEAP_MB);
    expect(workerHeapMb(0, 1, 64_000)).to.equal(MAX_DERIVED_HEAP_MB);
  });

  it('the pod memory is the cgroup limit or the machine\'s, never more than the machine has', () => {
    expect(podMemoryMb()).to.be.greaterThan(0).and.at.most(Math.ceil((process.constrainedMemory() || Number.MAX_SAFE_INTEGER) / 1024 / 1024) + 1);
  });
});
