/**
 * What a producer of events needs from the broker. The JetStream adapter implements it; the
 * transactional outbox relay uses it to publish stored events; tests may use a recording fake.
 */
export interface PublishOptions {
  /** Nats-Msg-Id: JetStream drops a second message with the same id inside the stream's duplicate window. */
  msgId?: string;
  headers?: Record<string, string>;
}

export interface PublishAck {
  stream: string;
  seq: number;
  duplicate: boolean;
}

export interface MessagePublisher {
  /** Publishes a JSON payload; refuses (throws) a payload that fails the subject's contract schema. */
  publish(subject: string, payload: unknown, options?: PublishOptions): Promise<PublishAck>;
}

/**
 * publish() refused a message that no retry can get through: it fails its contract, no contract
 * names its subject, or the broker refuses it for good (larger than it accepts). Any other
 * rejection may be temporary (broker unreachable, no stream yet). The transactional outbox parks a
 * row refused this way instead of retrying it forever.
 */
export class UnpublishableMessageError extends Error {
  override readonly name: string = 'UnpublishableMessageError';
}
