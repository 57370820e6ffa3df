import { Router } from 'express';
import type { Logger } from '../observability/logger.js';

/** A named readiness check of a dependency (database, NATS, cache...). Resolve = up, reject = down. */
export interface ReadinessCheck {
  readonly name: string;
  readonly check: () => Promise<unknown>;
  /** Default 2000 ms; a check that takes longer counts as down. */
  readonly timeoutMs?: number;
}

/** `error` is for the log only: the readiness answer says which dependency is down, not why (its text may name hosts, users, internals). */
export interface CheckResult { status: 'UP' | 'DOWN'; durationMs: number; error?: string }

async function runCheck({ check, timeoutMs = 2000 }: ReadinessCheck): Promise<CheckResult> {
  const started = performance.now();
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${timeoutMs} ms`)), timeoutMs);
  });
  try {
    await Promise.race([check(), timeout]);
    return { status: 'UP', durationMs: Math.round(performance.now() - started) };
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    return { status: 'DOWN', durationMs: Math.round(performance.now() - started), error: message };
  } finally {
    clearTimeout(timer);
  }
}

/** Runs all checks concurrently. */
export async function runReadiness(checks: readonly ReadinessCheck[]): Promise<{ status: 'UP' | 'DOWN'; checks: Record<string, CheckResult> }> {
  const results = await Promise.all(checks.map(async (check) => ({ name: check.name, result: await runCheck(check) })));
  const byName = Object.fromEntries(results.map(({ name, result }) => [name, result]));
  return { status: results.every(({ result }) => result.status === 'UP') ? 'UP' : 'DOWN', checks: byName };
}

/**
/**
 * `GET /health`: liveness, 200 while the process serves requests and every liveness check is up
 * (a check belongs here only when a restart is the remedy, e.g. a worker pool that cannot recover).
 * `GET /health/ready`: readiness, 200 when every check is up, else 503 naming each check's status (UP or
 * DOWN) and duration. Why a check is down goes to the log (warn, with the check's name), never into the
 * answer: a probe endpoint may be reachable by more people than the logs are. Both read their check
 * lists at each request, so checks added after start-up count.
 */
export function healthRouter(checks: readonly ReadinessCheck[], logger?: Logger, liveness: readonly ReadinessCheck[] = []): Router {
  const router = Router();
  router.get('/health', async (_req, res) => {
    res.setHeader('Cache-Control', 'no-store');
    if (liveness.length === 0) {
      res.json({ status: 'UP' });
      return;
    }
    const report = await runReadiness(liveness);
    res.status(report.status === 'UP' ? 200 : 503).json(publicReport(report, logger));
  });
  router.get('/health/ready', async (_req, res) => {
    const report = await runReadiness(checks);
    res.setHeader('Cache-Control', 'no-store');
    res.status(report.status === 'UP' ? 200 : 503).json(publicReport(report, logger));
  });
  return router;
}

/** A health report as answered: each check's status and duration; why a check is down goes to `logger`. */
export function publicReport(report: Awaited<ReturnType<typeof runReadiness>>, logger?: Logger): { status: 'UP' | 'DOWN'; checks: Record<string, Omit<CheckResult, 'error'>> } {
  const checks: Record<string, Omit<CheckResult, 'error'>> = {};
  for (const [name, { error, ...shown }] of Object.entries(report.checks)) {
    checks[name] = shown;
    if (error !== undefined) logger?.warn({ check: name, error, durationMs: shown.durationMs }, `readiness check ${name} is down`);
  }
  return { status: report.status, checks };
}
