import { completionMsgId, type CommitOptions, type CommitResult, type FlowRecord, type FlowStore } from '#validation/domain/ports/flow-store.js';

/**
 * The flow store of the flow's unit tests: keeps, per submission, the events announced, the outcome
 * hash last announced and its run, as PgFlowStore does (flow-store.contract.int.spec.ts holds both to
 * the same contract), and records every commit, and every announcement it enqueued, for the tests
 * to inspect.
 */
export class InMemoryFlowStore implements FlowStore {
  readonly records: FlowRecord[] = [];
  /** The options of each commit, in the order of `records`. */
  readonly options: CommitOptions[] = [];
  /** The announcements enqueued (the outbox), in order. */
  readonly announced: FlowRecord['announcement'][] = [];
  private readonly latest = new Map<string, { outcomeHash: string; runId: string; events: Set<string> }>();

  async commit(record: FlowRecord, options: CommitOptions = {}): Promise<CommitResult> {
    this.records.push(record);
    this.options.push(options);
    const id = `${record.key.facilityId}\u0000${record.key.reportId}\u0000${record.key.patientId}`;
    const stored = this.latest.get(id);
    const announced = !stored || (record.eventId === undefined ? stored.outcomeHash !== record.outcomeHash : !stored.events.has(record.eventId));
    if (!announced) return { announced: false, runId: stored.runId, msgId: completionMsgId(record.key, stored.runId) };
    const { runId } = record;
    this.announced.push(record.announcement);
    const events = stored?.events ?? new Set<string>();
    if (record.eventId !== undefined) events.add(record.eventId);
    this.latest.set(id, { outcomeHash: record.outcomeHash, runId, events });
    return { announced: true, runId, msgId: completionMsgId(record.key, runId) };
  }
}
