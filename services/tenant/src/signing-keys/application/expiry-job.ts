import type { Logger } from '../../domain/ports/logger.js';
import type { SigningKeyService } from './signing-key-service.js';

/**
 * Every `intervalMs`: record `expired` for keys past their expiry and rewrite the JWKS. The rewrite
 * also drops disabled keys whose retention ended, repairs a file a failed write left stale, and lets
 * an instance pick up keys another instance changed. Reads never wait for it: the status they show
 * is computed from `expiresAt`. Several instances may run it; the update is idempotent.
 */
export class KeyExpiryJob {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;

  constructor(private readonly service: SigningKeyService, private readonly intervalMs: number, private readonly logger: Logger) {}

  start(): void {
    if (this.timer) return;
    this.running = this.tick();
    this.timer = setInterval(() => {
      if (!this.running) this.running = this.tick();
    }, this.intervalMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    await this.running;
  }

  private async tick(): Promise<void> {
    try {
      await this.service.expireDue();
    } catch (error) {
      this.logger.error({ err: error }, 'signing-key expiry job failed; retrying at the next interval');
    } finally {
      this.running = undefined;
    }
  }
}
