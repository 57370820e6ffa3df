import { randomUUID } from 'node:crypto';
import { completionMsgId, type CommitOptions, type CommitResult, type FlowRecord, type FlowStore } from '#validation/domain/ports/flow-store.js';

/**
 * The flow store of the flow's unit tests: keeps, per submission, the last outcome hash and its run,
 * as PgFlowStore does (flow-store.contract.spec.ts holds both to the same contract), and records
 * every commit for the tests to inspect.
 */
export class InMemoryFlowStore implements FlowStore {
  readonly records: FlowRecord[] = [];
  /** The options of each commit, in the order of `records`. */
  readonly options: CommitOptions[] = [];
  private readonly latest = new Map<string, { outcomeHash: string; runId: string }>();

  async commit(record: FlowRecord, options: CommitOptions = {}): Promise<CommitResult> {
    this.records.push(record);
    this.options.push(options);
    const id = `${record.key.facilityId}\u0000${record.key.reportId}\u0000${record.key.patientId}`;
    const stored = this.latest.get(id);
    if (stored && stored.outcomeHash === record.outcomeHash) {
      return { announced: false, runId: stored.runId, msgId: completionMsgId(record.key, stored.runId) };
    }
    const runId = randomUUID();
    record.completion(runId);
    this.latest.set(id, { outcomeHash: record.outcomeHash, runId });
    return { announced: true, runId, msgId: completionMsgId(record.key, runId) };
  }
}
