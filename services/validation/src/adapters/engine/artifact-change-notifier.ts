/**
 * Tells the other instances of the validation service that the stored artifacts changed, over a
 * core-NATS subject (internal to this service, not a contract event: no stream keeps it, and an
 * instance that misses it while down rebuilds from the database when it starts anyway).
 *
 * The message carries this instance's id; each instance ignores its own and reloads from the
 * database on the others'. `listener()` is the ArtifactChangeListener the validation API calls:
 * rebuild here first (so the caller's next validation sees the change), then notify.
 */
import { randomUUID } from 'node:crypto';
import type { NatsConnection, Subscription } from '@nats-io/transport-node';
import type { Logger } from '../../../../../adapters/observability/logger.js';
import type { ArtifactChangeListener } from '../../domain/artifacts/artifact-repository.js';

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
}

export class ArtifactChangeNotifier {
  readonly instanceId: string;
  readonly subject: string;
  private subscription: Subscription | undefined;

  constructor(private readonly options: ArtifactChangeNotifierOptions) {
    this.instanceId = options.instanceId ?? randomUUID();
    this.subject = options.subject ?? ARTIFACTS_CHANGED_SUBJECT;
  }

  /** Starts listening to the other instances. */
  start(): void {
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
        void this.options.reload(`artifacts changed on instance ${message.origin}`)
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
          await this.options.reload(`artifact ${change.kind}${change.name ? ` ${change.type ?? ''} ${change.name}` : ''}`);
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
    this.subscription?.unsubscribe();
    this.subscription = undefined;
  }
}
