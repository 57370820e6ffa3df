/**
 * The JetStream implementation of MessagePublisher. Every payload is checked against the contract
 * of its subject BEFORE anything is sent, so a producer bug surfaces at the producer (as a thrown
 * ContractViolationError naming the message and the schema errors) instead of as dead letters at
 * every consumer.
 *
 * Every message carries a W3C `traceparent`: the caller's when given (the outbox relay passes the
 * one stored with the row), otherwise a child span of the current context (a new trace outside any).
 */
import type { JetStreamClient, JetStreamPublishOptions } from '@nats-io/jetstream';
import { catalog as defaultCatalog, type Catalog, type MessageContract } from '../../contracts/catalog.js';
import type { MessageName, MessagePayloads } from '../../contracts/types.js';
import { validateAgainst } from '../../contracts/validate.js';
import { withTraceparent } from '../observability/propagation.js';
import { ContractViolationError, UnknownSubjectError } from './errors.js';
import { recordToHeaders } from './headers.js';
import type { MessagePublisher, PublishAck, PublishOptions } from './publisher-port.js';

export interface JetStreamPublisherOptions {
  catalog?: Catalog;
  /** How long to wait for the stream's PubAck; default 5 s. */
  timeoutMs?: number;
}

export class JetStreamPublisher implements MessagePublisher {
  private readonly catalog: Catalog;
  private readonly timeoutMs: number;

  constructor(private readonly js: JetStreamClient, options: JetStreamPublisherOptions = {}) {
    this.catalog = options.catalog ?? defaultCatalog;
    this.timeoutMs = options.timeoutMs ?? 5_000;
  }

  /** Throws UnknownSubjectError, ContractViolationError (nothing sent), or the broker's error. */
  async publish(subject: string, payload: unknown, options: PublishOptions = {}): Promise<PublishAck> {
    const contract = this.contractFor(subject);
    const check = validateAgainst(contract.payload.schema, payload);
    if (!check.ok) throw new ContractViolationError(contract.name, subject, check.errors);

    const opts: Partial<JetStreamPublishOptions> = { timeout: this.timeoutMs };
    if (options.msgId) opts.msgID = options.msgId;
    const headers = recordToHeaders(withTraceparent(options.headers));
    if (headers) opts.headers = headers;
    const ack = await this.js.publish(subject, JSON.stringify(payload), opts);
    return { stream: ack.stream, seq: ack.seq, duplicate: ack.duplicate };
  }

  /** Publishes a message by its catalog name (the subject comes from the catalog), typed by contracts/types.ts. */
  publishMessage<N extends MessageName>(name: N, payload: MessagePayloads[N], options?: PublishOptions): Promise<PublishAck> {
    return this.publish(this.catalog.byName(name).subject, payload, options);
  }

  private contractFor(subject: string): MessageContract {
    const contract = this.catalog.bySubject(subject);
    if (!contract) throw new UnknownSubjectError(subject);
    if (contract.transport !== 'jetstream') {
      throw new Error(`${contract.name} is a request-reply message (${subject}); use requestQuery, not the JetStream publisher`);
    }
    return contract;
  }
}
