import type { ReadinessCheck } from '#adapters/http/index.js';

/**
 * The health of the validation workers, for `/health/ready` and `/health`: down when the pool has
 * had work (queued or running) for longer than `stallTimeoutMs` without any resource finishing or
 * being stopped at its deadline. With deadlines a healthy pool never gets there (a stuck worker is
 * replaced within validation.resource-timeout-ms), so a pool that does cannot recover by itself
 * (e.g. no worker can start): readiness takes the pod out of the Service, liveness has it restarted,
 * and the messages it holds go to another instance.
 */
export function workersHealthCheck(engine: { stalledForMs(): number }, stallTimeoutMs: number): ReadinessCheck {
  return {
    name: 'validation-workers',
    check: async () => {
      const stalledMs = engine.stalledForMs();
      if (stalledMs > stallTimeoutMs) {
        throw new Error(`no validation finished or was stopped for ${Math.round(stalledMs / 1_000)} s while work was waiting (limit ${Math.round(stallTimeoutMs / 1_000)} s)`);
      }
    },
  };
}
