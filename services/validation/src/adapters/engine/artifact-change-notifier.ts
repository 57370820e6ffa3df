/**
 * Keeps the engines of every instance of the validation service in step with the stored artifacts.
 *
 * Notices: an instance that changed the artifacts tells the others over a core-NATS subject
 * (internal to this service, not a contract event: no stream keeps it). The message carries this
 * instance's id; each instance ignores its own and reloads from the database on the others'.
 * `listener()` is the ArtifactChangeListener the validation API calls: rebuild here first (so the
 * caller's next validation sees the change), then notify.
 *
 * Generation check: core NATS is fire and forget, so a notice can be lost (a reconnect, a slow
 * consumer, an instance starting). With `generation`, every `checkIntervalMs` (the setting
 * validation.artifact-check-interval) the generation of the stored artifacts (a counter the
 * database increments with every change, migrations.ts) is compared with the one the engine was
 * built from, and the engine is rebuilt when they differ: every replica runs the stored artifacts
 * within about one interval (plus a rebuild) of a change, notice or not. Gauge
 * `validation_artifact_generation{source="engine"|"database"}`: the generation the engine runs and
 * the one last read from the database (they differ for longer than an interval only while a
 * rebuild fails).
 */
import { randomUUID } from 'node:crypto';
import type { NatsConnection, Subscription } from '@nats-io/transport-node';
import type { Gauge } from 'prom-client';
import type { Logger } from '#adapters/observability/logger.js';
import type { ServiceMetrics } from '#adapters/observability/metrics.js';
import type { ArtifactChangeListener } from '../../domain/ports/artifact-repository.js';

export const ARTIFACTS_CHANGED_SUBJECT = 'nhsn.validation.internal.artifacts-changed';

/** The subject under the installation's subject root (`nats.namespace`): `<root>.validation.internal.artifacts-changed`. */
export function artifactsChangedSubject(catalog: { readonly subjectRoot: string }): string {
  return `${catalog.subjectRoot}.validation.internal.artifacts-changed`;
}

export interface ArtifactsChangedMessage {
  readonly origin: string;
  readonly kind: string;
  readonly type?: string;
  readonly name?: string;
}

export interface ArtifactChangeNotifierOptions {
  readonly nc: NatsConnection;
  /** Rebuilds this instance's engine. */
  readonly reload: (reason: string) => Promise<unknown>;
  readonly logger: Logger;
  /** Default ARTIFACTS_CHANGED_SUBJECT; tests use their own. */
  readonly subject?: string;
  readonly instanceId?: string;
  /** The periodic generation check; none when absent. */
  readonly generation?: {
    /** The generation of the stored artifacts now (ArtifactRepository.generation). */
    readonly stored: () => Promise<number>;
    /** The generation the engine was built from (undefined before its first build). */
    readonly running: () => number | undefined;
    /** validation.artifact-check-interval */
    readonly checkIntervalMs: number;
  };
  /** Where the generation gauge goes; none when absent. */
  readonly metrics?: ServiceMetrics;
}

/** Warnings about a failing check at most this often (the database may be down for a while). */
const CHECK_ERROR_LOG_INTERVAL_MS = 60_000;

export class ArtifactChangeNotifier {
  readonly instanceId: string;
  readonly subject: string;
  private subscription: Subscription | undefined;
  private checkTimer: NodeJS.Timeout | undefined;
  private stopped = false;
  private rebuilding: Promise<unknown> | undefined;
  private storedGeneration: number | undefined;
  private lastCheckErrorLogAt = 0;

  constructor(private readonly options: ArtifactChangeNotifierOptions) {
    this.instanceId = options.instanceId ?? randomUUID();
    this.subject = options.subject ?? ARTIFACTS_CHANGED_SUBJECT;
    const generation = options.generation;
    if (generation && options.metrics) {
      const gauge: Gauge<'source'> = options.metrics.gauge({
        name: 'validation_artifact_generation',
        help: 'Generation of the stored artifacts: the one this instance\'s engine was built from (source=engine) and the one last read from the database (source=database)',
        labelNames: ['source'],
        // Read when scraped: the engine's generation changes with every rebuild, whatever started it.
        collect: () => {
          const running = generation.running();
          if (running !== undefined) gauge.set({ source: 'engine' }, running);
          if (this.storedGeneration !== undefined) gauge.set({ source: 'database' }, this.storedGeneration);
        },
      });
    }
  }

  /** The generation last read from the database (undefined before the first check). */
  get lastStoredGeneration(): number | undefined {
    return this.storedGeneration;
  }

  /** Starts listening to the other instances, and the periodic generation check. */
  start(): void {
    this.stopped = false;
    this.listen();
    this.scheduleCheck();
  }

  /**
   * Compares the stored generation with the engine's and rebuilds when they differ. Returns whether
   * it started a rebuild. Skipped while a rebuild is on its way (it reads what is stored when it starts).
   */
  async checkGeneration(): Promise<boolean> {
    const generation = this.options.generation;
    if (!generation || this.rebuilding) return false;
    let stored: number;
    try {
      stored = await generation.stored();
    } catch (error) {
      if (Date.now() - this.lastCheckErrorLogAt >= CHECK_ERROR_LOG_INTERVAL_MS) {
        this.lastCheckErrorLogAt = Date.now();
        this.options.logger.warn({ err: error }, 'could not read the generation of the stored artifacts; will check again');
      }
      return false;
    }
    this.storedGeneration = stored;
    const running = generation.running();
    if (running === undefined || running === stored || this.rebuilding) return false;
    this.options.logger.warn({ running, stored }, 'the engine was built from an older generation of the stored artifacts (a change notice was missed); rebuilding');
    void this.rebuild(`stored artifacts at generation ${stored}, engine built from ${running}`)
      .catch((error: unknown) => this.options.logger.error({ err: error }, 'rebuild after a generation check failed; keeping the previous definitions, will check again'));
    return true;
  }

  private scheduleCheck(): void {
    const generation = this.options.generation;
    if (!generation || this.stopped) return;
    this.checkTimer = setTimeout(() => {
      void this.checkGeneration().finally(() => this.scheduleCheck());
    }, generation.checkIntervalMs);
    this.checkTimer.unref();
  }

  /** Every rebuild of this instance goes through here, so the check can tell one is on its way. */
  private rebuild(reason: string): Promise<unknown> {
    const run = this.options.reload(reason).finally(() => {
      if (this.rebuilding === run) this.rebuilding = undefined;
    });
    this.rebuilding = run;
    return run;
  }

  private listen(): void {
    const { nc, logger } = this.options;
    this.subscription = nc.subscribe(this.subject, {
      callback: (err, msg) => {
        if (err) {
          logger.warn({ err }, 'artifact change subscription error');
          return;
        }
        let message: ArtifactsChangedMessage;
        try {
          message = msg.json<ArtifactsChangedMessage>();
        } catch {
          logger.warn('ignoring an unreadable artifact change notification');
          return;
        }
        if (message.origin === this.instanceId) return;
        void this.rebuild(`artifacts changed on instance ${message.origin}`)
          .catch((error: unknown) => logger.error({ err: error }, 'rebuild after another instance changed artifacts failed; keeping the previous definitions'));
      },
    });
  }

  async publish(change: { kind: string; type?: string; name?: string }): Promise<void> {
    const message: ArtifactsChangedMessage = { origin: this.instanceId, ...change };
    this.options.nc.publish(this.subject, JSON.stringify(message));
    await this.options.nc.flush();
  }

  /** The listener for the validation API: rebuild locally, then notify the other instances. */
  listener(): ArtifactChangeListener {
    return {
      artifactsChanged: async (change) => {
        try {
          await this.rebuild(`artifact ${change.kind}${change.name ? ` ${change.type ?? ''} ${change.name}` : ''}`);
        } catch (error) {
          // The artifact is stored; failing the request would not undo that. Keep serving the old definitions.
          this.options.logger.error({ err: error }, 'rebuild after an artifact change failed; keeping the previous definitions');
        }
        try {
          await this.publish({ kind: change.kind, type: change.type, name: change.name });
        } catch (error) {
          this.options.logger.error({ err: error }, 'could not notify the other instances of an artifact change');
        }
      },
    };
  }

  stop(): void {
    this.stopped = true;
    clearTimeout(this.checkTimer);
    this.subscription?.unsubscribe();
    this.subscription = undefined;
  }
}
