import type { MessagePublisher, PublishAck, PublishOptions } from '../../messaging/publisher-port.js';

/** A MessagePublisher that records calls; `down = true` makes it throw like a broker that cannot be reached. */
export class RecordingPublisher implements MessagePublisher {
  readonly calls: { subject: string; payload: unknown; options?: PublishOptions }[] = [];
  down = false;
  failures = 0;
  /** The most publishes that were in progress at once. */
  maxInFlight = 0;
  private inFlight = 0;
  private seq = 0;
  private readonly seenMsgIds = new Set<string>();

  constructor(private readonly delayMs = 0) {}

  async publish(subject: string, payload: unknown, options?: PublishOptions): Promise<PublishAck> {
    this.maxInFlight = Math.max(this.maxInFlight, ++this.inFlight);
    try {
      return await this.answer(subject, payload, options);
    } finally {
      this.inFlight--;
    }
  }

  private async answer(subject: string, payload: unknown, options?: PublishOptions): Promise<PublishAck> {
    if (this.delayMs > 0) await new Promise((r) => setTimeout(r, this.delayMs));
    if (this.down) {
      this.failures++;
      throw new Error('connection refused (simulated broker outage)');
    }
    this.calls.push({ subject, payload, options });
    const duplicate = options?.msgId !== undefined && this.seenMsgIds.has(options.msgId);
    if (options?.msgId !== undefined) this.seenMsgIds.add(options.msgId);
    return { stream: 'TEST', seq: ++this.seq, duplicate };
  }

  msgIds(): string[] {
    return this.calls.map((c) => c.options?.msgId ?? '');
  }
}
