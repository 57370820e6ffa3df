/**
 * Stops hammering a terminology server that keeps failing: after `failureThreshold` consecutive
 * failures the circuit opens and calls are refused for `openSeconds`; then one trial call is let
 * through (half-open) and its outcome closes or re-opens the circuit. Refused calls cost nothing,
 * so a dead server slows validation down only until the threshold is reached.
 */
export interface CircuitBreakerOptions {
  failureThreshold?: number;
  openSeconds?: number;
  now?: () => number;
}

export type CircuitState = 'closed' | 'open' | 'half-open';

export class CircuitBreaker {
  private consecutiveFailures = 0;
  private openedAt: number | undefined;
  private trialInFlight = false;
  private readonly failureThreshold: number;
  private readonly openMs: number;
  private readonly now: () => number;

  constructor(options: CircuitBreakerOptions = {}) {
    this.failureThreshold = Math.max(1, options.failureThreshold ?? 5);
    this.openMs = Math.max(0, options.openSeconds ?? 30) * 1000;
    this.now = options.now ?? Date.now;
  }

  get state(): CircuitState {
    if (this.openedAt === undefined) return 'closed';
    return this.now() - this.openedAt >= this.openMs ? 'half-open' : 'open';
  }

  /** Whether a call may go out now (in half-open state: only the one trial call). */
  tryAcquire(): boolean {
    const state = this.state;
    if (state === 'closed') return true;
    if (state === 'open' || this.trialInFlight) return false;
    this.trialInFlight = true;
    return true;
  }

  recordSuccess(): void {
    this.consecutiveFailures = 0;
    this.openedAt = undefined;
    this.trialInFlight = false;
  }

  recordFailure(): void {
    this.trialInFlight = false;
    this.consecutiveFailures++;
    if (this.openedAt !== undefined || this.consecutiveFailures >= this.failureThreshold) this.openedAt = this.now();
  }
}
