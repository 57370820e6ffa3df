import { expect } from 'chai';
import { CircuitBreaker } from '#validation/adapters/terminology/circuit-breaker.js';

describe('terminology CircuitBreaker', () => {
  it('opens after N consecutive failures, half-opens after M seconds for one trial, closes on success', () => {
    let now = 0;
    const breaker = new CircuitBreaker({ failureThreshold: 3, openSeconds: 10, now: () => now });
    breaker.recordFailure();
    breaker.recordFailure();
    breaker.recordSuccess(); // the count is of consecutive failures
    for (let i = 0; i < 3; i++) {
      expect(breaker.tryAcquire()).to.equal(true);
      breaker.recordFailure();
    }
    expect(breaker.state).to.equal('open');
    expect(breaker.tryAcquire()).to.equal(false);
    now = 10_000;
    expect(breaker.state).to.equal('half-open');
    expect(breaker.tryAcquire()).to.equal(true);
    expect(breaker.tryAcquire()).to.equal(false); // only one trial at a time
    breaker.recordSuccess();
    expect(breaker.state).to.equal('closed');
    expect(breaker.tryAcquire()).to.equal(true);
  });

  it('re-opens when the half-open trial fails', () => {
    let now = 0;
    const breaker = new CircuitBreaker({ failureThreshold: 1, openSeconds: 5, now: () => now });
    breaker.recordFailure();
    now = 5_000;
    expect(breaker.tryAcquire()).to.equal(true);
    breaker.recordFailure();
    expect(breaker.state).to.equal('open');
    now = 9_999;
    expect(breaker.tryAcquire()).to.equal(false);
  });
});
