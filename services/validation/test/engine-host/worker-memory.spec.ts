/** validation.worker-heap-mb: the configured limit, or the workers' share of the pod's memory. */
import { expect } from 'chai';
import { MAX_DERIVED_HEAP_MB, MIN_DERIVED_HEAP_MB, podMemoryMb, workerHeapMb } from '#validation/adapters/engine/worker-memory.js';
import { youngGenerationMb } from '#validation/adapters/worker-pool/validation-pool.js';

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

  it('the young generation beside it: 48 MB up to a 512 MB heap, then 3/32 of the heap up to 192 MB, always under a tenth of a heap of 512 MB or more', () => {
    expect([160, 512, 1_024, 2_048, 4_096].map(youngGenerationMb)).to.deep.equal([48, 48, 96, 192, 192]);
    for (let heap = MIN_DERIVED_HEAP_MB; heap <= MAX_DERIVED_HEAP_MB; heap += 64) expect(youngGenerationMb(heap) * 10).to.be.lessThan(heap);
  });
});
