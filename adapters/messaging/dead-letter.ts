/**
 * The dead-letter stream: where a consumer puts a message it gives up on, so that nothing is ever
 * silently dropped. Operators list, read and replay dead letters (see the runbook).
 *
 * A dead letter is published to
 *
 *     <root>.dead-letter.<original subject>          (stream DEAD_LETTER, subjects <root>.dead-letter.>)
 *
 * Its body is the ORIGINAL payload bytes, verbatim (even when they are not JSON). The original
 * headers are kept (traceparent etc.; the original Nats-Msg-Id moves to
 * Nats-Dead-Letter-Original-Msg-Id) and these headers are added:
 *
 * | header                          | value                                                                 |
 * |---------------------------------|-----------------------------------------------------------------------|
 * | Nats-Dead-Letter-Reason         | why: schema errors, "invalid JSON: …", the handler's error message    |
 * | Nats-Dead-Letter-Subject        | the original subject (replay publishes back to it)                    |
 * | Nats-Dead-Letter-Stream         | the original stream                                                   |
 * | Nats-Dead-Letter-Stream-Seq     | the original stream sequence                                          |
 * | Nats-Dead-Letter-Deliveries     | how many times it was delivered to the consumer                       |
 * | Nats-Dead-Letter-Consumer       | the durable consumer that gave up                                     |
 * | Nats-Dead-Letter-At             | when (ISO 8601 UTC)                                                   |
 * | Nats-Dead-Letter-Original-Msg-Id| the original Nats-Msg-Id, if any                                      |
 *
 * The dead letter's own Nats-Msg-Id is `<stream>:<seq>:<consumer>`, so dead-lettering the same
 * delivery twice (ack lost, redelivered, dead-lettered again) stores it once.
 */
import type { JetStreamClient, JetStreamManager, StoredMsg } from '@nats-io/jetstream';
import { JetStreamApiCodes, JetStreamApiError } from '@nats-io/jetstream';
import type { MsgHdrs } from '@nats-io/transport-node';
import type { Catalog } from '#contracts/catalog.js';
import { catalog as defaultCatalog } from '#contracts/catalog.js';
import { headersToRecord, MSG_ID_HEADER, recordToHeaders } from './headers.js';

export const DEAD_LETTER_HEADERS = {
  reason: 'Nats-Dead-Letter-Reason',
  subject: 'Nats-Dead-Letter-Subject',
  stream: 'Nats-Dead-Letter-Stream',
  streamSeq: 'Nats-Dead-Letter-Stream-Seq',
  deliveries: 'Nats-Dead-Letter-Deliveries',
  consumer: 'Nats-Dead-Letter-Consumer',
  at: 'Nats-Dead-Letter-At',
  originalMsgId: 'Nats-Dead-Letter-Original-Msg-Id',
} as const;

/** On a replayed message: the dead-letter sequence it was replayed from. */
export const REPLAYED_FROM_HEADER = 'Nats-Dead-Letter-Replayed-From';

/** Header values are single lines; a long stack of schema errors is cut so the header stays small. */
const MAX_REASON_LENGTH = 2_000;

export interface FailedDelivery {
  subject: string;
  data: Uint8Array;
  headers: MsgHdrs | undefined;
  stream: string;
  streamSequence: number;
  deliveryCount: number;
  consumer: string;
}

export interface DeadLetter {
  /** Sequence in the dead-letter stream (the handle for read/replay/delete). */
  seq: number;
  deadLetterSubject: string;
  originalSubject: string;
  reason: string;
  originalStream: string;
  originalStreamSequence: number;
  deliveries: number;
  consumer: string;
  at: string;
  /** All headers of the dead letter, including the original message's headers. */
  headers: Record<string, string>;
  /** The original payload bytes. */
  data: Uint8Array;
  /** The payload as UTF-8 text (it may not be JSON). */
  text: string;
}

export interface ListDeadLettersOptions {
  /** Start at this dead-letter sequence (inclusive); default the oldest. */
  fromSeq?: number;
  /** At most this many; default 100. */
  limit?: number;
  /** Only dead letters of this original subject. */
  originalSubject?: string;
}

export interface ReplayResult {
  subject: string;
  stream: string;
  seq: number;
  duplicate: boolean;
}

function oneLine(text: string): string {
  const flat = text.replace(/[\r\n]+/g, ' ');
  return flat.length > MAX_REASON_LENGTH ? flat.slice(0, MAX_REASON_LENGTH) + '…' : flat;
}

export class DeadLetterQueue {
  private readonly catalog: Catalog;

  constructor(private readonly js: JetStreamClient, private readonly jsm: JetStreamManager, catalog: Catalog = defaultCatalog) {
    this.catalog = catalog;
  }

  get streamName(): string {
    return this.catalog.deadLetterStream.name;
  }

  /** Stores a failed delivery with its reason. Throws if the dead-letter stream did not acknowledge it (then the caller must NOT ack the original). */
  async deadLetter(failed: FailedDelivery, reason: string): Promise<{ seq: number; duplicate: boolean }> {
    const original = headersToRecord(failed.headers);
    const originalMsgId = original[MSG_ID_HEADER];
    delete original[MSG_ID_HEADER];
    const headers = recordToHeaders({
      ...original,
      ...(originalMsgId ? { [DEAD_LETTER_HEADERS.originalMsgId]: originalMsgId } : {}),
      [DEAD_LETTER_HEADERS.reason]: oneLine(reason),
      [DEAD_LETTER_HEADERS.subject]: failed.subject,
      [DEAD_LETTER_HEADERS.stream]: failed.stream,
      [DEAD_LETTER_HEADERS.streamSeq]: String(failed.streamSequence),
      [DEAD_LETTER_HEADERS.deliveries]: String(failed.deliveryCount),
      [DEAD_LETTER_HEADERS.consumer]: failed.consumer,
      [DEAD_LETTER_HEADERS.at]: new Date().toISOString(),
    });
    const ack = await this.js.publish(`${this.catalog.deadLetterPrefix}.${failed.subject}`, failed.data, {
      headers, msgID: `${failed.stream}:${failed.streamSequence}:${failed.consumer}`,
    });
    return { seq: ack.seq, duplicate: ack.duplicate };
  }

  /** One dead letter by its sequence, or undefined if there is none (deleted or never existed). */
  async read(seq: number): Promise<DeadLetter | undefined> {
    let stored: StoredMsg | null;
    try {
      stored = await this.jsm.streams.getMessage(this.streamName, { seq });
    } catch (err) {
      if (err instanceof JetStreamApiError && err.code === JetStreamApiCodes.NoMessageFound) return undefined;
      throw err;
    }
    return stored ? toDeadLetter(stored) : undefined;
  }

  /** Dead letters in sequence order, oldest first. */
  async list(options: ListDeadLettersOptions = {}): Promise<DeadLetter[]> {
    const limit = options.limit ?? 100;
    const info = await this.jsm.streams.info(this.streamName);
    const out: DeadLetter[] = [];
    for (let seq = Math.max(options.fromSeq ?? 1, info.state.first_seq); seq <= info.state.last_seq && out.length < limit; seq++) {
      const dl = await this.read(seq);
      if (dl && (!options.originalSubject || dl.originalSubject === options.originalSubject)) out.push(dl);
    }
    return out;
  }

  /**
   * Publishes the dead letter's payload back to its original subject, with its original headers
   * (not the dead-letter ones). Not re-validated on purpose: the usual reason to replay is that
   * the consumer or the contract was fixed. The replay's Nats-Msg-Id is `replay:<dead-letter seq>`,
   * so replaying twice within the duplicate window sends it once. With `remove: true` the dead
   * letter is deleted after the replay was acknowledged.
   */
  async replay(seq: number, options: { remove?: boolean } = {}): Promise<ReplayResult> {
    const dl = await this.read(seq);
    if (!dl) throw new Error(`No dead letter with sequence ${seq} in ${this.streamName}`);
    const deadLetterHeaderNames = new Set<string>(Object.values(DEAD_LETTER_HEADERS));
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(dl.headers)) if (!deadLetterHeaderNames.has(k) && k !== MSG_ID_HEADER) headers[k] = v;
    headers[REPLAYED_FROM_HEADER] = String(seq);
    const ack = await this.js.publish(dl.originalSubject, dl.data, { headers: recordToHeaders(headers), msgID: `replay:${this.streamName}:${seq}` });
    if (options.remove) await this.remove(seq);
    return { subject: dl.originalSubject, stream: ack.stream, seq: ack.seq, duplicate: ack.duplicate };
  }

  /** Deletes one dead letter (after it was replayed or judged worthless). */
  async remove(seq: number): Promise<boolean> {
    return this.jsm.streams.deleteMessage(this.streamName, seq);
  }
}

function toDeadLetter(m: StoredMsg): DeadLetter {
  const headers = headersToRecord(m.header);
  return {
    seq: m.seq,
    deadLetterSubject: m.subject,
    originalSubject: headers[DEAD_LETTER_HEADERS.subject] ?? '',
    reason: headers[DEAD_LETTER_HEADERS.reason] ?? '',
    originalStream: headers[DEAD_LETTER_HEADERS.stream] ?? '',
    originalStreamSequence: Number(headers[DEAD_LETTER_HEADERS.streamSeq] ?? 0),
    deliveries: Number(headers[DEAD_LETTER_HEADERS.deliveries] ?? 0),
    consumer: headers[DEAD_LETTER_HEADERS.consumer] ?? '',
    at: headers[DEAD_LETTER_HEADERS.at] ?? '',
    headers,
    data: m.data,
    text: new TextDecoder().decode(m.data),
  };
}
