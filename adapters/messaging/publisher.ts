/**
 * The JetStream implementation of MessagePublisher. Every payload is checked against the contract
 * of its subject BEFORE anything is sent, so a producer bug surfaces at the producer (as a thrown
 * ContractViolationError naming the message and the schema errors) instead of as dead letters at
 * every consumer.
 *
 * Every message carries a W3C `traceparent`: the caller's when given (the outbox relay passes the
 * one stored with the row), otherwise a child span of the current context (a new trace outside any).
 */
import { JetStreamApiError, type JetStreamClient, type JetStreamPublishOptions } from '@nats-io/jetstream';
import { catalog as defaultCatalog, type Catalog, type MessageContract } from '#contracts/catalog.js';
import type { MessageName, MessagePayloads } from '#contracts/types.js';
import { validateAgainst } from '#contracts/validate.js';
import { withTraceparent } from '../observability/propagation.js';
import { ContractViolationError, UnknownSubjectError } from './errors.js';
import { recordToHeaders } from './headers.js';
import { UnpublishableMessageError, type MessagePublisher, type PublishAck, type PublishOptions } from './publisher-port.js';

/** JetStream's API error for a message larger than the stream's max_msg_size. */
const JS_MESSAGE_TOO_LARGE = 10054;

/** The broker refuses this message whatever the retry: larger than the server's max_payload or the stream's max_msg_size. */
function isTooLarge(error: unknown): boolean {
  if (error instanceof JetStreamApiError) return error.code === JS_MESSAGE_TOO_LARGE;
  return error instanceof Error && error.name === 'InvalidArgumentError' && /max_payload/.test(error.message);
}

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

  /**
   * Throws UnknownSubjectError, ContractViolationError (nothing sent), UnpublishableMessageError
   * when the broker refuses the message for its size, or the broker's error (possibly temporary).
   */
  async publish(subject: string, payload: unknown, options: PublishOptions = {}): Promise<PublishAck> {
    const contract = this.contractFor(subject);
    const check = validateAgainst(contract.payload.schema, payload);
    if (!check.ok) throw new ContractViolationError(contract.name, subject, check.errors);

    const opts: Partial<JetStreamPublishOptions> = { timeout: this.timeoutMs };
    if (options.msgId) opts.msgID = options.msgId;
    const headers = recordToHeaders(withTraceparent(options.headers));
    if (headers) opts.headers = headers;
    const data = JSON.stringify(payload);
    try {
      const ack = await this.js.publish(subject, data, opts);
      return { stream: ack.stream, seq: ack.seq, duplicate: ack.duplicate };
    } catch (error) {
      if (!isTooLarge(error)) throw error;
      throw new UnpublishableMessageError(`${contract.name} of ${Buffer.byteLength(data)} bytes is larger than the broker accepts: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
    }
  }

  /** Publishes a message by its catalog name (the subject comes from the catalog), typed by contracts/types.ts. */
  publishMessage<N extends MessageName>(name: N, payload: MessagePayloads[N], options?: PublishOptions): Promise<PublishAck> {
    return this.publish(this.catalog.byName(name).subject, payload, options);
  }

  private contractFor(subject: string): MessageContract {
    const contract = this.catalog.bySubject(subject);
    if (!contract) throw new UnknownSubjectError(subject);
    if (contract.transport !== 'jetstream') {
      throw new UnknownSubjectError(subject, `${contract.name} is a request-reply message; use requestQuery, not the JetStream publisher`);
    }
    return contract;
  }
}
